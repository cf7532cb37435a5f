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
	count  int     // regions with the box lifted
	pieces []uint8 // pieces[s]: parts of s's region once s is filled
	disc   []int32 // discovery time
	low    []int32
	size   []int32  // squares in the subtree
	sub    []uint16 // the smallest square of the subtree
	parent []uint16 // the tree parent, or the wall sentinel for a root
	root   []int32  // the discovery time of the tree's root
	stamp  []uint32
	gen    uint32
	stack  []liftFrame
	order  []uint16 // the squares by discovery time
}

type liftFrame struct {
	sq  uint16
	dir uint8
}

func (g *Gen) regionScratch() *regionScratch {
	if g.regions == nil {
		n := g.b.Squares + 1
		g.regions = &regionScratch{pieces: make([]uint8, n), disc: make([]int32, n), low: make([]int32, n),
			size: make([]int32, n), sub: make([]uint16, n), parent: make([]uint16, n), root: make([]int32, n),
			stamp: make([]uint32, n), stack: make([]liftFrame, 0, n),
			order: make([]uint16, 0, n)}
	}
	return g.regions
}

// lift prepares regionsAfter for the moves of the box on from in pos: it
// looks at pos with that box lifted off the board. pos is not changed.
func (g *Gen) lift(pos *Pos, from uint16) {
	r := g.regionScratch()
	r.gen++
	if r.gen == 0 {
		clear(r.stamp)
		r.gen = 1
	}
	free := func(s uint16) bool { return pos.BoxAt[s] == -1 || s == from }
	r.count = 0
	r.order = r.order[:0]
	t := int32(0)
	for start := range g.b.Squares {
		s := uint16(start)
		if !free(s) || r.stamp[s] == r.gen {
			continue
		}
		r.count++
		lo := t
		visit := func(w, parent uint16) {
			r.stamp[w], r.disc[w], r.low[w] = r.gen, t, t
			r.size[w], r.sub[w], r.parent[w], r.root[w] = 1, w, parent, lo
			r.order = append(r.order, w)
			t++
		}
		visit(s, g.wall)
		rootKids := uint8(0)
		r.stack = append(r.stack[:0], liftFrame{sq: s})
		for len(r.stack) > 0 {
			f := &r.stack[len(r.stack)-1]
			v := f.sq
			if f.dir < 4 {
				w := g.nbr[int(v)*4+int(f.dir)]
				f.dir++
				if w == g.wall || !free(w) {
					continue
				}
				if r.stamp[w] != r.gen {
					visit(w, v)
					r.pieces[w] = 1 // the part holding its parent
					r.stack = append(r.stack, liftFrame{sq: w})
				} else {
					r.low[v] = min(r.low[v], r.disc[w])
				}
				continue
			}
			// v is done: report to its parent.
			r.stack = r.stack[:len(r.stack)-1]
			if len(r.stack) == 0 {
				break
			}
			p := r.stack[len(r.stack)-1].sq
			r.low[p] = min(r.low[p], r.low[v])
			r.size[p] += r.size[v]
			r.sub[p] = min(r.sub[p], r.sub[v])
			if p == s {
				rootKids++
			} else if r.low[v] >= r.disc[p] {
				r.pieces[p]++ // v's subtree comes loose when p is filled
			}
		}
		r.pieces[s] = rootKids
	}
}

// piece names the part of the lifted position's free squares that holds
// square w once square q is filled: q itself when w lies in no subtree of
// q that comes loose (the part holding q's tree parent, or nothing), else
// the root of that subtree. It returns the wall sentinel when w is not in
// q's region. Both squares must be free in the lifted position.
func (r *regionScratch) piece(g *Gen, q, w uint16) uint16 {
	if r.root[w] != r.root[q] {
		return g.wall
	}
	dq, dw := r.disc[q], r.disc[w]
	if dw < dq || dw >= dq+r.size[q] {
		return q // outside q's subtree: the part with q's parent
	}
	// w is below q, in the subtree of one of q's children, all of which
	// are q's neighbours.
	for d := range 4 {
		c := g.nbr[int(q)*4+d]
		if c == g.wall || r.stamp[c] != r.gen || r.parent[c] != q {
			continue
		}
		if dc := r.disc[c]; dw >= dc && dw < dc+r.size[c] {
			if r.low[c] >= dq {
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
		return r.sub[c]
	}
	return r.order[r.root[q]]
}

// regionsAfter returns the number of regions of free squares once the box
// lift was last called for moves to square to.
func (g *Gen) regionsAfter(to uint16) int {
	r := g.regions
	return r.count - 1 + int(r.pieces[to])
}
