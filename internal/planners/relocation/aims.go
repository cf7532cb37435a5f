package relocation

import (
	"slices"

	"github.com/sokod/sokod/board"
	"github.com/sokod/sokod/sdk/macro"
)

// The reverse relocation search: box aims.
//
// Holland matches a forward and a reverse position by adding "box aims",
// the boxes of the other side's position, to the free space, and scoring
// positions by how near they come to them. Here the reverse side does the
// moving: a best-first search over pull routes from every reverse
// position stored so far (the solved positions and the RPR variations),
// ordered by the estimated pushes from a forward position's boxes to the
// reverse position's boxes (aim.estimate). Every position it stores is
// still one pulls lead from the solved position, so a reverse position
// the forward side holds is a solution, and one close to the aim is a
// small gap for the host's sub-search. The aim is a forward position with
// one region of free squares when the opening found one, else the start.

// aim is a forward position the reverse search moves towards: per box of
// the aim, the push distance from its state to every square, and the
// matching of a reverse position's boxes to the aim's (assign.go).
type aim struct {
	fid    int32
	player uint16
	from   [][]uint16
	as     *macro.Assigner
}

// playerMiss is what the estimate adds when the player's region does not
// hold the aim's player: some push must still take it across.
const playerMiss = 2

// newAim computes the distances from the boxes of forward position pos,
// for the reverse search.
func newAim(st *static, fid int32, pos *macro.Pos) *aim {
	a := &aim{fid: fid, player: pos.Player, as: macro.NewAssigner(len(pos.Boxes))}
	for _, x := range pos.Boxes {
		a.from = append(a.from, st.distFrom(st.state(x, pos.Player)))
	}
	return a
}

// newAimAt computes the distances to the boxes of reverse position pos,
// for the forward search: from[j][sq] is then the pushes from sq to the
// reverse position's box j.
func newAimAt(st *static, rid int32, pos *macro.Pos) *aim {
	a := &aim{fid: rid, player: pos.Player, as: macro.NewAssigner(len(pos.Boxes))}
	for _, x := range pos.Boxes {
		a.from = append(a.from, st.distTo(x))
	}
	return a
}

// estimate returns the pushes that take the aim's boxes to the squares of
// boxes at least, by the cheapest matching of lone-box push distances, or
// -1 when no matching exists. It leaves the solution in the assigner, for
// child.
func (a *aim) estimate(boxes []uint16) int {
	for i, y := range boxes {
		setRow(a.as, i, y, a.from)
	}
	t := a.as.Solve()
	a.as.Save()
	return bound(t)
}

// child returns the estimate for the position estimate last saw with box
// i moved from square from to square to, incrementally; the assigner is
// back to the parent's solution afterwards.
func (a *aim) child(i int, from, to uint16) int {
	setRow(a.as, i, to, a.from)
	t := a.as.ReplaceRow(i)
	setRow(a.as, i, from, a.from)
	a.as.Restore()
	return bound(t)
}

// bound turns a matching's cost into an estimate: -1 when some box has
// no square it can reach.
func bound(t int) int {
	if t >= macro.Unmatchable {
		return -1
	}
	return t
}

// aimSearch is the reverse best-first search towards an aim.
type aimSearch struct {
	r     *reverser
	a     *aim
	heap  macro.Heap
	seq   uint32
	est   []int32 // per reverse node, -2 not computed
	depth []uint16
	pos   *macro.Pos
	// gapq and macq hold the reverse nodes by estimate, for the gaps to
	// try: by the host's sub-search and by the macro gap search.
	gapq, macq macro.Heap
	// best is the least estimate seen.
	best int
	// gpos is scratch space for the gap queues' tests.
	gpos *macro.Pos
}

// aimWeight weighs the estimate against the depth in pull routes.
const aimWeight = 3

func newAimSearch(r *reverser, a *aim) *aimSearch {
	return &aimSearch{r: r, a: a, pos: macro.NewPos(r.b), best: -1}
}

// seed queues every reverse node stored so far, until expired says the
// plan's time is up.
func (s *aimSearch) seed(expired func() bool) {
	s.r.pg.mark = s.a.player
	for id, est := range s.a.estimates(s.r.store, s.pos, expired) {
		if id%64 == 63 && expired() {
			return
		}
		if est == -2 {
			continue
		}
		s.r.store.Load(int32(id), s.pos)
		if s.r.g.Flood(s.pos, s.pos.Player); est >= 0 && !s.r.g.Reached(s.a.player) {
			est += playerMiss
		}
		s.queue(int32(id), int(est), 0)
	}
}

// queue records node id's estimate and depth and queues it, unless its
// estimate says no aim box can match it.
func (s *aimSearch) queue(id int32, est, depth int) {
	for int(id) >= len(s.est) {
		s.est = append(s.est, -2)
		s.depth = append(s.depth, 0)
	}
	s.est[id] = int32(est)
	s.depth[id] = uint16(min(depth, 0xFFFF))
	if est < 0 {
		return
	}
	if s.best < 0 || est < s.best {
		s.best = est
	}
	s.seq++
	s.heap.Push(macro.Item{Pri: uint64(min(aimWeight*est+depth, 0xFFFFFF))<<32 | uint64(^s.seq), ID: id})
	s.gapq.Push(macro.Item{Pri: uint64(min(est, 0xFFFFFF))<<32 | uint64(^s.seq), ID: id})
	s.macq.Push(macro.Item{Pri: uint64(min(est, 0xFFFFFF))<<32 | uint64(^s.seq), ID: id})
}

// expand expands the best queued reverse node. It returns a reverse node
// whose position the forward store holds (a meeting) and the forward
// node, and whether the search has nothing left to expand.
func (s *aimSearch) expand(run *macro.Run, fwd *macro.Store) (rid, fid int32, spent bool) {
	r := s.r
	if s.heap.Len() == 0 {
		return -1, -1, true
	}
	id := s.heap.Pop().ID
	r.store.Load(id, s.pos)
	pos := s.pos
	player := pos.Player
	s.a.estimate(pos.Boxes)
	moves := r.pg.Generate(pos)
	for i := range moves {
		if i%256 == 255 && run.Expired() {
			break
		}
		m := &moves[i]
		if r.store.Find(m.Hash) >= 0 {
			continue
		}
		pos.Apply(m)
		if !r.feasible(pos) {
			pos.Undo(m, player)
			continue
		}
		est := s.a.child(int(m.Box), m.From, m.To)
		if est >= 0 && m.Regions == 0 {
			est += playerMiss
		}
		child, _ := r.add(id, m, pos)
		pos.Undo(m, player)
		if child < 0 {
			return -1, -1, true // store full
		}
		if f := fwd.Find(m.Hash); f >= 0 {
			return child, f, false
		}
		s.queue(child, est, int(s.depth[id])+1)
	}
	return -1, -1, false
}

// nextGap returns the queued reverse node closest to the aim that the
// caller has not taken yet and that has one region of free squares, or -1.
// The sub-search that closes a gap aims at box squares only; with one
// region the player is then where the reverse position needs it, which
// is Holland's condition for relocation too (no external corrals).
func (s *aimSearch) nextGap() int32 {
	for s.gapq.Len() > 0 {
		if id := s.gapq.Pop().ID; s.r.regionsOf(id) == 1 && !s.stranded(id) {
			return id
		}
	}
	return -1
}

// nextMacro returns the queued reverse node closest to the aim that the
// macro gap search has not taken yet, or -1.
func (s *aimSearch) nextMacro() int32 {
	for s.macq.Len() > 0 {
		if id := s.macq.Pop().ID; !s.stranded(id) {
			return id
		}
	}
	return -1
}

// stranded reports whether reverse node id allows no pull at all. Such a
// position is no forward position but the start: the last push of any
// forward path to it could be undone by a pull. The aim's estimate does
// not see the player, so these nodes (the player shut in a pocket by the
// boxes it pulled) are often the closest ones, and a gap to them is time
// lost.
func (s *aimSearch) stranded(id int32) bool {
	if s.gpos == nil {
		s.gpos = macro.NewPos(s.r.b)
	}
	s.r.store.Load(id, s.gpos)
	return len(s.r.pg.Generate(s.gpos)) == 0
}

// distFrom returns the push distance of a lone box in state from to every
// square, board.Inf where it cannot get. It allocates the result.
func (s *static) distFrom(from int32) []uint16 {
	ns := s.n * labels
	sd := make([]uint16, ns)
	for i := range sd {
		sd[i] = board.Inf
	}
	sd[from] = 0
	s.queue = append(s.queue[:0], from)
	for h := 0; h < len(s.queue); h++ {
		st := s.queue[h]
		for d := range 4 {
			if t := s.push(st, d); t >= 0 && sd[t] == board.Inf {
				sd[t] = sd[st] + 1
				s.queue = append(s.queue, t)
			}
		}
	}
	return s.perSquare(sd)
}

// perSquare folds distances per (square, player label) state into one
// per square, the least over its labels, with Inf for the wall square.
func (s *static) perSquare(sd []uint16) []uint16 {
	out := make([]uint16, s.n+1)
	for q := range s.n {
		m := uint16(board.Inf)
		for l := range labels {
			m = min(m, sd[q*labels+l])
		}
		out[q] = m
	}
	out[s.n] = board.Inf
	return out
}

// estimates returns estimate's value for every node of store, -2 for the
// nodes not reached before expired said stop. It walks the store's trees
// depth first, so that a node costs one row change of its parent's
// matching, as child does, instead of a matching from scratch: on a large
// forward store, a matching per node would take most of a plan's time.
// pos is scratch space.
func (a *aim) estimates(store *macro.Store, pos *macro.Pos, expired func() bool) []int32 {
	n := store.Len()
	est := make([]int32, n)
	for i := range est {
		est[i] = -2
	}
	// The children of each node, by a counting sort on the parents:
	// kids[first[id]:first[id+1]].
	first := make([]int32, n+1)
	for id := range n {
		if p := store.Nodes[id].Parent; p >= 0 {
			first[p+1]++
		}
	}
	for id := range n {
		first[id+1] += first[id]
	}
	kids := make([]int32, first[n])
	fill := slices.Clone(first[:n])
	for id := range n {
		if p := store.Nodes[id].Parent; p >= 0 {
			kids[fill[p]] = int32(id)
			fill[p]++
		}
	}
	as := a.as
	var saved []int32 // the solutions of the nodes on the stack
	type frame struct{ id, next int32 }
	var stack []frame
	visited := 0
	for root := range n {
		if store.Nodes[root].Parent >= 0 {
			continue
		}
		store.Load(int32(root), pos)
		est[root] = int32(a.estimate(pos.Boxes))
		stack = append(stack[:0], frame{int32(root), first[root]})
		saved = saved[:0]
		for len(stack) > 0 {
			top := &stack[len(stack)-1]
			if top.next == first[top.id+1] {
				// Back to the parent: its row and its solution.
				stack = stack[:len(stack)-1]
				if len(stack) > 0 {
					nd := store.Nodes[top.id]
					setRow(as, int(nd.Box), nd.From, a.from)
					saved = as.PopState(saved)
				}
				continue
			}
			c := kids[top.next]
			top.next++
			if visited++; visited%64 == 0 && expired() {
				return est
			}
			saved = as.PushState(saved)
			nd := store.Nodes[c]
			setRow(as, int(nd.Box), nd.To, a.from)
			est[c] = int32(bound(as.ReplaceRow(int(nd.Box))))
			stack = append(stack, frame{c, first[c]})
		}
	}
	return est
}
