package relocation

import (
	"math/bits"
	"slices"

	"github.com/sokod/sokod/board"
	"github.com/sokod/sokod/sdk/macro"
)

// Static knowledge: the one-box maze.
//
// Holland computes everything static from "one-box mazes": the board with
// a single box on it. Where a lone box can go depends on which side of it
// the player stands, so the graph here is over states (square, label): the
// box on the square, the player in the region the engine's Board.Region
// labels around it. A push from a state leads to one state; the player's
// label around a box does not change while that box stays put, whatever
// else moves, because every other box only takes squares away from the
// one-box maze. So a box's state in a real position is (its square, the
// label of the player's square), and every state it can ever reach is
// reachable in this graph.
//
// From the graph come the reverse exclusion zone (states no start box can
// reach: the reverse search never pulls a box there), the goal traps and
// the digraph of push-reversible regions (its strongly connected
// components) with their box-count restrictions, and push distances
// between squares.

// labels is the number of player labels around a square (board.Regions).
const labels = board.Regions

// maxLimitStates bounds the states for which the region restrictions are
// computed: the component bitsets grow with the square of it.
const maxLimitStates = 4000

// maxLimits bounds the restrictions kept per kind (forward at most,
// forward at least, and the same two for the reverse search).
const maxLimits = 32

// limitSet is a set of states with a bound on the boxes whose states lie in
// it: at most bound (atMost) or at least bound.
type limitSet struct {
	atMost bool
	bound  int
}

// limits is a group of at most 64 restrictions, each a set of states,
// tested together: member[st] has bit k for the sets holding state st.
type limits struct {
	sets   []limitSet
	member []uint64
}

// ok reports whether every restriction holds for boxes with the given
// states.
func (l *limits) ok(states []int32) bool {
	if len(l.sets) == 0 {
		return true
	}
	var cnt [64]int16
	for _, st := range states {
		for m := l.member[st]; m != 0; m &= m - 1 {
			cnt[bits.TrailingZeros64(m)]++
		}
	}
	for k, s := range l.sets {
		if s.atMost && int(cnt[k]) > s.bound || !s.atMost && int(cnt[k]) < s.bound {
			return false
		}
	}
	return true
}

// static holds the one-box-maze knowledge of one level.
type static struct {
	b     *board.Board
	n     int
	wall  uint16
	valid []bool // state q*labels+l exists: some floor neighbour of q has label l
	// prz is the push-reachable zone over states: reachable from some
	// start box's state. Its complement is the reverse exclusion zone.
	prz []bool
	// startReach[i] marks the states start box i can reach (stride
	// nstates).
	startReach []bool
	// fwd are the restrictions every position of a solution obeys (goal
	// traps, sinks, sources); rev those a position must obey to be
	// reachable from the start (what the reverse search needs).
	fwd, rev limits
	// toTarget caches per target square the push distance of a lone box
	// from every square, the minimum over the player's sides.
	toTarget map[uint16][]uint16
	queue    []int32
}

// state returns the state of a box on q with the player on square p.
func (s *static) state(q, p uint16) int32 {
	return int32(q)*labels + int32(s.b.Region(q, p))
}

// push returns the state a push of the box in state st in direction d
// leads to, or -1 when the push is impossible in the one-box maze.
func (s *static) push(st int32, d int) int32 {
	b := s.b
	q, l := uint16(st/labels), uint8(st%labels)
	behind, to := b.Nbr[int(q)*4+d^2], b.Nbr[int(q)*4+d]
	if behind == s.wall || to == s.wall || b.Region(q, behind) != l {
		return -1
	}
	return int32(to)*labels + int32(b.Region(to, q))
}

// newStatic computes the one-box-maze knowledge of board b.
func newStatic(b *board.Board) *static {
	n := b.Squares
	s := &static{b: b, n: n, wall: uint16(n), toTarget: map[uint16][]uint16{}}
	ns := n * labels
	s.valid = make([]bool, ns)
	for q := range n {
		for d := range 4 {
			if nb := b.Nbr[q*4+d]; nb != s.wall {
				s.valid[q*labels+int(b.Region(uint16(q), nb))] = true
			}
		}
	}
	s.prz = make([]bool, ns)
	s.startReach = make([]bool, len(b.StartBoxes)*ns)
	for i, x := range b.StartBoxes {
		seen := s.startReach[i*ns : (i+1)*ns]
		s.reach(s.state(x, b.StartPlayer), seen)
		for st, ok := range seen {
			s.prz[st] = s.prz[st] || ok
		}
	}
	if ns <= maxLimitStates && len(b.Goals) == len(b.StartBoxes) {
		s.restrictions()
	}
	return s
}

// reach marks in seen every state reachable from st by pushes.
func (s *static) reach(st int32, seen []bool) {
	seen[st] = true
	s.queue = append(s.queue[:0], st)
	for h := 0; h < len(s.queue); h++ {
		for d := range 4 {
			if t := s.push(s.queue[h], d); t >= 0 && !seen[t] {
				seen[t] = true
				s.queue = append(s.queue, t)
			}
		}
	}
}

// restrictions finds the strongly connected components of the state graph
// (Holland's push-reversible regions) and turns the sets closed under
// pushes into box-count restrictions:
//
//   - D(X), the states reachable from component X: boxes in D stay in D,
//     so a solution never has more boxes in D than goals in D (a goal
//     trap when X holds a goal), and a position reachable from the start
//     never has fewer boxes in D than the start has.
//   - A(X), the states that can reach X: boxes outside never enter, so
//     a position never has fewer boxes in A than goals that can only be
//     filled from A, and a position reachable from the start never has
//     more boxes in A than the start has.
func (s *static) restrictions() {
	g := s.componentGraph()
	if g == nil {
		return
	}
	fwdC, revC := s.candidates(g)
	s.fwd = g.limits(fwdC)
	s.rev = g.limits(revC)
}

// compGraph is the graph of the state graph's strongly connected
// components, with each component's descendants as a bitset of
// components (desc, words uint64s per component, a component its own
// descendant).
type compGraph struct {
	comp  []int32 // component of each state, -1 for invalid ones
	nc    int     // number of components
	words int
	desc  []uint64
	ns    int // number of states
}

// componentGraph finds the components and their descendants, or nil when
// there is no valid state.
func (s *static) componentGraph() *compGraph {
	comp := s.components()
	nc := 0
	for _, c := range comp {
		nc = max(nc, int(c)+1)
	}
	if nc == 0 {
		return nil
	}
	g := &compGraph{comp: comp, nc: nc, words: (nc + 63) / 64, ns: s.n * labels}
	// Component edges, and descendants by a pass in reverse topological
	// order: Tarjan numbers components so that edges go from higher to
	// lower numbers.
	g.desc = make([]uint64, nc*g.words)
	for c := range nc {
		g.desc[c*g.words+c/64] |= 1 << (c % 64)
	}
	byComp := make([][]int32, nc)
	for st := range g.ns {
		if comp[st] >= 0 {
			byComp[comp[st]] = append(byComp[comp[st]], int32(st))
		}
	}
	for c := range nc {
		row := g.desc[c*g.words : (c+1)*g.words]
		for _, st := range byComp[c] {
			for d := range 4 {
				if t := s.push(st, d); t >= 0 && comp[t] != int32(c) {
					tc := int(comp[t])
					for w := range row {
						row[w] |= g.desc[tc*g.words+w]
					}
				}
			}
		}
	}
	return g
}

// in reports whether state st belongs to a component of set.
func (g *compGraph) in(set []uint64, st int) bool {
	c := g.comp[st]
	return c >= 0 && set[int(c)/64]&(1<<(c%64)) != 0
}

// candidate is a set of components closed under pushes (or under pulls)
// with the box-count limit it implies; the smaller rank the better.
type candidate struct {
	set  []uint64
	lim  limitSet
	rank int
}

// candidates returns the limits for the forward and the reverse search:
// for each component X, D(X) and A(X), each set once.
func (s *static) candidates(g *compGraph) (fwdC, revC []candidate) {
	b := s.b
	nGoals := len(b.Goals)
	startState := make([]int, len(b.StartBoxes))
	for i, x := range b.StartBoxes {
		startState[i] = int(s.state(x, b.StartPlayer))
	}
	seen := map[uint64]bool{}
	anc := make([]uint64, g.words)
	for x := range g.nc {
		d := g.desc[x*g.words : (x+1)*g.words]
		clear(anc)
		for y := range g.nc {
			if g.desc[y*g.words+x/64]&(1<<(x%64)) != 0 {
				anc[y/64] |= 1 << (y % 64)
			}
		}
		a := slices.Clone(anc)
		for k, set := range [][]uint64{d, a} {
			isD := k == 0
			h := setHash(set, isD)
			if seen[h] {
				continue
			}
			seen[h] = true
			size, goalsAny, goalsAll, start := s.count(g, set, startState)
			ns := g.ns
			if isD {
				if goalsAny < nGoals {
					fwdC = append(fwdC, candidate{set: slices.Clone(set), lim: limitSet{atMost: true, bound: goalsAny}, rank: goalsAny*ns - size})
				}
				if start > 0 {
					revC = append(revC, candidate{set: slices.Clone(set), lim: limitSet{atMost: false, bound: start}, rank: -start*ns + size})
				}
			} else {
				if goalsAll > 0 {
					fwdC = append(fwdC, candidate{set: a, lim: limitSet{atMost: false, bound: goalsAll}, rank: -goalsAll*ns + size})
				}
				if start < nGoals {
					revC = append(revC, candidate{set: a, lim: limitSet{atMost: true, bound: start}, rank: start*ns - size})
				}
			}
		}
	}
	return fwdC, revC
}

// setHash names a set of components, D sets and A sets apart (FNV-1a).
func setHash(set []uint64, isD bool) uint64 {
	h := uint64(14695981039346656037)
	for _, w := range set {
		h = (h ^ w) * 1099511628211
	}
	if isD {
		h = ^h
	}
	return h
}

// count returns the states of set, the goals with a state in set
// (goalsAny) and with all their states in set (goalsAll), and the start's
// boxes in set.
func (s *static) count(g *compGraph, set []uint64, startState []int) (size, goalsAny, goalsAll, start int) {
	for _, goal := range s.b.Goals {
		anyIn, allIn := false, true
		for l := range labels {
			st := int(goal)*labels + l
			if !s.valid[st] {
				continue
			}
			if g.in(set, st) {
				anyIn = true
			} else {
				allIn = false
			}
		}
		if anyIn {
			goalsAny++
		}
		if anyIn && allIn {
			goalsAll++
		}
	}
	for st := range g.ns {
		if g.in(set, st) {
			size++
		}
	}
	for _, st := range startState {
		if g.in(set, st) {
			start++
		}
	}
	return size, goalsAny, goalsAll, start
}

// limits keeps the best 2*maxLimits candidates as limits, with each
// state's membership as a bitset.
func (g *compGraph) limits(cs []candidate) limits {
	slices.SortStableFunc(cs, func(p, q candidate) int { return p.rank - q.rank })
	cs = cs[:min(len(cs), 2*maxLimits)]
	out := limits{member: make([]uint64, g.ns)}
	for k, c := range cs {
		out.sets = append(out.sets, c.lim)
		for st := range g.ns {
			if g.in(c.set, st) {
				out.member[st] |= 1 << k
			}
		}
	}
	return out
}

// components labels each valid state with its strongly connected
// component (Tarjan, iterative), -1 for invalid states. Components are
// numbered in the order Tarjan completes them: every edge between two
// components goes from a higher number to a lower one.
func (s *static) components() []int32 {
	ns := s.n * labels
	comp := make([]int32, ns)
	index := make([]int32, ns)
	low := make([]int32, ns)
	onStack := make([]bool, ns)
	for i := range comp {
		comp[i], index[i] = -1, -1
	}
	var stack []int32
	type frame struct {
		st int32
		d  int8
	}
	var call []frame
	next, nc := int32(0), int32(0)
	for root := range ns {
		if !s.valid[root] || index[root] >= 0 {
			continue
		}
		call = append(call[:0], frame{st: int32(root)})
		index[root], low[root] = next, next
		next++
		stack = append(stack, int32(root))
		onStack[root] = true
		for len(call) > 0 {
			f := &call[len(call)-1]
			if f.d < 4 {
				t := s.push(f.st, int(f.d))
				f.d++
				if t < 0 {
					continue
				}
				if index[t] < 0 {
					index[t], low[t] = next, next
					next++
					stack = append(stack, t)
					onStack[t] = true
					call = append(call, frame{st: t})
				} else if onStack[t] {
					low[f.st] = min(low[f.st], index[t])
				}
				continue
			}
			v := f.st
			call = call[:len(call)-1]
			if len(call) > 0 {
				p := call[len(call)-1].st
				low[p] = min(low[p], low[v])
			}
			if low[v] == index[v] {
				for {
					w := stack[len(stack)-1]
					stack = stack[:len(stack)-1]
					onStack[w] = false
					comp[w] = nc
					if w == v {
						break
					}
				}
				nc++
			}
		}
	}
	return comp
}

// boxStates fills out with the state of each box of pos.
func (s *static) boxStates(pos *macro.Pos, out []int32) []int32 {
	out = out[:0]
	for _, x := range pos.Boxes {
		out = append(out, s.state(x, pos.Player))
	}
	return out
}

// distTo returns the push distance of a lone box from every square to
// square t (the minimum over the player's sides), board.Inf where it
// cannot get there. Computed once per target by pulls from t.
func (s *static) distTo(t uint16) []uint16 {
	if d, ok := s.toTarget[t]; ok {
		return d
	}
	b := s.b
	ns := s.n * labels
	sd := make([]uint16, ns)
	for i := range sd {
		sd[i] = board.Inf
	}
	s.queue = s.queue[:0]
	for l := range labels {
		st := int32(t)*labels + int32(l)
		if s.valid[st] {
			sd[st] = 0
			s.queue = append(s.queue, st)
		}
	}
	for h := 0; h < len(s.queue); h++ {
		st := s.queue[h]
		y, ly := uint16(st/labels), uint8(st%labels)
		// Predecessors: the box came from x = y-d, the player ending on x.
		for d := range 4 {
			x := b.Nbr[int(y)*4+d^2]
			if x == s.wall || b.Region(y, x) != ly {
				continue
			}
			behind := b.Nbr[int(x)*4+d^2]
			if behind == s.wall {
				continue
			}
			p := int32(x)*labels + int32(b.Region(x, behind))
			if sd[p] == board.Inf {
				sd[p] = sd[st] + 1
				s.queue = append(s.queue, p)
			}
		}
	}
	out := s.perSquare(sd)
	s.toTarget[t] = out
	return out
}
