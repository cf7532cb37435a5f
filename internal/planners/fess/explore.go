package fess

import (
	"github.com/sokod/sokod/board"
	"github.com/sokod/sokod/internal/planners/packing"
	"github.com/sokod/sokod/sdk/macro"
)

// The explorer and the opener, after Festival's advisors of those names.
// Neither has a feature of its own: they propose moves that no feature
// rewards yet. The explorer proposes a move the box can be pushed back
// from that lets the player reach a side of another box it could not
// reach, from which that box can be pushed: it opens new moves at no
// lasting cost. The opener, when no move packs, proposes the move that
// takes the box nearest the next square of the packing order away from
// it: it clears the way to the next step.

// ways answers the explorer's and the opener's questions about the board,
// filling its rows on first use: whether a lone box can be pushed from one
// square back to another, and how far the player walks from a square of
// the packing order. It is built once per plan and shared by its tries.
type ways struct {
	b    *board.Board
	plan *packing.Plan
	// back[from][to] is set when a lone box on to reaches from by relaxed
	// pushes; nil on a board too large for the rows (no explorer there).
	back [][]bool
	// walk[k] holds the player's steps from the square of the plan's
	// step k, boxes ignored.
	walk  [][]uint16
	seen  []bool
	queue []uint16
}

// newWays returns the tables of b and plan, every row still empty.
func newWays(b *board.Board, plan *packing.Plan) *ways {
	n := b.Squares
	w := &ways{b: b, plan: plan, walk: make([][]uint16, len(plan.Steps)), seen: make([]bool, n+1), queue: make([]uint16, 0, n)}
	// One row of n per square a box leaves: past the hotspot table's bound
	// the rows could take more memory than the plan's positions.
	if n*n <= maxHotspotWork {
		w.back = make([][]bool, n)
	}
	return w
}

// reversible reports whether a lone box pushed from from to to could be
// pushed back; false on a board without rows.
func (w *ways) reversible(from, to uint16) bool {
	if w.back == nil {
		return false
	}
	row := w.back[from]
	if row == nil {
		row = make([]bool, w.b.Squares+1)
		w.queue = pullReach(w.b, from, w.b.Wall(), w.seen, w.queue)
		for _, sq := range w.queue {
			row[sq] = true
		}
		w.back[from] = row
	}
	return row[to]
}

// steps returns the player's walking distances from the square of the
// plan's step k, boxes ignored, board.Inf where it cannot walk.
func (w *ways) steps(k int) []uint16 {
	if d := w.walk[k]; d != nil {
		return d
	}
	b, t := w.b, w.plan.Steps[k].To
	d := make([]uint16, b.Squares+1)
	for i := range d {
		d[i] = board.Inf
	}
	d[t] = 0
	w.queue = append(w.queue[:0], t)
	for i := 0; i < len(w.queue); i++ {
		q := w.queue[i]
		for dir := range 4 {
			n := b.Nbr[int(q)*4+dir]
			if n != b.Wall() && d[n] == board.Inf {
				d[n] = d[q] + 1
				w.queue = append(w.queue, n)
			}
		}
	}
	w.walk[k] = d
	return d
}

// markReach records in s.reach the squares the player reaches in s.pos,
// for opensPush to compare its children with.
func (s *search) markReach() {
	s.gen.Flood(s.pos, s.pos.Player)
	for sq := range s.reach {
		s.reach[sq] = s.gen.Reached(uint16(sq))
	}
}

// opensPush reports whether in s.pos, reached by m from the position
// markReach saw, the player reaches a side of a box that stood in both
// positions, a side it could not reach before and that held no box, from
// which that box can be pushed.
//
// It floods only the squares the parent did not reach, which are few. When
// the player's region holds none of the parent's squares, all of it is new.
// When it holds one, only m's From square was freed, so every new square
// lies beyond From, and a full flood confirms the player gets there.
func (s *search) opensPush(m *macro.Move) bool {
	s.stamp++
	if s.stamp == 0 {
		clear(s.seen)
		s.stamp = 1
	}
	touched, found := s.newSquares(m, s.pos.Player)
	if found {
		return true
	}
	if !touched || s.seen[m.From] == s.stamp {
		return false
	}
	if _, found = s.newSquares(m, m.From); !found {
		return false
	}
	s.gen.Flood(s.pos, s.pos.Player)
	return s.gen.Reached(m.From)
}

// newSquares floods s.pos from square sq over the free squares the parent
// did not reach, marking them seen. It reports whether the flood came next
// to a square the parent reached, and whether from one of its squares but
// m's From a box that stood in the parent too can be pushed.
func (s *search) newSquares(m *macro.Move, sq uint16) (touched, found bool) {
	b, pos := s.b, s.pos
	if s.reach[sq] {
		return true, false
	}
	if s.seen[sq] == s.stamp {
		return false, false
	}
	s.seen[sq] = s.stamp
	s.stack = append(s.stack[:0], sq)
	for len(s.stack) > 0 {
		p := s.stack[len(s.stack)-1]
		s.stack = s.stack[:len(s.stack)-1]
		for d := range 4 {
			x := b.Nbr[int(p)*4+d]
			switch {
			case pos.BoxAt[x] == -1:
				if s.reach[x] {
					touched = true
				} else if s.seen[x] != s.stamp {
					s.seen[x] = s.stamp
					s.stack = append(s.stack, x)
				}
			case pos.BoxAt[x] >= 0 && x != m.To && p != m.From:
				// The player on p pushes the box on x in direction d.
				if pos.BoxAt[b.Nbr[int(x)*4+d]] == -1 {
					return touched, true
				}
			}
		}
	}
	return touched, false
}

// better orders features as Festival's advisors compare moves: more steps
// packed, then fewer regions, doors, boxes out of plan and hotspots, then
// nearer the goals.
func better(a, b features) bool {
	switch {
	case a.packed != b.packed:
		return a.packed > b.packed
	case a.regions != b.regions:
		return a.regions < b.regions
	case a.doors != b.doors:
		return a.doors < b.doors
	case a.outOfPlan != b.outOfPlan:
		return a.outOfPlan < b.outOfPlan
	case a.hotspots != b.hotspots:
		return a.hotspots < b.hotspots
	}
	return a.dist < b.dist
}

// explore returns the explorer's proposal among the children not known:
// the best (by better) of those s.opens marks (they lose no packing, can
// be undone and open a push), or -1.
func (s *search) explore() int {
	best := -1
	for i, f := range s.childFeat {
		if s.known[i] || !s.opens[i] {
			continue
		}
		if best < 0 || better(f, s.childFeat[best]) {
			best = i
		}
	}
	return best
}

// open returns the opener's proposal among moves, the children not known,
// or -1: when no child packs more than parent and the next square of the
// packing order is empty, the move that starts nearest that square and
// does not bring its box nearer, farthest from it among equals. It never
// proposes a move that loses packing or adds regions or doors.
func (s *search) open(moves []macro.Move, parent features) int {
	k := int(parent.packed)
	if k >= len(s.plan.Steps) {
		return -1
	}
	t := s.plan.Steps[k].To
	if s.pos.BoxAt[t] != -1 {
		return -1
	}
	for i, f := range s.childFeat {
		if !s.known[i] && f.packed > parent.packed {
			return -1
		}
	}
	d := s.ways.steps(k)
	best := -1
	var bestFrom, bestTo uint16
	for i, f := range s.childFeat {
		if s.known[i] || f.packed < parent.packed || f.regions > parent.regions || f.doors > parent.doors {
			continue
		}
		from, to := d[moves[i].From], d[moves[i].To]
		if to < from || from == board.Inf {
			continue
		}
		if best < 0 || from < bestFrom || from == bestFrom && to > bestTo {
			best, bestFrom, bestTo = i, from, to
		}
	}
	return best
}
