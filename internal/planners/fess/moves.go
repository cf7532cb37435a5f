package fess

// maxMoves bounds the moves of one position (Festival's MAX_MOVES, less
// a board's worth): past it the rest are not generated.
const maxMoves = 11000

// mover generates the macro moves of positions, forwards (pushes) or
// backwards (pulls), with Festival's pruning: fixed boxes are walls, a
// PI-corral restricts the moves to its fence, and a move that leaves its
// box in a local deadlock or where no solution needs it is dropped.
type mover struct {
	lv   *level
	pull bool
	// bases is set in the base search: boxes may leave the board at the
	// squares they start on.
	bases bool
	// lenient switches off the corral restriction and the inefficiency
	// test, as Festival does once a search has met the perimeter.
	lenient bool
	// planned marks the squares the plan uses, where a box may always
	// rest; nil for none.
	planned []bool

	corrals *corrals
	options []bool
	// possible marks the cells a box may be moved to in this position.
	possible []bool
	// now is Festival's current_impossible_board for the box moved.
	now     []bool
	blocked []bool
	// The box search: per vertex (inner*4+side) its weight and source.
	weight, src []int32
	cur, next   []int32
	// Boards: fixed is the position with fixed boxes walled, work the
	// box search's, test the moves' tests', scratch their scratch.
	fixed, work, test, scratch, scratch2 grid
	stack                                []int32
	moves                                []move
	valid                                []bool
	// possibleFor caches possible in the base search, which depends only
	// on the bases still open.
	possibleFor uint64
	possibleOK  bool
	sinks       *sinks
	// stop, when set, tells a generation to end early: the search is
	// over, and a position of hundreds of boxes takes a while.
	stop func() bool
}

// stopped reports whether the generation should end now.
func (m *mover) stopped() bool { return m.stop != nil && m.stop() }

func newMover(lv *level, pull, bases bool) *mover {
	n, cells := lv.n(), len(lv.start)
	m := &mover{lv: lv, pull: pull, bases: bases, corrals: newCorrals(lv), options: make([]bool, cells),
		possible: make([]bool, cells), now: make([]bool, cells), blocked: make([]bool, cells),
		weight: make([]int32, 4*n), src: make([]int32, 4*n),
		fixed: make(grid, cells), work: make(grid, cells), test: make(grid, cells), scratch: make(grid, cells), scratch2: make(grid, cells)}
	if bases {
		m.sinks = newSinks(lv)
	}
	return m
}

// generate returns the moves of g, and whether it has a PI-corral (which
// restricted them). The slice is reused by the next call.
func (m *mover) generate(g grid) (moves []move, corral bool) {
	lv := m.lv
	b := g
	if !m.pull {
		lv.wallFixed(g, m.fixed, m.scratch)
		b = m.fixed
	}
	m.possibleCells(b)
	if !m.pull && !m.lenient {
		corral = m.corrals.detect(b, m.options)
	}
	m.moves = m.moves[:0]
	for i, c := range lv.cell {
		if i%64 == 63 && m.stopped() {
			break
		}
		if corral && !m.options[c] {
			continue
		}
		if b[c]&box == 0 || !m.canMove(b, int(c)) {
			continue
		}
		first := len(m.moves)
		m.boxMoves(b, int(c))
		m.moves = m.dropDeadlocked(b, m.moves, first)
		if len(m.moves) > maxMoves {
			break
		}
	}
	if m.bases {
		m.moves = m.sinks.mark(b, m.moves)
	}
	return m.moves, corral
}

// possibleCells sets possible: forwards, the cells from which a lone box
// reaches a target on b with its fixed boxes (Festival's
// get_srcs_of_all_targets); in the base search the cells a box can be
// pushed to from an open base; otherwise every inner cell.
func (m *mover) possibleCells(b grid) {
	lv := m.lv
	switch {
	case !m.pull:
		clear(m.possible)
		queue := m.stack[:0]
		for _, c := range lv.cell {
			if b[c]&target != 0 && b[c] != wall {
				m.possible[c] = true
				queue = append(queue, c)
			}
		}
		for h := 0; h < len(queue); h++ {
			c := int(queue[h])
			for _, d := range lv.d4 {
				x := c + d
				if b[x]&wall != 0 || b[x+d]&wall != 0 || m.possible[x] {
					continue
				}
				m.possible[x] = true
				queue = append(queue, int32(x))
			}
		}
		m.stack = queue
	case m.bases:
		var key uint64
		for _, c := range lv.cell {
			if b[c]&base != 0 {
				key ^= lv.zBase[c]
			}
		}
		if m.possibleOK && key == m.possibleFor {
			return
		}
		open := make([]bool, len(b))
		for _, c := range lv.cell {
			open[c] = b[c]&base != 0
		}
		copy(m.possible, lv.targetsOf(lv.empty(), open))
		m.possibleFor, m.possibleOK = key, true
	default:
		copy(m.possible, lv.inner)
	}
}

// canMove reports whether the box on c has a first push (pull) open
// (Festival's box_can_be_moved).
func (m *mover) canMove(b grid, c int) bool {
	lv := m.lv
	for k, d := range lv.d4 {
		if m.pull {
			if b[c+d]&player != 0 && b[c+2*d]&occupied == 0 {
				return true
			}
			continue
		}
		if b[c+d]&occupied != 0 || b[c-d]&player == 0 {
			continue
		}
		if !lv.deadlockInDirection(b, c, k) {
			return true
		}
	}
	return false
}

// impossibleNow sets now for the box on c: the level's impossible
// squares, walls made of fixed boxes, (forwards) the squares that would
// close a 2x2 block with the box gone from c, and the cells not possible.
func (m *mover) impossibleNow(b grid, c int) {
	lv := m.lv
	clear(m.now)
	for i, x := range lv.cell {
		m.now[x] = lv.impossible[i] || b[x] == wall || !m.possible[x]
	}
	if !m.pull {
		saved := b[c]
		b[c] &^= box
		lv.mark2x2(b, m.blocked)
		b[c] = saved
		for _, x := range lv.cell {
			if m.blocked[x] {
				m.now[x] = true
			}
		}
	}
}

// boxMoves appends the moves of the box on c: one per square and side the
// box reaches with a push (pull) last (Festival's mark_box_moves_in_graph
// and get_box_moves_from_graph).
func (m *mover) boxMoves(b grid, c int) {
	lv := m.lv
	m.impossibleNow(b, c)
	for v := range m.weight {
		m.weight[v] = inf
		m.src[v] = none
	}
	w := m.work
	copy(w, b)
	i0 := lv.idx[c]
	m.cur = m.cur[:0]
	for k, d := range lv.d4 {
		if w[c+d]&player != 0 {
			v := i0*4 + int32(k)
			m.weight[v] = 0
			m.cur = append(m.cur, v)
		}
	}
	w[c] &^= box
	for depth := int32(1); len(m.cur) > 0; depth++ {
		m.next = m.next[:0]
		for _, v := range m.cur {
			k := int(v & 3)
			bc := int(lv.cell[v>>2])
			d := lv.d4[k]
			var nb, np int
			if m.pull {
				nb, np = bc+d, bc+2*d
				if w[np]&occupied != 0 {
					continue
				}
			} else {
				nb, np = bc-d, bc
				if w[nb]&occupied != 0 {
					continue
				}
			}
			if m.now[nb] {
				continue
			}
			nv := lv.idx[nb]*4 + int32(k)
			if m.weight[nv] != inf {
				continue
			}
			m.weight[nv] = depth
			m.src[nv] = v
			m.next = append(m.next, nv)
			lv.clearPlayer(w)
			w[nb] |= box
			w[np] |= player
			lv.flood(w, append(m.stack[:0], int32(np)))
			for j, e := range lv.d4 {
				if w[nb+e]&player == 0 {
					continue
				}
				sv := lv.idx[nb]*4 + int32(j)
				if m.weight[sv] != inf {
					continue
				}
				m.weight[sv] = depth
				m.src[sv] = nv
				m.next = append(m.next, sv)
			}
			w[nb] &^= box
		}
		m.cur, m.next = m.next, m.cur
	}
	for i, x := range lv.cell {
		if m.now[x] {
			continue
		}
		for j := range 4 {
			v := int32(i)*4 + int32(j)
			if m.weight[v] == inf || m.weight[v] == 0 || m.src[v]>>2 == int32(i) {
				continue
			}
			m.moves = append(m.moves, move{from: int32(c), to: x, side: int8(j)})
		}
	}
}

// dropDeadlocked removes from moves[first:] those that leave their box in
// a deadlock the local tests see, or where it should not rest (Festival's
// check_deadlock_in_moves).
func (m *mover) dropDeadlocked(b grid, moves []move, first int) []move {
	lv := m.lv
	t := m.test
	out := moves[:first]
	for i := first; i < len(moves); i++ {
		if i%256 == 255 && m.stopped() {
			break
		}
		mv := moves[i]
		to := int(mv.to)
		if m.pull && m.bases && b[to]&base != 0 {
			// A box reaching a base is never pruned.
			copy(t, b)
			mv.norm = lv.apply(t, &mv, m.stack)
			out = append(out, mv)
			continue
		}
		if lv.impossible[lv.idx[to]] {
			continue
		}
		copy(t, b)
		if m.pull {
			for _, c := range lv.cell {
				t[c] &^= base
			}
		}
		mv.norm = lv.apply(t, &mv, m.stack)
		if !m.lenient && lv.inefficient(t, to, m.pull, m.planned) {
			continue
		}
		if m.pull {
			if !lv.hasPullContinuation(t) || lv.matchesPattern(t, to, true) {
				continue
			}
			if m.bases && !lv.baseMatched(t, b) {
				continue
			}
		} else if lv.freeze(t, to, m.scratch2) || lv.ring3x3(t, to) || lv.matchesPattern(t, to, false) {
			continue
		}
		out = append(out, mv)
	}
	return out
}
