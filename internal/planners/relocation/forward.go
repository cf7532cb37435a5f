package relocation

import (
	"github.com/sokod/sokod/board"
	"github.com/sokod/sokod/sdk/macro"
)

// forwarder holds the forward side of a plan: positions reached by macro
// pushes from the start, in a store whose root is the start.
type forwarder struct {
	b     *board.Board
	st    *static
	g     *macro.Gen
	store *macro.Store
	pos   *macro.Pos
	// Per node: regions of free squares, depth in macro moves.
	regions []uint16
	depth   []uint16
	heap    macro.Heap
	seq     uint32
	states  []int32
	// open are the nodes found with one region, in the order found.
	open []int32
	root int32
}

func newForwarder(b *board.Board, st *static, limit int) *forwarder {
	f := &forwarder{b: b, st: st, g: macro.NewGen(b), store: macro.NewStore(len(b.StartBoxes), limit), pos: macro.NewPos(b)}
	f.pos.Set(b.StartBoxes, b.StartPlayer)
	norm := f.g.Flood(f.pos, b.StartPlayer)
	f.pos.Player = norm
	f.root = f.store.Add(-1, nil, macro.Hash(b, f.pos.Boxes, norm), f.pos.Boxes, norm)
	reg := f.g.Regions(f.pos)
	f.regions = append(f.regions, uint16(reg))
	f.depth = append(f.depth, 0)
	f.heap.Push(macro.Item{Pri: f.priority(reg, 0), ID: f.root})
	if reg == 1 {
		f.open = append(f.open, f.root)
	}
	return f
}

// openWeight is what one region of free squares beyond the first costs
// against a macro move, in the opening search.
const openWeight = 4

// priority orders the opening search: fewest regions, then fewest moves,
// then newest.
func (f *forwarder) priority(regions, depth int) uint64 {
	f.seq++
	return uint64(min(openWeight*(regions-1)+depth, 0xFFFFFF))<<32 | uint64(^f.seq)
}

// deadlocked applies the forward deadlock tests to pos: the bipartite
// matching, corrals, and the restrictions of goal traps and reversible
// regions.
func (f *forwarder) deadlocked(pos *macro.Pos) bool {
	if !f.g.Matchable(pos) {
		return true
	}
	f.states = f.st.boxStates(pos, f.states)
	if !f.st.fwd.ok(f.states) {
		return true
	}
	return f.g.CorralDeadlock(pos)
}

// expand takes the best open position of the opening search and stores
// its children. It returns a forward node whose position the reverse store
// holds too (a meeting), the reverse node, and whether the search space
// is spent.
func (f *forwarder) expand(run *macro.Run, rev *macro.Store) (fid, rid int32, spent bool) {
	for f.heap.Len() > 0 {
		id := f.heap.Pop().ID
		f.store.Load(id, f.pos)
		if id != f.root && f.deadlocked(f.pos) {
			continue
		}
		player := f.pos.Player
		moves := f.g.Generate(f.pos, nil)
		for i := range moves {
			if i%256 == 255 && run.Expired() {
				break
			}
			m := &moves[i]
			if f.store.Find(m.Hash) >= 0 {
				continue
			}
			f.pos.Apply(m)
			child := f.store.Add(id, m, m.Hash, f.pos.Boxes, m.Norm)
			f.pos.Undo(m, player)
			if child < 0 {
				return -1, -1, true
			}
			reg := int(m.Regions)
			f.regions = append(f.regions, uint16(reg))
			f.depth = append(f.depth, f.depth[id]+1)
			if r := rev.Find(m.Hash); r >= 0 {
				return child, r, false
			}
			if reg == 1 {
				f.open = append(f.open, child)
			}
			f.heap.Push(macro.Item{Pri: f.priority(reg, int(f.depth[child])), ID: child})
		}
		return -1, -1, false
	}
	return -1, -1, true
}

// fwdAim is the forward side of the relocation: a best-first search over
// macro pushes from every forward position stored so far towards the boxes
// of a reverse position (the most spread one RPR found), ordered like the
// reverse search by the cheapest matching of lone-box push distances. Its
// positions join the forward store, so the reverse search can meet them,
// and those closest to the aim become gaps for the host's sub-search.
type fwdAim struct {
	f    *forwarder
	a    *aim
	heap macro.Heap
	gapq macro.Heap
	seq  uint32
	est  []int32 // per forward node, -2 not computed
	pos  *macro.Pos
	// best is the least estimate seen.
	best int
}

func newFwdAim(f *forwarder, a *aim) *fwdAim {
	return &fwdAim{f: f, a: a, pos: macro.NewPos(f.b), best: -1}
}

// seed queues every forward node stored so far, until expired says the
// plan's time is up: the store may hold hundreds of thousands of nodes.
func (s *fwdAim) seed(expired func() bool) {
	for id, est := range s.a.estimates(s.f.store, s.pos, expired) {
		if est != -2 {
			s.queue(int32(id), int(est))
		}
	}
}

func (s *fwdAim) queue(id int32, est int) {
	for int(id) >= len(s.est) {
		s.est = append(s.est, -2)
	}
	s.est[id] = int32(est)
	if est < 0 {
		return
	}
	if s.best < 0 || est < s.best {
		s.best = est
	}
	s.seq++
	depth := int(s.f.depth[id])
	s.heap.Push(macro.Item{Pri: uint64(min(aimWeight*est+depth, 0xFFFFFF))<<32 | uint64(^s.seq), ID: id})
	s.gapq.Push(macro.Item{Pri: uint64(min(est, 0xFFFFFF))<<32 | uint64(^s.seq), ID: id})
}

// expand expands the best queued forward node. It returns a forward node
// whose position the reverse store holds (a meeting) and the reverse
// node, and whether the search has nothing left to expand.
func (s *fwdAim) expand(run *macro.Run, rev *macro.Store) (fid, rid int32, spent bool) {
	f := s.f
	for s.heap.Len() > 0 {
		id := s.heap.Pop().ID
		f.store.Load(id, s.pos)
		pos := s.pos
		if id != f.root && f.deadlocked(pos) {
			continue
		}
		run.Best = max(run.Best, macro.OnGoals(f.b, pos.Boxes))
		player := pos.Player
		s.a.estimate(pos.Boxes)
		moves := f.g.Generate(pos, nil)
		for i := range moves {
			if i%256 == 255 && run.Expired() {
				break
			}
			m := &moves[i]
			if f.store.Find(m.Hash) >= 0 {
				continue
			}
			est := s.a.child(int(m.Box), m.From, m.To)
			pos.Apply(m)
			child := f.store.Add(id, m, m.Hash, pos.Boxes, m.Norm)
			pos.Undo(m, player)
			if child < 0 {
				return -1, -1, true
			}
			f.regions = append(f.regions, uint16(m.Regions))
			f.depth = append(f.depth, f.depth[id]+1)
			if r := rev.Find(m.Hash); r >= 0 {
				return child, r, false
			}
			s.queue(child, est)
		}
		return -1, -1, false
	}
	return -1, -1, true
}

// nextGap returns the queued forward node closest to the aim not taken
// yet, or -1.
func (s *fwdAim) nextGap() int32 {
	if s.gapq.Len() == 0 {
		return -1
	}
	return s.gapq.Pop().ID
}
