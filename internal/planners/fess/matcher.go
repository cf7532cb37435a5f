package fess

// matcher tests whether boxes can be matched one to one with squares they
// can reach: Festival's matching deadlock (check_matching_deadlock), whose
// costs are 0 or 1, so an augmenting-path matching answers it.
type matcher struct {
	left, right []int32
	adj         [][]int32
	matchR      []int32
	seen        []uint32
	gen         uint32
	gr          *graph // pushMatched's
}

func newMatcher(boxes int) *matcher {
	return &matcher{adj: make([][]int32, 0, boxes)}
}

// pullMatched reports whether every box of g, a position of a backward
// search, can still be pulled back to a square of its own: an open base
// (with bases set) or a start square, from which a box can be pushed to
// its square.
func (mt *matcher) pullMatched(lv *level, g grid, bases bool) bool {
	mt.left, mt.right = mt.left[:0], mt.right[:0]
	for _, c := range lv.cell {
		if g[c]&box != 0 {
			mt.left = append(mt.left, lv.idx[c])
		}
		if bases && g[c]&base != 0 || !bases && lv.start[c]&box != 0 {
			mt.right = append(mt.right, lv.idx[c])
		}
	}
	if len(mt.left) > len(mt.right) {
		return false
	}
	n := lv.n()
	mt.rows(len(mt.left))
	for i, bx := range mt.left {
		row := mt.adj[i][:0]
		for j, bs := range mt.right {
			if lv.dist[int(bs)*n+int(bx)] != inf {
				row = append(row, int32(j))
			}
		}
		mt.adj[i] = row
	}
	return mt.perfect()
}

// rows sizes adj to n rows, keeping their buffers.
func (mt *matcher) rows(n int) {
	for len(mt.adj) < n {
		mt.adj = append(mt.adj, nil)
	}
	mt.adj = mt.adj[:n]
}

// perfect reports whether adj matches every left vertex.
func (mt *matcher) perfect() bool {
	mt.matchR = mt.matchR[:0]
	for range mt.right {
		mt.matchR = append(mt.matchR, -1)
	}
	if len(mt.seen) < len(mt.right) {
		mt.seen = make([]uint32, len(mt.right))
	}
	for u := range mt.adj {
		mt.gen++
		if mt.gen == 0 {
			clear(mt.seen)
			mt.gen = 1
		}
		if !mt.augment(int32(u)) {
			return false
		}
	}
	return true
}

func (mt *matcher) augment(u int32) bool {
	for _, v := range mt.adj[u] {
		if mt.seen[v] == mt.gen {
			continue
		}
		mt.seen[v] = mt.gen
		if mt.matchR[v] < 0 || mt.augment(mt.matchR[v]) {
			mt.matchR[v] = u
			return true
		}
	}
	return false
}

// pushMatched reports whether every box of g, a forward position, can be
// given a target of its own that it could reach alone, on the board where
// the boxes that can never move again stand as walls (Festival's
// check_matching_deadlock): false is a deadlock. w and scratch are
// grid-sized buffers.
func (mt *matcher) pushMatched(lv *level, g, w, scratch grid) bool {
	lv.wallFixed(g, w, scratch)
	mt.left, mt.right = mt.left[:0], mt.right[:0]
	for _, c := range lv.cell {
		if w[c]&box != 0 {
			mt.left = append(mt.left, c)
		}
		if w[c]&target != 0 && w[c] != wall {
			mt.right = append(mt.right, c)
		}
	}
	if len(mt.left) != len(mt.right) {
		return false
	}
	empty := scratch
	for i, v := range w {
		empty[i] = v &^ (box | player)
	}
	if mt.gr == nil {
		mt.gr = newGraph(lv, empty, false)
	} else {
		mt.gr.build(empty)
	}
	lv.holesInactive(w, mt.gr)
	mt.rows(len(mt.left))
	for i, c := range mt.left {
		gr := mt.gr
		gr.reset()
		gr.startAt(int(lv.idx[c]))
		gr.iterate()
		row := mt.adj[i][:0]
		for j, t := range mt.right {
			if t == c || gr.around(int(lv.idx[t])) != inf {
				row = append(row, int32(j))
			}
		}
		mt.adj[i] = row
	}
	return mt.perfect()
}

// holesInactive takes out of gr the sides of a square from which the
// player would push a box out of a hole, a free cell walled on three
// sides, when the player could not stand there (Festival's
// make_holes_inactive): the hole is out of reach, or the player reaches
// both the hole and the square, so no box stands between.
func (lv *level) holesInactive(g grid, gr *graph) {
	for _, c := range lv.cell {
		if g[c]&occupied != 0 {
			continue
		}
		walls := 0
		for _, d := range lv.d4 {
			if g[int(c)+d] == wall {
				walls++
			}
		}
		if walls != 3 {
			continue
		}
		for k, d := range lv.d4 {
			sq := int(c) + d
			if g[sq] == wall || !lv.inner[sq] {
				continue
			}
			v := int(lv.idx[sq])*4 + ((k + 2) & 3)
			if g[c]&player == 0 || g[sq]&player != 0 {
				gr.active[v] = false
			}
		}
	}
}
