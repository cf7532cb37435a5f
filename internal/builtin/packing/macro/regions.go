package macro

// Counting regions after a move without a flood per move.
//
// A planner that measures the connectivity of every child of a position
// would flood the board once per child. The moves of one box all free the
// same square From and differ only in the square To they fill. So for each
// box, Lift looks at the position with that box lifted off the board: it
// counts its regions and finds, by one depth-first search with low links
// (articulation points), into how many pieces each square's region falls
// when that square is filled. The count after any move of the box is then
// a lookup (RegionsAfter): one search per box instead of a flood per move.

// regionScratch is the scratch space of Lift.
type regionScratch struct {
	count  int     // regions with the box lifted
	pieces []uint8 // pieces[s]: parts of s's region once s is filled, valid when stamp matches
	disc   []int32 // discovery time, valid when stamp matches
	low    []int32
	stamp  []uint32
	gen    uint32
	stack  []liftFrame
}

type liftFrame struct {
	sq  uint16
	dir uint8
}

func (g *Gen) regionScratch() *regionScratch {
	if g.regions == nil {
		n := g.b.Squares + 1
		g.regions = &regionScratch{pieces: make([]uint8, n), disc: make([]int32, n), low: make([]int32, n),
			stamp: make([]uint32, n), stack: make([]liftFrame, 0, n)}
	}
	return g.regions
}

// Lift prepares RegionsAfter for the moves of the box on from in pos: it
// looks at pos with that box lifted off the board. pos is not changed.
func (g *Gen) Lift(pos *Pos, from uint16) {
	r := g.regionScratch()
	r.gen++
	if r.gen == 0 {
		clear(r.stamp)
		r.gen = 1
	}
	free := func(s uint16) bool { return pos.BoxAt[s] == -1 || s == from }
	r.count = 0
	t := int32(0)
	for root := range g.b.Squares {
		s := uint16(root)
		if !free(s) || r.stamp[s] == r.gen {
			continue
		}
		r.count++
		r.stamp[s], r.disc[s], r.low[s] = r.gen, t, t
		t++
		rootKids := uint8(0)
		r.pieces[s] = 1 // below the root, one piece per child, counted as they come
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
					r.stamp[w], r.disc[w], r.low[w] = r.gen, t, t
					t++
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
			if p == s {
				rootKids++
			} else if r.low[v] >= r.disc[p] {
				r.pieces[p]++ // v's subtree comes loose when p is filled
			}
		}
		r.pieces[s] = rootKids
	}
}

// RegionsAfter returns the number of regions of free squares once the box
// Lift was last called for moves to square to.
func (g *Gen) RegionsAfter(to uint16) int {
	r := g.regions
	return r.count - 1 + int(r.pieces[to])
}
