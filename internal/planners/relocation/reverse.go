package relocation

import (
	"fmt"

	"github.com/sokod/sokod/board"
	"github.com/sokod/sokod/sdk/macro"
	"github.com/sokod/sokod/sokoban"
)

// reverser holds the reverse side of a plan: the positions reached by
// pulls from the solved position, in a store keyed like the forward one,
// and what RPR and the reverse relocation search need.
type reverser struct {
	b     *board.Board
	st    *static
	g     *macro.Gen
	pg    *pullGen
	fs    *freeSpace
	store *macro.Store
	pos   *macro.Pos
	// Per node: boxes off goals, and the regions of free squares (0 until
	// regionsOf counts them: most nodes never need them).
	off     []uint16
	regions []uint16
	// Scratch.
	states []int32
	match  *startMatcher
	// startSq marks the start boxes' squares; pmark and pstack are the
	// pull-freeze test's marks (stamped) and rollback stack.
	startSq []bool
	pmark   []uint32
	pgen    uint32
	pstack  []uint16
	// expired reports whether the plan must stop (its budget spent); the
	// pull-freeze test looks every so many calls, and once it has seen it
	// (stopped) answers at once.
	expired func() bool
	pwork   int
	stopped bool
}

func newReverser(b *board.Board, st *static, limit int) *reverser {
	g := macro.NewGen(b)
	pg := newPullGen(b, st, g)
	r := &reverser{b: b, st: st, g: g, pg: pg, fs: newFreeSpace(b, g, pg, st), store: macro.NewStore(len(b.StartBoxes), limit),
		pos: macro.NewPos(b), match: newStartMatcher(b, st), startSq: make([]bool, b.Squares+1), pmark: make([]uint32, b.Squares+1)}
	for _, x := range b.StartBoxes {
		r.startSq[x] = true
	}
	return r
}

// roots stores the solved position once per region of free squares the
// player may end in, and returns their nodes. A region the start cannot
// lead to (by the reverse restrictions) is left out.
func (r *reverser) roots() []int32 {
	b := r.b
	r.pos.Set(b.Goals, 0)
	var out []int32
	seen := make([]bool, b.Squares)
	for s := range b.Squares {
		if r.pos.BoxAt[s] != -1 || seen[s] {
			continue
		}
		norm := r.g.Flood(r.pos, uint16(s))
		for t := range b.Squares {
			if r.g.Reached(uint16(t)) {
				seen[t] = true
			}
		}
		r.pos.Player = norm
		if !r.feasible(r.pos) {
			continue
		}
		id := r.store.Add(-1, nil, macro.Hash(b, r.pos.Boxes, norm), r.pos.Boxes, norm)
		if id >= 0 {
			r.note(id, r.pos)
			out = append(out, id)
		}
	}
	return out
}

// note records node id's per-node data from pos, its position.
func (r *reverser) note(id int32, pos *macro.Pos) {
	for int(id) >= len(r.off) {
		r.off = append(r.off, 0)
		r.regions = append(r.regions, 0)
	}
	r.off[id] = uint16(len(pos.Boxes) - macro.OnGoals(r.b, pos.Boxes))
}

// regionsOf returns the regions of free squares of node id's position.
func (r *reverser) regionsOf(id int32) int {
	if r.regions[id] == 0 {
		r.store.Load(id, r.pos)
		r.regions[id] = uint16(r.g.Regions(r.pos))
	}
	return int(r.regions[id])
}

// feasible reports whether the start may lead to pos as far as the static
// knowledge tells: the reverse restrictions hold and every box can be
// given its own start box that reaches its state.
func (r *reverser) feasible(pos *macro.Pos) bool {
	r.states = r.st.boxStates(pos, r.states)
	if !r.st.rev.ok(r.states) {
		return false
	}
	for _, x := range pos.Boxes {
		if !r.startSq[x] && r.pullFrozen(pos, x) {
			return false
		}
	}
	return r.match.perfect(r.states)
}

// pullFrozen reports whether the box on sq of pos can never be pulled
// again: in every direction the square the player must stand on, or the
// one it must step back to, is a wall or holds a box that can never be
// pulled either (boxes under examination count as walls). Played forwards,
// such a box never moved since the start, so off a start square it is a
// deadlock of the reverse search, the mirror of a frozen box.
func (r *reverser) pullFrozen(pos *macro.Pos, sq uint16) bool {
	r.pgen++
	if r.pgen == 0 {
		clear(r.pmark)
		r.pgen = 1
	}
	r.pstack = r.pstack[:0]
	return r.pullFrozenRec(pos, sq)
}

func (r *reverser) pullFrozenRec(pos *macro.Pos, sq uint16) bool {
	// The test backtracks, and along rows of boxes its branches multiply
	// without end: it watches the plan's budget, and once that is spent
	// counts every box as pullable, which prunes nothing wrongly. The plan
	// ends then.
	if r.pwork++; r.pwork%1024 == 0 && r.expired != nil && r.expired() {
		r.stopped = true
	}
	if r.stopped {
		return false
	}
	b := r.b
	wall := uint16(b.Squares)
	base := len(r.pstack)
	r.pmark[sq] = r.pgen
	r.pstack = append(r.pstack, sq)
	blocked := func(x uint16) bool {
		return x == wall || r.pmark[x] == r.pgen || pos.BoxAt[x] >= 0 && r.pullFrozenRec(pos, x)
	}
	for d := range 4 {
		a := b.Nbr[int(sq)*4+d]
		if blocked(a) || blocked(b.Nbr[int(a)*4+d]) {
			continue
		}
		for _, x := range r.pstack[base:] {
			r.pmark[x] = 0
		}
		r.pstack = r.pstack[:base]
		return false
	}
	return true
}

// add stores the position m leads to from node parent (pos is already
// moved) and returns its node: a new one, or the one that holds the
// position already (fresh false; its boxes may be listed in another
// order than pos's); -1 when the store is full.
func (r *reverser) add(parent int32, m *macro.Move, pos *macro.Pos) (id int32, fresh bool) {
	if id := r.store.Find(m.Hash); id >= 0 {
		return id, false
	}
	id = r.store.Add(parent, m, m.Hash, pos.Boxes, m.Norm)
	if id >= 0 {
		r.note(id, pos)
	}
	return id, true
}

// path returns the pulls from the root of node id to id.
func (r *reverser) path(id int32) ([]Pull, error) {
	nodes := r.store.Path(id)
	pos := macro.NewPos(r.b)
	var out []Pull
	for k := 1; k < len(nodes); k++ {
		n := r.store.Nodes[nodes[k]]
		r.store.Load(nodes[k-1], pos)
		pl, ok := r.pg.pulls(pos, int(n.Box), n.To, r.store.Norm(nodes[k]))
		if !ok {
			return nil, fmt.Errorf("reverse move %d: box %d cannot be pulled from square %d to %d", k, n.Box, n.From, n.To)
		}
		out = append(out, pl...)
	}
	return out, nil
}

// finish returns the forward moves from reverse node id, the player on
// square player of its region, to the solved position.
func (r *reverser) finish(id int32, player uint16) (sokoban.Solution, error) {
	pulls, err := r.path(id)
	if err != nil {
		return nil, err
	}
	pos := macro.NewPos(r.b)
	r.store.Load(id, pos)
	sol, _, err := pushesFrom(r.b, pos, player, pulls)
	return sol, err
}

// startMatcher finds whether the boxes of a position can each be given a
// distinct start box that can reach the box's state, by Kuhn's augmenting
// paths.
type startMatcher struct {
	st      *static
	ns      int
	boxOf   []int16 // box matched to start box j, -1
	visited []uint32
	vgen    uint32
}

func newStartMatcher(b *board.Board, st *static) *startMatcher {
	return &startMatcher{st: st, ns: st.n * labels, boxOf: make([]int16, len(b.StartBoxes)), visited: make([]uint32, len(b.StartBoxes))}
}

// perfect reports whether every box (given by its state) gets its own
// start box.
func (m *startMatcher) perfect(states []int32) bool {
	for j := range m.boxOf {
		m.boxOf[j] = -1
	}
	for i := range states {
		m.vgen++
		if m.vgen == 0 {
			clear(m.visited)
			m.vgen = 1
		}
		if !m.augment(states, i) {
			return false
		}
	}
	return true
}

func (m *startMatcher) augment(states []int32, i int) bool {
	for j := range m.boxOf {
		if m.visited[j] == m.vgen || !m.st.startReach[j*m.ns+int(states[i])] {
			continue
		}
		m.visited[j] = m.vgen
		if m.boxOf[j] < 0 || m.augment(states, int(m.boxOf[j])) {
			m.boxOf[j] = int16(i)
			return true
		}
	}
	return false
}
