package macro

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
	count int        // regions with the box lifted
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
		g.regions = &regionScratch{nodes: make([]liftNode, n), stack: make([]liftFrame, 0, n), order: make([]uint16, 0, n)}
	}
	return g.regions
}

// lift prepares regionsAfter for the moves of the box on from in pos: it
// looks at pos with that box lifted off the board. pos is as it was when
// lift returns.
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
	// With the box off its square every free square holds -1, and the
	// wall sentinel holds -2, so one test says whether a square is free.
	saved := boxAt[from]
	boxAt[from] = -1
	r.count = 0
	r.order = r.order[:0]
	t := int32(0)
	for start := range g.b.Squares {
		s := uint16(start)
		if boxAt[s] != -1 || nodes[s].stamp == gen {
			continue
		}
		r.count++
		lo := t
		nodes[s] = liftNode{disc: t, low: t, size: 1, root: lo, sub: s, parent: g.wall, stamp: gen}
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
					*nw = liftNode{disc: t, low: t, size: 1, root: lo, sub: w, parent: v, stamp: gen, pieces: 1}
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
	}
	boxAt[from] = saved
}

// piece names the part of the lifted position's free squares that holds
// square w once square q is filled: q itself when w lies in no subtree of
// q that comes loose (the part holding q's tree parent, or nothing), else
// the root of that subtree. It returns the wall sentinel when w is not in
// q's region. Both squares must be free in the lifted position.
func (r *regionScratch) piece(g *Gen, q, w uint16) uint16 {
	nq, nw := &r.nodes[q], &r.nodes[w]
	if nw.root != nq.root {
		return g.wall
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
