package macro

import "github.com/sokod/sokod/board"

// Gen generates macro moves and runs the deadlock tests. Its scratch space
// (marks with generation stamps, so nothing is cleared per call, and the
// move buffer) is allocated once; one Gen serves one goroutine.
type Gen struct {
	b    *board.Board
	nbr  []uint16
	wall uint16

	// Flood marks: square s is in the last flood when mark[s] == mgen.
	mark  []uint32
	mgen  uint32
	stack []uint16
	// flooded counts the squares the last Flood reached.
	flooded int

	// Box breadth-first search: state sq*4+side, queued when queued[st]
	// == qgen, expanded when done[st] == qgen.
	queued, done []uint32
	qgen         uint32
	queue        []uint32
	// prev[st] is the state a queued state was reached from (rebuilding
	// paths only).
	prev []uint32

	// Freeze test scratch.
	fmark  []uint32
	fgen   uint32
	fstack []uint16

	moves   []Move
	match   *Matcher
	corral  *corral        // allocated on first use
	regions *regionScratch // allocated on first use
	walled  *walled        // allocated on first use
}

// NewGen returns a generator for board b.
func NewGen(b *board.Board) *Gen {
	n := b.Squares + 1
	return &Gen{
		b: b, nbr: b.Nbr, wall: uint16(b.Squares),
		mark: make([]uint32, n), stack: make([]uint16, 0, n),
		queued: make([]uint32, n*4), done: make([]uint32, n*4), queue: make([]uint32, 0, n*4), prev: make([]uint32, n*4),
		fmark: make([]uint32, n), fstack: make([]uint16, 0, n),
		moves: make([]Move, 0, 256),
		match: NewMatcher(b),
	}
}

// Board returns the generator's board.
func (g *Gen) Board() *board.Board { return g.b }

func (g *Gen) nextMark() {
	g.mgen++
	if g.mgen == 0 {
		clear(g.mark)
		g.mgen = 1
	}
}

func (g *Gen) nextQueue() {
	g.qgen++
	if g.qgen == 0 {
		clear(g.queued)
		clear(g.done)
		g.qgen = 1
	}
}

// Flood marks the squares the player on from reaches in pos without
// pushing and returns the smallest of them. Reached reports membership
// until the next flood.
func (g *Gen) Flood(pos *Pos, from uint16) uint16 {
	g.nextMark()
	g.mark[from] = g.mgen
	g.stack = append(g.stack[:0], from)
	least := from
	g.flooded = 1
	for len(g.stack) > 0 {
		q := g.stack[len(g.stack)-1]
		g.stack = g.stack[:len(g.stack)-1]
		for d := range 4 {
			n := g.nbr[int(q)*4+d]
			if pos.BoxAt[n] == -1 && g.mark[n] != g.mgen {
				g.mark[n] = g.mgen
				least = min(least, n)
				g.flooded++
				g.stack = append(g.stack, n)
			}
		}
	}
	return least
}

// Reached reports whether the last flood reached square s.
func (g *Gen) Reached(s uint16) bool { return g.mark[s] == g.mgen }

// Regions counts the connected regions of free squares in pos: the
// connectivity feature of FESS. It uses the flood marks.
func (g *Gen) Regions(pos *Pos) int {
	g.nextMark()
	regions := 0
	for s := range g.b.Squares {
		if pos.BoxAt[s] != -1 || g.mark[s] == g.mgen {
			continue
		}
		regions++
		g.mark[s] = g.mgen
		g.stack = append(g.stack[:0], uint16(s))
		for len(g.stack) > 0 {
			q := g.stack[len(g.stack)-1]
			g.stack = g.stack[:len(g.stack)-1]
			for d := range 4 {
				n := g.nbr[int(q)*4+d]
				if pos.BoxAt[n] == -1 && g.mark[n] != g.mgen {
					g.mark[n] = g.mgen
					g.stack = append(g.stack, n)
				}
			}
		}
	}
	return regions
}

// Generate returns every macro move of pos: for each box that is not on a
// locked square (locked may be nil), every square it can be pushed to and
// every player region it can end with there, except moves into dead
// squares or frozen deadlocks. The slice is reused by the next call.
func (g *Gen) Generate(pos *Pos, locked []bool) []Move {
	g.moves = g.moves[:0]
	base := BoxHash(g.b, pos.Boxes)
	// A box's first push needs the player behind it now: a box with no
	// such push, which in a crowded position is most boxes, is skipped
	// before the search of its moves (lift's walk over the board is most
	// of the cost of a box).
	g.label(pos)
	r := g.regions
	pl := r.label[pos.Player]
	for i := range pos.Boxes {
		s := pos.Boxes[i]
		if locked != nil && locked[s] {
			continue
		}
		pushable := false
		for d := range 4 {
			to, behind := g.nbr[int(s)*4+d], g.nbr[int(s)*4+d^2]
			pushable = pushable || pos.BoxAt[to] == -1 && !g.b.Dead[to] && pos.BoxAt[behind] == -1 && r.label[behind] == pl
		}
		if pushable {
			g.moves = g.liftedMoves(pos, i, base, g.moves)
		}
	}
	return g.moves
}

// GenerateBox appends the macro moves of box i to out.
func (g *Gen) GenerateBox(pos *Pos, i int, out []Move) []Move {
	g.label(pos)
	base := BoxHash(g.b, pos.Boxes)
	return g.liftedMoves(pos, i, base, out)
}

// pathTarget is what boxMoves looks for when rebuilding a solution: the box
// on square to with the player's region holding square norm.
type pathTarget struct {
	to, norm uint16
	found    uint32 // the state reached, when ok
	ok       bool
}

// boxMoves runs the breadth-first search of box i over (square, player
// region) states, appending a move per state reached. base is the hash of
// the boxes without a player. With tgt set it appends nothing and stops at
// the state tgt names instead; prev then links the path back.
func (g *Gen) boxMoves(pos *Pos, i int, base uint64, out []Move, tgt *pathTarget) []Move {
	b := g.b
	s := pos.Boxes[i]
	g.nextQueue()
	// The start state: the box where it is, the player's own region.
	g.Flood(pos, pos.Player)
	start := uint32(0xFFFFFFFF)
	for e := range 4 {
		if n := g.nbr[int(s)*4+e]; n != g.wall && g.Reached(n) {
			start = uint32(s)*4 + uint32(e)
			break
		}
	}
	if start == 0xFFFFFFFF {
		return out
	}
	pos.BoxAt[s] = -1
	hb := base ^ b.ZBox[s]
	g.queue = append(g.queue[:0], start)
	g.queued[start] = g.qgen
	g.prev[start] = start
	for head := 0; head < len(g.queue); head++ {
		st := g.queue[head]
		if g.done[st] == g.qgen {
			continue
		}
		q, e := uint16(st>>2), int(st&3)
		pos.BoxAt[q] = int16(i)
		if head > 0 && g.frozenDeadlock(pos, q) {
			pos.BoxAt[q] = -1
			g.done[st] = g.qgen
			continue
		}
		norm := g.Flood(pos, g.nbr[int(q)*4+e])
		for f := range 4 {
			if n := g.nbr[int(q)*4+f]; n != g.wall && g.Reached(n) {
				g.done[uint32(q)*4+uint32(f)] = g.qgen
			}
		}
		if tgt != nil {
			if head > 0 && q == tgt.to && g.Reached(tgt.norm) {
				tgt.found, tgt.ok = st, true
				pos.BoxAt[q] = -1
				break
			}
		} else if head > 0 {
			out = append(out, Move{Box: int16(i), Side: uint8(e), From: s, To: q, Norm: norm, Regions: -1, Hash: hb ^ b.ZBox[q] ^ b.ZPlayer[norm]})
		}
		for d := range 4 {
			if !g.Reached(g.nbr[int(q)*4+d^2]) {
				continue
			}
			t := g.nbr[int(q)*4+d]
			if pos.BoxAt[t] != -1 || b.Dead[t] {
				continue
			}
			nst := uint32(t)*4 + uint32(d^2)
			if g.queued[nst] == g.qgen {
				continue
			}
			g.queued[nst] = g.qgen
			g.prev[nst] = st
			g.queue = append(g.queue, nst)
		}
		pos.BoxAt[q] = -1
	}
	pos.BoxAt[s] = int16(i)
	return out
}

// liftedMoves appends the moves of box i, as boxMoves does, but without a
// flood per state: lift finds once which free squares hang together when
// the box stands on any one square, and each state looks its player region
// up there. boxMoves stays for rebuilding paths, and as the reference the
// tests hold this to.
func (g *Gen) liftedMoves(pos *Pos, i int, base uint64, out []Move) []Move {
	b := g.b
	s := pos.Boxes[i]
	// A box with no push open to it needs no search: most boxes of a
	// crowded position are stuck.
	movable := false
	for d := range 4 {
		to, behind := g.nbr[int(s)*4+d], g.nbr[int(s)*4+d^2]
		movable = movable || pos.BoxAt[to] == -1 && !b.Dead[to] && pos.BoxAt[behind] == -1
	}
	if !movable {
		return out
	}
	g.lift(pos, s)
	r := g.regions
	g.nextQueue()
	pp := r.piece(g, s, pos.Player)
	if pp == g.wall {
		return out
	}
	start := uint32(0xFFFFFFFF)
	for e := range 4 {
		if n := g.nbr[int(s)*4+e]; pos.BoxAt[n] == -1 && r.piece(g, s, n) == pp {
			start = uint32(s)*4 + uint32(e)
			break
		}
	}
	if start == 0xFFFFFFFF {
		return out
	}
	pos.BoxAt[s] = -1
	hb := base ^ b.ZBox[s]
	g.queue = append(g.queue[:0], start)
	g.queued[start] = g.qgen
	for head := 0; head < len(g.queue); head++ {
		st := g.queue[head]
		if g.done[st] == g.qgen {
			continue
		}
		q, e := uint16(st>>2), int(st&3)
		pos.BoxAt[q] = int16(i)
		if head > 0 && g.frozenDeadlock(pos, q) {
			pos.BoxAt[q] = -1
			g.done[st] = g.qgen
			continue
		}
		// The player's region: the piece of the lifted position that
		// holds the square beside the box, once the box stands on q.
		pc := r.piece(g, q, g.nbr[int(q)*4+e])
		var side [4]bool
		for f := range 4 {
			if n := g.nbr[int(q)*4+f]; pos.BoxAt[n] == -1 && r.piece(g, q, n) == pc {
				side[f] = true
				g.done[uint32(q)*4+uint32(f)] = g.qgen
			}
		}
		if head > 0 {
			norm := r.pieceMin(q, pc)
			out = append(out, Move{Box: int16(i), Side: uint8(e), From: s, To: q, Norm: norm,
				Regions: int32(r.count - 1 + int(r.nodes[q].pieces)), Hash: hb ^ b.ZBox[q] ^ b.ZPlayer[norm]})
		}
		for d := range 4 {
			if !side[d^2] {
				continue
			}
			t := g.nbr[int(q)*4+d]
			if pos.BoxAt[t] != -1 || b.Dead[t] {
				continue
			}
			nst := uint32(t)*4 + uint32(d^2)
			if g.queued[nst] == g.qgen {
				continue
			}
			g.queued[nst] = g.qgen
			g.queue = append(g.queue, nst)
		}
		pos.BoxAt[q] = -1
	}
	pos.BoxAt[s] = int16(i)
	return out
}

// frozenDeadlock reports whether the box on sq is frozen together with at
// least one box off a goal: on each axis it is blocked by a wall, a frozen
// box, or dead squares on both sides. Boxes being examined count as walls
// for the boxes they depend on; a failed hypothesis is rolled back.
func (g *Gen) frozenDeadlock(pos *Pos, sq uint16) bool {
	g.fgen++
	if g.fgen == 0 {
		clear(g.fmark)
		g.fgen = 1
	}
	g.fstack = g.fstack[:0]
	if !g.frozen(pos, sq) {
		return false
	}
	for _, x := range g.fstack {
		if g.b.GoalIndex[x] < 0 {
			return true
		}
	}
	return false
}

// FrozenDeadlock is frozenDeadlock for callers outside the generator.
func (g *Gen) FrozenDeadlock(pos *Pos, sq uint16) bool { return g.frozenDeadlock(pos, sq) }

func (g *Gen) frozen(pos *Pos, sq uint16) bool {
	mark := len(g.fstack)
	g.fmark[sq] = g.fgen
	g.fstack = append(g.fstack, sq)
	nb := g.nbr[int(sq)*4 : int(sq)*4+4]
	if g.blocked(pos, nb[0], nb[2]) && g.blocked(pos, nb[1], nb[3]) {
		return true
	}
	for _, x := range g.fstack[mark:] {
		g.fmark[x] = 0
	}
	g.fstack = g.fstack[:mark]
	return false
}

func (g *Gen) blocked(pos *Pos, a, c uint16) bool {
	if a == g.wall || c == g.wall || g.fmark[a] == g.fgen || g.fmark[c] == g.fgen {
		return true
	}
	if g.b.Dead[a] && g.b.Dead[c] {
		return true
	}
	if pos.BoxAt[a] >= 0 && g.frozen(pos, a) {
		return true
	}
	return pos.BoxAt[c] >= 0 && g.frozen(pos, c)
}

// Matchable reports whether every box of pos can be given its own goal it
// can reach by pushes on a board with no other boxes, where the boxes
// frozen on goals count as walls (see walled.go); false is a deadlock.
func (g *Gen) Matchable(pos *Pos) bool {
	if ok, decided := g.frozenGoalsMatch(pos); decided {
		return ok
	}
	return g.match.Perfect(pos.Boxes, pos.Player)
}

// Deadlocked applies every deadlock test of the package to pos, cheapest
// first: a box off a goal on a dead square, a box frozen with one off a
// goal, no matching of boxes to goals (Matchable), a dead corral or shut
// goal (CorralDeadlock). The generator applies the first two to the
// positions its moves lead to already; this is for a position from
// elsewhere. It uses the flood marks.
func (g *Gen) Deadlocked(pos *Pos) bool {
	for _, sq := range pos.Boxes {
		if g.b.Dead[sq] && g.b.GoalIndex[sq] < 0 {
			return true
		}
	}
	for _, sq := range pos.Boxes {
		if g.frozenDeadlock(pos, sq) {
			return true
		}
	}
	return !g.Matchable(pos) || g.CorralDeadlock(pos)
}
