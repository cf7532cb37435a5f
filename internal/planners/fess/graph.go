package fess

// The box graph: a vertex is a box on an inner square with the player on
// one of its sides (square*4+side, sides in Festival's direction order).
// A shift moves the player to another side of the box without pushing, a
// push (or pull) moves the box one square. Breadth-first search over it
// gives push distances that respect which side the player can reach.

// none is a missing edge or source.
const none = -1

// graph is the box graph of one board without boxes.
type graph struct {
	lv     *level
	active []bool     // the side is floor
	shift  [][4]int32 // shift[v][k]: the vertex with the player on side k, or none
	step   []int32    // the push (or pull) from v, or none
	weight []int32
	src    []int32
	pull   bool
	lab    []int32
	// Scratch for iterate.
	cur, next []int32
	seen      []bool
}

// newGraph returns the graph of g, which must hold no boxes, for pushes
// or pulls (Festival's build_graph).
func newGraph(lv *level, g grid, pull bool) *graph {
	n := lv.n()
	gr := &graph{lv: lv, active: make([]bool, 4*n), shift: make([][4]int32, 4*n), step: make([]int32, 4*n),
		weight: make([]int32, 4*n), src: make([]int32, 4*n), pull: pull, seen: make([]bool, 4*n)}
	gr.build(g)
	return gr
}

// build sets the edges of g.
func (gr *graph) build(g grid) {
	lv := gr.lv
	for i, c := range lv.cell {
		for k, d := range lv.d4 {
			gr.active[i*4+k] = g[int(c)]&wall == 0 && g[int(c)+d]&wall == 0
		}
	}
	lab := lv.sideLabels(g, gr.lab)
	gr.lab = lab
	for i, c := range lv.cell {
		for k := range 4 {
			gr.shift[i*4+k] = [4]int32{none, none, none, none}
		}
		if g[c]&occupied != 0 {
			continue
		}
		for from := range 4 {
			lf := lab[i*4+from]
			if !gr.active[i*4+from] || lf == noSide {
				continue
			}
			for to := range 4 {
				if to != from && gr.active[i*4+to] && lab[i*4+to] == lf {
					gr.shift[i*4+from][to] = int32(i*4 + to)
				}
			}
		}
	}
	for v := range gr.step {
		gr.step[v] = none
		if !gr.active[v] {
			continue
		}
		c, k := int(lv.cell[v/4]), v%4
		if g[c]&occupied != 0 {
			continue
		}
		if gr.pull {
			// The box goes to the player's side, the player one further.
			if g[c+2*lv.d4[k]]&occupied == 0 {
				gr.step[v] = lv.idx[c+lv.d4[k]]*4 + int32(k)
			}
		} else if n := c - lv.d4[k]; g[n]&occupied == 0 {
			gr.step[v] = lv.idx[n]*4 + int32(k)
		}
	}
	gr.reset()
}

// Side labels (see sideLabels).
const (
	// noSide labels a neighbour that is a wall or a box.
	noSide = -1
	// above labels the neighbours that stay connected to where the
	// depth-first search came from.
	above = -2
)

// sideLabels returns, for every free inner square of g and each of its
// neighbours, a label such that two neighbours of a square have the same
// label when the player can walk from one to the other with a box on the
// square (Festival's mark_connectivities_around_place, per square). One
// depth-first search with low links answers for every square: a child's
// subtree that reaches no higher than the square is cut off by it. buf is
// reused when large enough.
func (lv *level) sideLabels(g grid, buf []int32) []int32 {
	n := lv.n()
	if cap(buf) < 4*n {
		buf = make([]int32, 4*n)
	}
	lab := buf[:4*n]
	disc := make([]int32, n)
	low := make([]int32, n)
	fin := make([]int32, n)
	parent := make([]int32, n)
	free := func(i int32) bool { return g[lv.cell[i]]&occupied == 0 }
	type frame struct{ v, k int32 }
	var stack []frame
	clock := int32(0)
	for root := range int32(n) {
		if disc[root] != 0 || !free(root) {
			continue
		}
		clock++
		disc[root], low[root], parent[root] = clock, clock, -1
		stack = append(stack[:0], frame{root, 0})
		for len(stack) > 0 {
			top := &stack[len(stack)-1]
			v := top.v
			if top.k < 4 {
				k := top.k
				top.k++
				w := lv.idx[int(lv.cell[v])+lv.d4[k]]
				if w < 0 || !free(w) {
					continue
				}
				if disc[w] == 0 {
					clock++
					parent[w], disc[w], low[w] = v, clock, clock
					stack = append(stack, frame{w, 0})
				} else if w != parent[v] {
					low[v] = min(low[v], disc[w])
				}
				continue
			}
			fin[v] = clock
			stack = stack[:len(stack)-1]
			if p := parent[v]; p >= 0 {
				low[p] = min(low[p], low[v])
			}
		}
	}
	for s := range int32(n) {
		for k := range int32(4) {
			lab[s*4+k] = noSide
		}
		if !free(s) {
			continue
		}
		c := int(lv.cell[s])
		for k, d := range lv.d4 {
			w := lv.idx[c+d]
			if w < 0 || !free(w) {
				continue
			}
			if disc[w] < disc[s] {
				lab[s*4+int32(k)] = above
				continue
			}
			// A descendant: the child of s whose subtree holds it.
			for _, e := range lv.d4 {
				u := lv.idx[c+e]
				if u < 0 || parent[u] != s || disc[w] < disc[u] || disc[w] > fin[u] {
					continue
				}
				if low[u] < disc[s] {
					lab[s*4+int32(k)] = above
				} else {
					lab[s*4+int32(k)] = u
				}
				break
			}
		}
	}
	return lab
}

// reset sets every weight to infinity and every source to none.
func (gr *graph) reset() {
	for v := range gr.weight {
		gr.weight[v] = inf
		gr.src[v] = none
	}
}

// startAt gives the active sides of inner square i weight 0.
func (gr *graph) startAt(i int) {
	for k := range 4 {
		if gr.active[i*4+k] {
			gr.weight[i*4+k] = 0
		}
	}
}

// iterate runs the breadth-first search from the vertices of weight 0
// (Festival's do_graph_iterations: a shift keeps the weight but waits for
// the next round, as a push does).
func (gr *graph) iterate() {
	clear(gr.seen)
	gr.next = gr.next[:0]
	for v, w := range gr.weight {
		if w == 0 {
			gr.src[v] = none
			gr.next = append(gr.next, int32(v))
			gr.seen[v] = true
		}
	}
	for len(gr.next) > 0 {
		gr.cur, gr.next = gr.next, gr.cur[:0]
		for _, v := range gr.cur {
			for _, nv := range gr.shift[v] {
				if nv == none || gr.seen[nv] {
					continue
				}
				gr.seen[nv] = true
				gr.weight[nv] = gr.weight[v]
				gr.src[nv] = v
				gr.next = append(gr.next, nv)
			}
			nv := gr.step[v]
			if nv == none || gr.seen[nv] {
				continue
			}
			gr.seen[nv] = true
			gr.weight[nv] = gr.weight[v] + 1
			gr.src[nv] = v
			gr.next = append(gr.next, nv)
		}
	}
}

// around returns the least weight of inner square i's sides.
func (gr *graph) around(i int) int32 {
	m := int32(inf)
	for k := range 4 {
		if gr.active[i*4+k] {
			m = min(m, gr.weight[i*4+k])
		}
	}
	return m
}

// reached returns, per cell, whether the last search reached a side of
// its square or the square is in group.
func (gr *graph) reached(group []bool) []bool {
	lv := gr.lv
	out := make([]bool, len(lv.start))
	for i, c := range lv.cell {
		out[c] = group[c] || gr.around(i) != inf
	}
	return out
}

// targetsOf returns the cells a lone box on a cell of group can be
// pushed to on g, group included (Festival's find_targets_of_a_group).
func (lv *level) targetsOf(g grid, group []bool) []bool {
	gr := newGraph(lv, g, false)
	return gr.fromGroup(group)
}

// sourcesOf returns the cells from which a lone box can be pushed onto a
// cell of group on g, group included (find_sources_of_a_group).
func (lv *level) sourcesOf(g grid, group []bool) []bool {
	gr := newGraph(lv, g, true)
	return gr.fromGroup(group)
}

// fromGroup searches from every side of group's cells.
func (gr *graph) fromGroup(group []bool) []bool {
	gr.reset()
	for i, c := range gr.lv.cell {
		if group[c] {
			gr.startAt(i)
		}
	}
	gr.iterate()
	return gr.reached(group)
}

// distanceFrom returns, per cell, the least pushes (pulls with pull set)
// of a lone box from a cell of group on g, inf where none reaches
// (Festival's find_distance_from_a_group).
func (lv *level) distanceFrom(g grid, group []bool, pull bool) []int32 {
	gr := newGraph(lv, g, pull)
	gr.reset()
	for i, c := range lv.cell {
		if group[c] {
			gr.startAt(i)
		}
	}
	gr.iterate()
	d := make([]int32, len(g))
	for i := range d {
		d[i] = inf
	}
	for i, c := range lv.cell {
		d[c] = gr.around(i)
	}
	return d
}
