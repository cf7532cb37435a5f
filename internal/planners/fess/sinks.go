package fess

// bigDistance is the walk beyond which two squares count as in different
// rooms (Festival's BIG_DISTANCE).
const bigDistance = 6

// sinks decides, in the base search, which pulls take their box off the
// board at a base (Festival's mark_sink_squares_moves): a box may leave at
// a base of the largest group of bases that can each reach the others by
// pushes, when the pull takes it to another room and the boxes left can
// still be matched to the bases left.
type sinks struct {
	lv      *level
	scc     []bool
	pulled  []bool
	tested  []bool
	match   *matcher
	scratch grid
}

func newSinks(lv *level) *sinks {
	cells := len(lv.start)
	return &sinks{lv: lv, scc: make([]bool, cells), pulled: make([]bool, cells), scratch: make(grid, cells), match: newMatcher(lv.boxes)}
}

// mark keeps, when some pull can take its box off at a base, only such
// pulls, one per box, marked as base moves; otherwise it returns moves as
// they are.
func (s *sinks) mark(b grid, moves []move) []move {
	lv := s.lv
	s.lv.basesSCC(b, s.scc)
	for _, c := range lv.cell {
		if s.scc[c] && b[c]&player == 0 {
			return moves // a sink the player cannot reach
		}
	}
	s.tested = append(s.tested[:0], make([]bool, len(moves))...)
	found := false
	for i := range moves {
		s.tested[i] = true
		mv := &moves[i]
		if s.sink(b, mv) {
			mv.base = true
			found = true
			break
		}
	}
	if !found {
		for i := range moves {
			moves[i].base = false
		}
		return moves
	}
	clear(s.pulled)
	out := moves[:0]
	for i := range moves {
		mv := moves[i]
		switch {
		case mv.base:
		case s.tested[i], s.pulled[mv.from]:
			continue
		case !s.sink(b, &mv):
			continue
		}
		mv.base = true
		out = append(out, mv)
		s.pulled[mv.from] = true
	}
	return out
}

// sink reports whether mv may take its box off at its end.
func (s *sinks) sink(b grid, mv *move) bool {
	if !s.scc[mv.to] || !s.lv.differentRooms(int(mv.from), int(mv.to)) {
		return false
	}
	c := s.scratch
	copy(c, b)
	c[mv.from] &^= box
	c[mv.to] &^= base
	return s.match.pullMatched(s.lv, c, true)
}

// basesSCC marks in out the bases of the largest group of open bases that
// reach each other by pushes, the boxes of b standing as walls (Festival's
// compute_bases_scc, its grouping included).
func (lv *level) basesSCC(b grid, out []bool) {
	clear(out)
	w := make(grid, len(b))
	for i, v := range b {
		w[i] = v
		if v&box != 0 {
			w[i] = wall
		}
	}
	var bases []int32
	for _, c := range lv.cell {
		if w[c]&base != 0 {
			bases = append(bases, c)
		}
	}
	n := len(bases)
	if n == 0 {
		return
	}
	gr := newGraph(lv, w, false)
	reach := make([]bool, n*n)
	for i, c := range bases {
		gr.reset()
		gr.startAt(int(lv.idx[c]))
		gr.iterate()
		for j, x := range bases {
			reach[i*n+j] = x == c || gr.around(int(lv.idx[x])) != inf
		}
	}
	scc := make([]int, n)
	for i := range scc {
		scc[i] = -1
	}
	cur := 0
	for i := range n {
		if scc[i] != -1 {
			continue
		}
		scc[i] = cur
		for j := i; j < n; j++ {
			if reach[i*n+j] && reach[j*n+i] {
				scc[j] = cur
			}
		}
		cur++
	}
	size := make([]int, n)
	best := 0
	for i := range n {
		for j := i; j < n; j++ {
			if scc[j] == scc[i] {
				size[i]++
			}
		}
		best = max(best, size[i])
	}
	for i := range n {
		if size[i] != best {
			continue
		}
		for j := i; j < n; j++ {
			if scc[j] == scc[i] {
				out[bases[j]] = true
			}
		}
	}
}

// differentRooms reports whether cells a and b count as far apart for a
// box leaving at a base (Festival's boxes_in_different_rooms).
func (lv *level) differentRooms(a, b int) bool {
	if lv.walking(a, b) >= bigDistance {
		return true
	}
	r := lv.rooms
	r1, r2 := r.of[a], r.of[b]
	if r1 >= 0 && r2 >= 0 && r1 != r2 {
		return true
	}
	if r1 != r2 {
		if r1 >= 0 && int(r1) < len(r.withCorridors) && r.withCorridors[r1][b] {
			return false
		}
		if r2 >= 0 && int(r2) < len(r.withCorridors) && r.withCorridors[r2][a] {
			return false
		}
		if a/lv.w != b/lv.w && a%lv.w != b%lv.w {
			return true
		}
	}
	return false
}
