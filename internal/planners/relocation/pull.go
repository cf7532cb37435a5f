package relocation

import (
	"fmt"
	"slices"

	"github.com/sokod/sokod/board"
	"github.com/sokod/sokod/sdk/macro"
	"github.com/sokod/sokod/sokoban"
)

// Reverse moves: pulls.
//
// In reverse mode the player pulls: standing on the square next to a box
// in direction d, with the square beyond free, it steps on and the box
// follows. A reverse macro move takes one box any distance by pulls, the
// other boxes standing still, as macro.Gen does for pushes; played
// backwards it is a run of pushes. A reverse position is a macro.Pos whose
// Player is the smallest square of the player's region, hashed like a
// forward one, so a reverse and a forward position match when their hashes
// do.

// Pull is one pull: the box on From moves one square in direction Dir and
// the player, who stood there, steps one square further.
type Pull struct {
	From uint16
	Dir  sokoban.Direction
}

// pullGen generates reverse macro moves. Its scratch space is allocated
// once; one pullGen serves one goroutine.
type pullGen struct {
	b    *board.Board
	st   *static
	g    *macro.Gen // floods
	nbr  []uint16
	wall uint16

	queued, done []uint32
	qgen         uint32
	queue        []uint32
	prev         []uint32
	moves        []macro.Move
	// mark is a square the moves report on: a move's Regions field,
	// unused by reverse moves otherwise, is 1 when the player's region at
	// the end of the move holds mark, else 0. The wall sentinel means
	// no mark.
	mark uint16
}

func newPullGen(b *board.Board, st *static, g *macro.Gen) *pullGen {
	n := b.Squares + 1
	return &pullGen{b: b, st: st, g: g, nbr: b.Nbr, wall: uint16(b.Squares),
		queued: make([]uint32, n*4), done: make([]uint32, n*4), queue: make([]uint32, 0, n*4), prev: make([]uint32, n*4),
		moves: make([]macro.Move, 0, 256), mark: uint16(b.Squares)}
}

func (p *pullGen) nextQueue() {
	p.qgen++
	if p.qgen == 0 {
		clear(p.queued)
		clear(p.done)
		p.qgen = 1
	}
}

// pullTarget is what boxPulls looks for when rebuilding a path: the box on
// square to with the player's region holding square norm.
type pullTarget struct {
	to, norm uint16
	found    uint32
	ok       bool
}

// Generate returns every reverse macro move of pos: for each box, every
// square it can be pulled to with every player region it can end in,
// except states no start box can reach (the reverse exclusion zone). The
// slice is reused by the next call.
func (p *pullGen) Generate(pos *macro.Pos) []macro.Move {
	p.moves = p.moves[:0]
	base := macro.BoxHash(p.b, pos.Boxes)
	for i := range pos.Boxes {
		p.moves = p.boxPulls(pos, i, base, p.moves, nil)
	}
	return p.moves
}

// GenerateBox returns the reverse macro moves of box i of pos, in
// breadth-first order (fewest pulls first). The slice is reused.
func (p *pullGen) GenerateBox(pos *macro.Pos, i int) []macro.Move {
	p.moves = p.boxPulls(pos, i, macro.BoxHash(p.b, pos.Boxes), p.moves[:0], nil)
	return p.moves
}

// pullable reports whether box i of pos can be pulled at all.
func (p *pullGen) pullable(pos *macro.Pos, i int) bool {
	s := pos.Boxes[i]
	p.g.Flood(pos, pos.Player)
	for d := range 4 {
		a := p.nbr[int(s)*4+d]
		if a != p.wall && p.g.Reached(a) && pos.BoxAt[p.nbr[int(a)*4+d]] == -1 {
			return true
		}
	}
	return false
}

// boxPulls runs the breadth-first search of box i over (square, player
// side) states, appending a move per new (square, player region). base is
// the hash of the boxes without a player. With tgt set it appends nothing
// and stops at the state tgt names; prev then links the path back.
func (p *pullGen) boxPulls(pos *macro.Pos, i int, base uint64, out []macro.Move, tgt *pullTarget) []macro.Move {
	b, g, st := p.b, p.g, p.st
	s := pos.Boxes[i]
	p.nextQueue()
	g.Flood(pos, pos.Player)
	start := uint32(0xFFFFFFFF)
	for e := range 4 {
		if n := p.nbr[int(s)*4+e]; n != p.wall && g.Reached(n) {
			start = uint32(s)*4 + uint32(e)
			break
		}
	}
	if start == 0xFFFFFFFF {
		return out
	}
	pos.BoxAt[s] = -1
	hb := base ^ b.ZBox[s]
	p.queue = append(p.queue[:0], start)
	p.queued[start] = p.qgen
	p.prev[start] = start
	for head := 0; head < len(p.queue); head++ {
		cur := p.queue[head]
		if p.done[cur] == p.qgen {
			continue
		}
		q, e := uint16(cur>>2), int(cur&3)
		side := p.nbr[int(q)*4+e]
		if head > 0 && !st.prz[st.state(q, side)] {
			// No start box reaches this state, nor any state pulls lead
			// to from here.
			p.done[cur] = p.qgen
			continue
		}
		pos.BoxAt[q] = int16(i)
		norm := g.Flood(pos, side)
		for f := range 4 {
			if n := p.nbr[int(q)*4+f]; n != p.wall && g.Reached(n) {
				p.done[uint32(q)*4+uint32(f)] = p.qgen
			}
		}
		if tgt != nil {
			if head > 0 && q == tgt.to && g.Reached(tgt.norm) {
				tgt.found, tgt.ok = cur, true
				pos.BoxAt[q] = -1
				break
			}
		} else if head > 0 {
			marked := int32(0)
			if g.Reached(p.mark) {
				marked = 1
			}
			out = append(out, macro.Move{Box: int16(i), Side: uint8(e), From: s, To: q, Norm: norm, Regions: marked,
				Hash: hb ^ b.ZBox[q] ^ b.ZPlayer[norm]})
		}
		for d := range 4 {
			a := p.nbr[int(q)*4+d]
			if a == p.wall || !g.Reached(a) {
				continue
			}
			c := p.nbr[int(a)*4+d]
			if pos.BoxAt[c] != -1 {
				continue
			}
			nst := uint32(a)*4 + uint32(d)
			if p.queued[nst] == p.qgen {
				continue
			}
			p.queued[nst] = p.qgen
			p.prev[nst] = cur
			p.queue = append(p.queue, nst)
		}
		pos.BoxAt[q] = -1
	}
	pos.BoxAt[s] = int16(i)
	return out
}

// pulls returns the pulls that take box i of pos (player anywhere in its
// region) to square to with the player's region holding norm, fewest
// first; ok is false when there is no such path. It allocates: it runs
// when a solution is rebuilt, and in the shuffles of RSB.
func (p *pullGen) pulls(pos *macro.Pos, i int, to, norm uint16) ([]Pull, bool) {
	tgt := pullTarget{to: to, norm: norm}
	p.boxPulls(pos, i, 0, nil, &tgt)
	if !tgt.ok {
		return nil, false
	}
	var states []uint32
	for s := tgt.found; ; s = p.prev[s] {
		states = append(states, s)
		if p.prev[s] == s {
			break
		}
	}
	slices.Reverse(states)
	out := make([]Pull, 0, len(states)-1)
	for k := 1; k < len(states); k++ {
		from := uint16(states[k-1] >> 2)
		// The state (a, d): the box arrived on a from a's neighbour
		// opposite d, pulled in direction d.
		d := sokoban.Direction(states[k] & 3)
		out = append(out, Pull{From: from, Dir: d})
	}
	return out, true
}

// pushesFrom turns a reverse path into forward moves: the position pos
// (which it changes) is where the reverse path ended, with the player on
// square player; pulls are in the order the reverse search made them.
// Played backwards, each pull is a push from the square the player
// stepped to, after the player's shortest walk there. It returns the
// steps and the player's final square.
func pushesFrom(b *board.Board, pos *macro.Pos, player uint16, pulls []Pull) (sokoban.Solution, uint16, error) {
	var sol sokoban.Solution
	wall := uint16(b.Squares)
	for k := len(pulls) - 1; k >= 0; k-- {
		pl := pulls[k]
		a := b.Nbr[int(pl.From)*4+int(pl.Dir)]
		c := b.Nbr[int(a)*4+int(pl.Dir)]
		if a == wall || c == wall || pos.BoxAt[a] < 0 || pos.BoxAt[pl.From] != -1 {
			return nil, 0, fmt.Errorf("pull %d from square %d does not undo", k, pl.From)
		}
		walk, err := macro.Walk(b, pos, player, c)
		if err != nil {
			return nil, 0, fmt.Errorf("pull %d: %w", k, err)
		}
		sol = append(sol, walk...)
		sol = append(sol, sokoban.Step{Dir: pl.Dir.Reverse(), Push: true})
		i := pos.BoxAt[a]
		pos.BoxAt[a] = -1
		pos.BoxAt[pl.From] = i
		pos.Boxes[i] = pl.From
		player = a
	}
	return sol, player, nil
}

// replay plays steps on pos from the player's square player, checking each
// step, and returns the player's final square.
func replay(b *board.Board, pos *macro.Pos, player uint16, steps sokoban.Solution) (uint16, error) {
	wall := uint16(b.Squares)
	for k, st := range steps {
		n := b.Nbr[int(player)*4+int(st.Dir)]
		if n == wall {
			return 0, fmt.Errorf("step %d walks into a wall", k)
		}
		if i := pos.BoxAt[n]; i >= 0 {
			if !st.Push {
				return 0, fmt.Errorf("step %d walks into a box", k)
			}
			t := b.Nbr[int(n)*4+int(st.Dir)]
			if t == wall || pos.BoxAt[t] != -1 {
				return 0, fmt.Errorf("step %d pushes a box into an obstacle", k)
			}
			pos.BoxAt[n] = -1
			pos.BoxAt[t] = i
			pos.Boxes[i] = t
		} else if st.Push {
			return 0, fmt.Errorf("step %d pushes nothing", k)
		}
		player = n
	}
	return player, nil
}
