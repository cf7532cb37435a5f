package macro

import (
	"github.com/sokod/sokod/board"
	"github.com/sokod/sokod/sokoban"
)

// Frozen-goal deadlocks.
//
// A box frozen on its goal (blocked on both axes by walls, dead squares or
// other frozen boxes) never moves again in any solution, so from then on
// it is part of the wall. Filling a goal room in the wrong order freezes
// boxes that cut the way to the goals still empty: a macro planner can
// reach every goal but one, with the last box unable to get there past the
// ones packed before it, and search on below that position for the rest of
// its budget. The plain bipartite test cannot
// see it: on the board without the packed boxes the last box still gets
// through.
//
// The test builds the level with the frozen boxes as walls, analyses it
// (lone-box push distances by player side), and matches the other boxes to
// the goals left there. Boards are cached by the set of frozen boxes; a
// miss costs one board.Analyze, far more than a lookup, but the set
// changes only when a box freezes on a goal.

// walledCacheBytes bounds the memory of the boards kept (board.Board's
// estimate): a plan meets few distinct frozen sets, so on an ordinary
// level the bound keeps every board it builds, and on a huge board the
// cache still cannot grow without limit.
const walledCacheBytes = 32 << 20

// walledBoard is the level with one set of frozen boxes as walls.
type walledBoard struct {
	b     *board.Board
	match *Matcher
}

// walled is the scratch space of the frozen-goal test.
type walled struct {
	boards map[uint64]*walledBoard
	order  []uint64 // keys in the order built, the oldest evicted first
	bytes  int64
	frozen []uint16
	boxes  []uint16
	cells  []sokoban.Cell
	text   []byte
}

// frozenGoalsMatch runs the frozen-goal test on pos. It decides (ok
// false is a deadlock) when some box is frozen on a goal; then it says
// all the plain bipartite test would, since the walls only take reach
// away. It does not decide when no box is frozen on a goal, or when the
// walled level cannot be analysed.
func (g *Gen) frozenGoalsMatch(pos *Pos) (ok, decided bool) {
	if g.walled == nil {
		g.walled = &walled{}
	}
	w := g.walled
	b := g.b
	w.frozen = w.frozen[:0]
	var key uint64
	for _, sq := range pos.Boxes {
		if b.GoalIndex[sq] < 0 {
			continue
		}
		bump(&g.fgen, g.fmark)
		g.fstack = g.fstack[:0]
		if !g.frozen(pos, sq) {
			continue
		}
		for _, x := range g.fstack {
			if b.GoalIndex[x] < 0 {
				return false, true // frozen off a goal
			}
		}
		w.frozen = append(w.frozen, sq)
		key ^= b.ZBox[sq]
	}
	if len(w.frozen) == 0 {
		return false, false
	}
	wb := w.board(g, pos, key)
	if wb == nil {
		return false, false
	}
	w.boxes = w.boxes[:0]
	for _, sq := range pos.Boxes {
		rq := wb.b.SquareOf[b.Cell[sq]]
		switch {
		case rq >= 0:
			w.boxes = append(w.boxes, uint16(rq))
		case b.GoalIndex[sq] < 0: // frozen boxes are all on goals
			return false, true // walled in off a goal
		}
	}
	if len(w.boxes) != len(wb.b.Goals) {
		return false, true // a goal left that no box can get to
	}
	rp := wb.b.SquareOf[b.Cell[pos.Player]]
	return wb.match.Perfect(w.boxes, uint16(rp)), true
}

func isFrozen(frozen []uint16, sq uint16) bool {
	for _, x := range frozen {
		if x == sq {
			return true
		}
	}
	return false
}

// board returns the walled board for the frozen set with hash key whose
// part of the board holds the player of pos, building it on a miss, or nil
// when the walled level does not parse or analyse. The player's part
// joins the key: frozen boxes can cut the board in two.
func (w *walled) board(g *Gen, pos *Pos, key uint64) *walledBoard {
	b := g.b
	pc := b.Cell[pos.Player]
	if wb := w.boards[key]; wb != nil && wb.b.SquareOf[pc] >= 0 {
		return wb
	}
	l := w.level(g, pos)
	if l == nil {
		return nil
	}
	rb, err := board.Analyze(l)
	if err != nil || rb.SquareOf[pc] < 0 {
		return nil
	}
	if w.boards == nil {
		w.boards = map[uint64]*walledBoard{}
	}
	for w.bytes > walledCacheBytes && len(w.order) > 0 {
		old := w.boards[w.order[0]]
		w.bytes -= old.b.Bytes()
		delete(w.boards, w.order[0])
		w.order = w.order[1:]
	}
	wb := &walledBoard{b: rb, match: NewMatcher(rb)}
	if old := w.boards[key]; old != nil { // the player's other part
		w.bytes -= old.b.Bytes()
	} else {
		w.order = append(w.order, key)
	}
	w.boards[key] = wb
	w.bytes += rb.Bytes()
	return wb
}

// level writes pos as a level with the frozen boxes as walls, and parses
// it back.
func (w *walled) level(g *Gen, pos *Pos) *sokoban.Level {
	b := g.b
	if w.cells == nil {
		w.cells = b.Level.Cells()
	}
	w.text = w.text[:0]
	for y := range b.Height {
		for x := range b.Width {
			c := y*b.Width + x
			sq := b.SquareOf[c]
			ch := byte(' ')
			switch {
			case sq < 0 && w.cells[c].Has(sokoban.Wall):
				ch = '#'
			case sq < 0:
				ch = ' ' // outside the walls
				if w.cells[c].Has(sokoban.Goal) && w.cells[c].Has(sokoban.Box) {
					ch = '*'
				}
			case pos.BoxAt[sq] >= 0 && isFrozen(w.frozen, uint16(sq)):
				ch = '#'
			case pos.BoxAt[sq] >= 0 && b.GoalIndex[sq] >= 0:
				ch = '*'
			case pos.BoxAt[sq] >= 0:
				ch = '$'
			case uint16(sq) == pos.Player && b.GoalIndex[sq] >= 0:
				ch = '+'
			case uint16(sq) == pos.Player:
				ch = '@'
			case b.GoalIndex[sq] >= 0:
				ch = '.'
			}
			w.text = append(w.text, ch)
		}
		w.text = append(w.text, '\n')
	}
	l, err := sokoban.Parse(string(w.text))
	if err != nil {
		return nil
	}
	return l
}
