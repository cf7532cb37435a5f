package macro

import "slices"

// One search per box instead of a flood per state.
//
// The breadth-first search of a box's macro moves needs, for every square
// the box reaches, the player's region around it; flooding the board for
// each of those states was most of the cost of an expansion. With the box
// lifted off the board, the free squares are a graph that does not change
// while the box travels; putting the box on square q removes q from it. A
// depth-first search with low links (articulation points), run once per
// box by lift, tells for every q which of q's neighbours stay connected
// and into how many regions the free squares fall, so each state of the
// box's search is a few lookups (liftedMoves), and so is the number of
// regions after each move (Move.Regions, which FESS measures for every
// child).

// regionScratch is the scratch space of lift, and what lift finds: the
// depth-first forest of the free squares with the box lifted. Entries are
// valid for the squares whose stamp matches gen.
type regionScratch struct {
	count int // regions with the box lifted
	// label's numbering of the regions of the position (see label).
	label     []uint32
	labelBase uint32
	lnext     uint32
	minOf     []uint16
	lstack    []uint16
	// The boxes label last numbered the regions for.
	labelled      bool
	labelledBoxes []uint16

	nodes []liftNode // per square, one struct so that a visit touches one cache line
	gen   uint32
	stack []liftFrame
	order []uint16 // the squares by discovery time
}

// liftNode is what lift finds about one free square.
type liftNode struct {
	disc, low int32
	size      int32  // squares in the subtree
	root      int32  // the discovery time of the tree's root
	sub       uint16 // the smallest square of the subtree
	parent    uint16 // the tree parent, or the wall sentinel for a root
	stamp     uint32
	pieces    uint8 // parts of the square's region once it is filled
}

type liftFrame struct {
	sq  uint16
	dir uint8
}

func (g *Gen) regionScratch() *regionScratch {
	if g.regions == nil {
		n := g.b.Squares + 1
		g.regions = &regionScratch{nodes: make([]liftNode, n), stack: make([]liftFrame, 0, n), order: make([]uint16, 0, n),
			label: make([]uint32, n), minOf: make([]uint16, 0, n), lstack: make([]uint16, 0, n)}
	}
	return g.regions
}

// label numbers the regions of free squares of pos, for lift and for
// Generate's test of which boxes the player can push: label[s] is the
// region of free square s, a number from labelBase up, regions numbered in
// the order of their smallest squares; minOf holds each region's smallest
// square. It costs one walk over the board, as a flood does.
func (g *Gen) label(pos *Pos) {
	r := g.regionScratch()
	// The corral test and Generate label the same position one after the
	// other; the labels depend on the boxes alone.
	if r.labelled && slices.Equal(r.labelledBoxes, pos.Boxes) {
		return
	}
	r.labelled = true
	r.labelledBoxes = append(r.labelledBoxes[:0], pos.Boxes...)
	if r.lnext > 1<<31 {
		clear(r.label)
		r.lnext = 0
	}
	r.labelBase = r.lnext + 1
	r.minOf = r.minOf[:0]
	for start := range g.b.Squares {
		s := uint16(start)
		if pos.BoxAt[s] != -1 || r.label[s] >= r.labelBase {
			continue
		}
		r.lnext++
		r.minOf = append(r.minOf, s)
		r.label[s] = r.lnext
		stack := append(r.lstack[:0], s)
		for len(stack) > 0 {
			q := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			for d := range 4 {
				n := g.nbr[int(q)*4+d]
				if pos.BoxAt[n] == -1 && r.label[n] < r.labelBase {
					r.label[n] = r.lnext
					stack = append(stack, n)
				}
			}
		}
		r.lstack = stack
	}
}

// lift prepares regionsAfter for the moves of the box on from in pos: it
// looks at pos with that box lifted off the board. label must have been
// run on pos. Only the region the lifted box joins is walked: the box
// never leaves it, nor does the player who pushes it, and the other
// regions only count. pos is as it was when lift returns.
func (g *Gen) lift(pos *Pos, from uint16) {
	r := g.regionScratch()
	r.gen++
	if r.gen == 0 {
		for i := range r.nodes {
			r.nodes[i].stamp = 0
		}
		r.gen = 1
	}
	gen, nodes, nbr, boxAt := r.gen, r.nodes, g.nbr, pos.BoxAt
	// The regions the lifted square joins, and the smallest square of the
	// joined region, where its tree starts (pieceMin relies on it).
	var joined [4]uint32
	nj := 0
	root := from
	for d := range 4 {
		n := nbr[int(from)*4+d]
		if boxAt[n] != -1 {
			continue
		}
		l := r.label[n]
		if slices.Contains(joined[:nj], l) {
			continue
		}
		joined[nj] = l
		nj++
		root = min(root, r.minOf[l-r.labelBase])
	}
	r.count = len(r.minOf) - nj + 1
	// With the box off its square every free square holds -1, and the
	// wall sentinel holds -2, so one test says whether a square is free.
	saved := boxAt[from]
	boxAt[from] = -1
	r.order = r.order[:0]
	t := int32(0)
	s := root
	nodes[s] = liftNode{disc: t, low: t, size: 1, root: 0, sub: s, parent: g.wall, stamp: gen}
	r.order = append(r.order, s)
	t++
	rootKids := uint8(0)
	stack := append(r.stack[:0], liftFrame{sq: s})
	for len(stack) > 0 {
		top := len(stack) - 1
		v := stack[top].sq
		if d := stack[top].dir; d < 4 {
			stack[top].dir++
			w := nbr[int(v)*4+int(d)]
			if boxAt[w] != -1 {
				continue
			}
			if nw := &nodes[w]; nw.stamp != gen {
				// pieces starts at 1: the part holding its parent.
				*nw = liftNode{disc: t, low: t, size: 1, root: 0, sub: w, parent: v, stamp: gen, pieces: 1}
				r.order = append(r.order, w)
				t++
				stack = append(stack, liftFrame{sq: w})
			} else if nv := &nodes[v]; nw.disc < nv.low {
				nv.low = nw.disc
			}
			continue
		}
		// v is done: report to its parent.
		stack = stack[:top]
		if top == 0 {
			break
		}
		p := stack[top-1].sq
		np, nv := &nodes[p], &nodes[v]
		np.low = min(np.low, nv.low)
		np.size += nv.size
		np.sub = min(np.sub, nv.sub)
		if p == s {
			rootKids++
		} else if nv.low >= np.disc {
			np.pieces++ // v's subtree comes loose when p is filled
		}
	}
	r.stack = stack
	nodes[s].pieces = rootKids
	boxAt[from] = saved
}

// piece names the part of the lifted position's free squares that holds
// square w once square q is filled: q itself when w lies in no subtree of
// q that comes loose (the part holding q's tree parent, or nothing), else
// the root of that subtree. It returns the wall sentinel when w is not in
// q's region. Both squares must be free in the lifted position.
func (r *regionScratch) piece(g *Gen, q, w uint16) uint16 {
	nq, nw := &r.nodes[q], &r.nodes[w]
	if nw.stamp != r.gen || nq.stamp != r.gen {
		return g.wall // not in the region lift walked
	}
	dq, dw := nq.disc, nw.disc
	if dw < dq || dw >= dq+nq.size {
		return q // outside q's subtree: the part with q's parent
	}
	// w is below q, in the subtree of one of q's children, all of which
	// are q's neighbours.
	for d := range 4 {
		c := g.nbr[int(q)*4+d]
		if c == g.wall {
			continue
		}
		nc := &r.nodes[c]
		if nc.stamp != r.gen || nc.parent != q {
			continue
		}
		if dc := nc.disc; dw >= dc && dw < dc+nc.size {
			if nc.low >= dq {
				return c
			}
			return q
		}
	}
	return q
}

// pieceMin returns the smallest square of piece c (as piece names it) of
// the position with q filled. A tree's root is the smallest square of its
// region (lift starts trees in square order), and the piece named q holds
// the root, so its smallest square is the root.
func (r *regionScratch) pieceMin(q, c uint16) uint16 {
	if c != q {
		return r.nodes[c].sub
	}
	return r.order[r.nodes[q].root]
}

// regionsAfter returns the number of regions of free squares once the box
// lift was last called for moves to square to.
func (g *Gen) regionsAfter(to uint16) int {
	r := g.regions
	return r.count - 1 + int(r.nodes[to].pieces)
}
