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
}

func newMatcher(boxes int) *matcher {
	return &matcher{adj: make([][]int32, 0, boxes)}
}

// pullMatched reports whether every box of g, a position of the base
// search, can still be pulled back to a base of its own: some open base
// can be pushed to its square.
func (mt *matcher) pullMatched(lv *level, g grid) bool {
	mt.left, mt.right = mt.left[:0], mt.right[:0]
	for _, c := range lv.cell {
		if g[c]&box != 0 {
			mt.left = append(mt.left, lv.idx[c])
		}
		if g[c]&base != 0 {
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
