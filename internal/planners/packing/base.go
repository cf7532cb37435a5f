package packing

import (
	"container/heap"
	"context"
	"slices"
	"unsafe"

	"github.com/sokod/sokod/board"
)

// The base search is a second way to a plan, for where Order's reverse
// search gets stuck, after Festival's BASE_SEARCH: a feature-space search
// backwards from the solved position over whole positions, player
// included, whose moves pull one box any distance. A box on a base (a
// square some box starts on) may leave the board. The path to the
// position with the fewest boxes left, read forwards, is the plan: the
// boxes left are its first steps, in any order, and a square a box rests
// on while other boxes move is a parking. Where the reverse search takes a
// box off as soon as it is out of the goal area, the base search moves any
// box anywhere.

// baseNode is a position of the base search: the pull that made it from
// its parent (to is the wall sentinel when the box left at a base), the
// player's square after it, its features and its weight.
type baseNode struct {
	parent   int32
	from, to uint16
	player   uint16
	left     int32 // boxes on the board
	targets  int32 // boxes on goals
	regions  int32 // regions of free squares; the parent's until counted
	counted  bool
	w        int32 // moves on the path that no advisor proposed
	h        int32 // the boxes' pull distances to the nearest base
}

// baseCell is a cell of the feature space: its positions, least weight
// first, then least distance to the bases, then newest.
type baseCell struct {
	ids   []int32
	nodes *[]baseNode
}

func (q baseCell) Len() int { return len(q.ids) }
func (q baseCell) Less(i, j int) bool {
	a, b := &(*q.nodes)[q.ids[i]], &(*q.nodes)[q.ids[j]]
	if a.w != b.w {
		return a.w < b.w
	}
	if a.h != b.h {
		return a.h < b.h
	}
	return q.ids[i] > q.ids[j]
}
func (q baseCell) Swap(i, j int) { q.ids[i], q.ids[j] = q.ids[j], q.ids[i] }
func (q *baseCell) Push(x any)   { q.ids = append(q.ids, x.(int32)) }
func (q *baseCell) Pop() any {
	x := q.ids[len(q.ids)-1]
	q.ids = q.ids[:len(q.ids)-1]
	return x
}

// baseCellKey is a cell's place in the feature space.
type baseCellKey struct{ left, targets, regions int32 }

// Bounds of one base search: expansions, and positions stored, which
// grow with the boxes times the squares they can be pulled to.
const (
	baseExpansions = 20000
	baseNodes      = 2 << 20
)

// baseNodeBytes is what a stored position takes, its cell entry included.
const baseNodeBytes = int64(unsafe.Sizeof(baseNode{})) + 4

// BaseOrder computes a packing order by the base search, storing positions
// in at most a quarter of memory bytes (0: no limit beyond its own), or
// returns nil when it finds no move or ctx ends first. Its plans differ
// from Order's most where Order's reverse search gets stuck; neither is
// better everywhere (docs/benchmarks.md).
func BaseOrder(ctx context.Context, b *board.Board, memory int64) *Plan {
	s := newBaseSearch(b)
	if s == nil {
		return nil
	}
	s.maxNodes = baseNodes
	if memory > 0 {
		s.maxNodes = int(min(int64(baseNodes), memory/4/baseNodeBytes))
	}
	best := s.run(ctx)
	if best < 0 || ctx.Err() != nil {
		return nil
	}
	p := s.plan(best)
	return p.finish(ctx, b, s.r)
}

// baseSearcher is the state of one base search.
type baseSearcher struct {
	b      *board.Board
	r      *reverse
	base   []bool   // a box starts on the square
	hd     []int32  // pulls from the square to the nearest base, or -1
	gd     []uint16 // pushes from the square to the nearest goal, or board.Inf
	root   []bool   // the solved position's boxes
	nodes  []baseNode
	cells  map[baseCellKey]*baseCell
	order  []baseCellKey // the cells, in the order found
	closed map[uint64]struct{}
	path   []int32
	kids   []baseNode
	// maxNodes bounds the positions stored.
	maxNodes int
}

func newBaseSearch(b *board.Board) *baseSearcher {
	s := &baseSearcher{b: b, r: newReverse(b), base: make([]bool, b.Squares+1), root: make([]bool, b.Squares+1),
		cells: map[baseCellKey]*baseCell{}, closed: map[uint64]struct{}{}}
	for _, sq := range b.StartBoxes {
		s.base[sq] = true
	}
	s.hd = pushSteps(b, s.base, nil)
	s.gd = b.NearestGoal()
	s.root[b.Squares] = true
	h0 := int32(0)
	for _, g := range b.Goals {
		if s.hd[g] < 0 {
			return nil // no box can reach g
		}
		s.root[g] = true
		h0 += s.hd[g]
	}
	// One root per region of free squares: the player may stand in any.
	copy(s.r.occ, s.root)
	n := int32(len(b.Goals))
	s.r.eachRegion(func(first uint16, _ int) {
		s.nodes = append(s.nodes, baseNode{parent: -1, player: first, left: n, targets: n, h: h0})
		s.add(int32(len(s.nodes) - 1))
	})
	return s
}

// add queues node id in its cell.
func (s *baseSearcher) add(id int32) {
	n := &s.nodes[id]
	k := baseCellKey{n.left, n.targets, n.regions}
	c := s.cells[k]
	if c == nil {
		c = &baseCell{nodes: &s.nodes}
		s.cells[k] = c
		s.order = append(s.order, k)
	}
	heap.Push(c, id)
}

// better reports whether a makes a better plan than b: fewer boxes left,
// then fewer on goals, then fewer regions, then nearer the bases.
func (a *baseNode) better(b *baseNode) bool {
	if a.left != b.left {
		return a.left < b.left
	}
	if a.targets != b.targets {
		return a.targets < b.targets
	}
	if a.regions != b.regions {
		return a.regions < b.regions
	}
	return a.h < b.h
}

// run searches until a position with no box left, or a bound, and returns
// the best position found, or -1. The cells are visited in turn, every
// other turn given to the best position's cell, as Festival's packing
// search does.
func (s *baseSearcher) run(ctx context.Context) int32 {
	best := int32(-1)
	empty := 0
	for turn, expansions := 0, 0; expansions < baseExpansions && len(s.nodes) < s.maxNodes && ctx.Err() == nil && empty < len(s.order); turn++ {
		var c *baseCell
		if turn%2 == 1 && best >= 0 {
			bn := &s.nodes[best]
			c = s.cells[baseCellKey{bn.left, bn.targets, bn.regions}]
		} else {
			c = s.cells[s.order[(turn/2)%len(s.order)]]
		}
		if c.Len() == 0 {
			if turn%2 == 0 {
				empty++
			}
			continue
		}
		empty = 0
		id := heap.Pop(c).(int32)
		key := s.position(id)
		if _, ok := s.closed[key]; ok {
			continue
		}
		n := &s.nodes[id]
		if !n.counted {
			// Regions are counted when a position is first taken out; it
			// goes back into its own cell, and a pull that joined regions
			// is free, as Festival's connectivity advisor proposes it.
			n.regions, n.counted = s.r.countRegions(), true
			if p := n.parent; p >= 0 && n.regions < s.nodes[p].regions && n.w > s.nodes[p].w {
				n.w--
			}
			s.add(id)
			continue
		}
		s.closed[key] = struct{}{}
		expansions++
		if best < 0 || n.better(&s.nodes[best]) {
			best = id
		}
		if n.left == 0 {
			break
		}
		s.expand(ctx, id)
	}
	return best
}

// position sets the reverse search's boxes and player region to node id's
// and returns its key: the boxes' and the normalised player's Zobrist
// keys.
func (s *baseSearcher) position(id int32) uint64 {
	b, r := s.b, s.r
	copy(r.occ, s.root)
	s.path = s.path[:0]
	for p := id; s.nodes[p].parent >= 0; p = s.nodes[p].parent {
		s.path = append(s.path, p)
	}
	for i := len(s.path) - 1; i >= 0; i-- {
		m := &s.nodes[s.path[i]]
		r.occ[m.from] = false
		if m.to != r.wall {
			r.occ[m.to] = true
		}
	}
	r.flood(s.nodes[id].player)
	key, norm := uint64(0), uint16(b.Squares)
	for sq := range b.Squares {
		r.region[sq] = r.mark[sq] == r.mgen
		if r.occ[sq] {
			key ^= b.ZBox[sq]
		} else if r.region[sq] && norm == uint16(b.Squares) {
			norm = uint16(sq)
		}
	}
	return key ^ b.ZPlayer[norm]
}

// expand queues the children of node id, whose position position has set:
// every pull of a box to a square a box can come from, and every box on a
// base leaving. One child is advised and costs nothing, as with
// Festival's packing advisor: a box leaving when one can (the one that
// stood farthest from the bases), else, as Festival's pull advisor, the
// pull off a goal that takes its box farthest from the goals: such a box
// is out of the way of the pulls still to come. Where the goals block
// their area's way to the bases, the boxes must first go the other way,
// into whatever room there is, and a pull towards the bases stays inside.
func (s *baseSearcher) expand(ctx context.Context, id int32) {
	b, r := s.b, s.r
	n := s.nodes[id]
	s.kids = s.kids[:0]
	for sq := range b.Squares {
		if !r.occ[sq] {
			continue
		}
		if ctx.Err() != nil {
			return // a box's pulls take a while on a board of thousands
		}
		from := uint16(sq)
		onGoal := int32(0)
		if b.GoalIndex[from] >= 0 {
			onGoal = 1
		}
		if s.base[from] {
			s.kids = append(s.kids, baseNode{parent: id, from: from, to: r.wall, player: n.player, left: n.left - 1,
				targets: n.targets - onGoal, regions: n.regions, w: n.w + 1, h: n.h - s.hd[from]})
		}
		r.pulls(from, func(to, player uint16, d int32) bool {
			if d == 0 || s.hd[to] < 0 {
				return true
			}
			c := baseNode{parent: id, from: from, to: to, player: player, left: n.left, targets: n.targets - onGoal,
				regions: n.regions, w: n.w + 1, h: n.h - s.hd[from] + s.hd[to]}
			if s.base[to] {
				c.to, c.left, c.h = r.wall, n.left-1, n.h-s.hd[from]
			} else if b.GoalIndex[to] >= 0 {
				c.targets++
			}
			s.kids = append(s.kids, c)
			return true
		})
	}
	adv := -1
	for i := range s.kids {
		k := &s.kids[i]
		if k.to == r.wall && (adv < 0 || k.h < s.kids[adv].h) {
			adv = i
		}
	}
	if adv < 0 {
		for i := range s.kids {
			k := &s.kids[i]
			if b.GoalIndex[k.from] < 0 || k.targets >= n.targets {
				continue
			}
			if adv < 0 || s.gd[k.to] > s.gd[s.kids[adv].to] {
				adv = i
			}
		}
	}
	if adv >= 0 {
		s.kids[adv].w = n.w
	}
	for _, c := range s.kids {
		s.nodes = append(s.nodes, c)
		s.add(int32(len(s.nodes) - 1))
	}
}

// plan reads the path to node best forwards: the boxes left first, in any
// order, then each pull reversed, a box that moves twice in a row making
// one step.
func (s *baseSearcher) plan(best int32) *Plan {
	p := &Plan{}
	s.position(best)
	for sq := range s.b.Squares {
		if s.r.occ[sq] {
			p.Steps = append(p.Steps, Step{From: -1, To: uint16(sq)})
		}
	}
	p.Unordered = len(p.Steps)
	for _, id := range s.path {
		m := &s.nodes[id]
		from := int32(-1)
		if m.to != s.r.wall {
			from = int32(m.to)
		}
		if k := len(p.Steps) - 1; k >= p.Unordered && from >= 0 && p.Steps[k].To == uint16(from) {
			p.Steps[k].To = m.from
			if p.Steps[k].From == int32(p.Steps[k].To) {
				p.Steps = slices.Delete(p.Steps, k, k+1)
			}
			continue
		}
		p.Steps = append(p.Steps, Step{From: from, To: m.from})
	}
	for _, st := range p.Steps[p.Unordered:] {
		if s.b.GoalIndex[st.To] < 0 {
			p.Parkings++
		}
	}
	return p
}

// countRegions counts the regions of free squares.
func (r *reverse) countRegions() int32 {
	n := int32(0)
	r.eachRegion(func(uint16, int) { n++ })
	return n
}
