package fess

// advisors are the children each advisor proposes, -1 for none (Festival's
// advisors_element; imagine, which strategy A does not use, is left out).
// An advised move costs 0 in the tree, every other 1.
type advisors struct {
	pack, connectivity, rooms, hotspots, opener, outOfPlan, explorer int32
}

func noAdvice() advisors { return advisors{-1, -1, -1, -1, -1, -1, -1} }

// has reports whether some advisor proposes child i.
func (a *advisors) has(i int32) bool {
	return a.pack == i || a.connectivity == i || a.rooms == i || a.hotspots == i || a.opener == i || a.outOfPlan == i || a.explorer == i
}

// criterion is what choose improves.
type criterion int

const (
	byPacked criterion = iota
	byConnectivity
	byRooms
	byHotspots
)

// choose returns the best child (by score) among those that improve
// crit and lose no packing (Festival's choose_advisor).
func choose(base *score, scores []score, crit criterion, pull bool) int32 {
	best := int32(-1)
	for i := range scores {
		s := &scores[i]
		if s.packed < base.packed {
			continue
		}
		switch crit {
		case byPacked:
			if s.packed <= base.packed {
				continue
			}
		case byConnectivity:
			if s.connectivity >= base.connectivity {
				continue
			}
		case byRooms:
			if s.rooms >= base.rooms {
				continue
			}
		case byHotspots:
			if s.hotspots >= base.hotspots {
				continue
			}
		}
		if best < 0 || better(s, &scores[best], pull) {
			best = int32(i)
		}
	}
	return best
}

// advise sets the advisors of a position g with score base, whose moves
// lead to positions scored scores.
func (s *search) advise(g grid, base *score, moves []move, scores []score) advisors {
	a := noAdvice()
	if s.pull {
		for i := range moves {
			if moves[i].base {
				// A box that can leave the board goes first, and alone.
				a.pack = s.pullPackerBase(g, moves)
				return a
			}
		}
		a.pack = s.pullPacker(g, base, moves, scores)
		a.connectivity = choose(base, scores, byConnectivity, true)
		a.rooms = choose(base, scores, byRooms, true)
		a.explorer = s.explorer(g, base, moves, scores)
		return a
	}
	a.pack = choose(base, scores, byPacked, false)
	a.connectivity = choose(base, scores, byConnectivity, false)
	a.rooms = choose(base, scores, byRooms, false)
	a.hotspots = choose(base, scores, byHotspots, false)
	a.outOfPlan = s.oopAdvisor(base, moves, scores)
	a.opener = s.opener(g, base, moves, scores)
	a.explorer = s.explorer(g, base, moves, scores)
	return a
}

// explorer proposes the best move that lets the player at a new push (or
// pull) of a box that did not move, among the moves that lose no packing
// and, forwards, can be undone (Festival's explorer).
func (s *search) explorer(g grid, base *score, moves []move, scores []score) int32 {
	lv := s.lv
	best := int32(-1)
	c := s.scratch
	for i := range moves {
		m := &moves[i]
		if scores[i].packed < base.packed {
			continue
		}
		if !s.pull && lv.distance(int(m.to), int(m.from)) == inf {
			continue
		}
		copy(c, g)
		lv.apply(c, m, s.stack)
		if !s.newMoves(g, c) {
			continue
		}
		if best < 0 || better(&scores[i], &scores[best], s.pull) {
			best = int32(i)
		}
	}
	return best
}

// newMoves reports whether in c the player reaches a side of a box that
// stands in both g and c, unreachable in g, from which it can push (pull)
// the box (Festival's are_new_moves).
func (s *search) newMoves(g, c grid) bool {
	lv := s.lv
	for _, x := range lv.cell {
		if g[x]&box == 0 || c[x]&box == 0 {
			continue
		}
		for _, d := range lv.d4 {
			p := int(x) + d
			if g[p]&(player|box) != 0 || c[p]&player == 0 {
				continue
			}
			if s.pull {
				if c[p+d]&occupied == 0 {
					return true
				}
			} else if c[int(x)-d]&occupied == 0 {
				return true
			}
		}
	}
	return false
}

// opener proposes, when no move packs, the move that starts nearest the
// next step's square and takes its box no nearer, the farthest among
// equals, losing no packing and adding no region or cut room (Festival's
// pick_opener).
func (s *search) opener(g grid, base *score, moves []move, scores []score) int32 {
	for i := range scores {
		if scores[i].packed > base.packed {
			return -1
		}
	}
	next := s.plan.next(g)
	if next < 0 {
		return -1
	}
	lv := s.lv
	best := int32(-1)
	minFrom, maxTo := int32(inf), int32(0)
	for i := range moves {
		sc := &scores[i]
		if sc.packed < base.packed || sc.connectivity > base.connectivity || sc.rooms > base.rooms {
			continue
		}
		d1 := lv.walking(int(next), int(moves[i].from))
		d2 := lv.walking(int(next), int(moves[i].to))
		if d2 < d1 || d1 > minFrom {
			continue
		}
		if d1 < minFrom {
			minFrom, maxTo, best = d1, d2, int32(i)
			continue
		}
		if d2 > maxTo {
			maxTo, best = d2, int32(i)
		}
	}
	return best
}

// oopAdvisor proposes the reversible move of the box nearest the
// out-of-plan zone that takes it farthest away, among the moves that add
// no region, cut room or box out of plan and lose no packing (Festival's
// new_oop_advisor).
func (s *search) oopAdvisor(base *score, moves []move, scores []score) int32 {
	if base.outOfPlan == 0 || int(base.packed) >= len(s.plan.dist) || s.plan.dist[base.packed] == nil {
		return -1
	}
	lv := s.lv
	dist := s.plan.dist[base.packed]
	best := int32(-1)
	minFrom, maxTo := int32(inf), int32(-1)
	for i := range moves {
		sc := &scores[i]
		if sc.connectivity > base.connectivity || sc.rooms > base.rooms || sc.outOfPlan > base.outOfPlan || sc.packed < base.packed {
			continue
		}
		from, to := int(moves[i].from), int(moves[i].to)
		if lv.distance(to, from) == inf {
			continue
		}
		df, dt := dist[from], dist[to]
		if df == inf || dt == inf || dt <= df || df > minFrom {
			continue
		}
		if df < minFrom {
			minFrom, maxTo, best = df, dt, int32(i)
		}
		if df == minFrom && dt > maxTo {
			maxTo, best = dt, int32(i)
		}
	}
	return best
}

// pullCandidate ranks a pull of the base search's packing advisor.
type pullCandidate struct {
	hole, kill, connectivity, rooms, length int32
}

// betterPull reports whether b is a better pull than a (Festival's
// is_better_pull_candidate).
func betterPull(a, b *pullCandidate) bool {
	switch {
	case b.hole != a.hole:
		return b.hole < a.hole
	case b.kill != a.kill:
		return b.kill > a.kill
	case b.connectivity != a.connectivity:
		return b.connectivity < a.connectivity
	case b.rooms != a.rooms:
		return b.rooms < a.rooms
	}
	return b.length > a.length
}

// pullPacker is the base search's packing advisor when no box can leave:
// a pull of a box off a target, away from the targets, that adds no
// region or cut room; holes last, then pulls to the kill square, fewer
// regions and rooms cut, longer pulls (Festival's
// pick_pull_advisor_normal).
func (s *search) pullPacker(g grid, base *score, moves []move, scores []score) int32 {
	lv := s.lv
	kill := s.killSquare(g)
	best := int32(-1)
	bp := pullCandidate{hole: 2, kill: -1}
	for i := range moves {
		sc := &scores[i]
		m := &moves[i]
		if sc.connectivity > base.connectivity || sc.rooms > base.rooms || sc.dist <= base.dist || g[m.from]&target == 0 {
			continue
		}
		cur := pullCandidate{connectivity: sc.connectivity, rooms: sc.rooms, length: lv.distance(int(m.to), int(m.from))}
		if int(m.to) == kill {
			cur.kill = 1
		}
		if lv.targetHole[m.from] {
			cur.hole = 1
		}
		if betterPull(&bp, &cur) {
			best, bp = int32(i), cur
		}
	}
	return best
}

// killSquare returns Festival's kill zone of g: the first inner cell
// that is walked six or more from every square of the bases' largest
// group and that a box can be pushed to from one of them, or -1.
func (s *search) killSquare(g grid) int {
	lv := s.lv
	scc := s.scc
	lv.basesSCC(g, scc)
	first := -1
	for _, c := range lv.cell {
		far := true
		for _, x := range lv.cell {
			if scc[x] && lv.walking(int(c), int(x)) < bigDistance {
				far = false
				break
			}
		}
		if far {
			first = int(c)
			break
		}
	}
	if first < 0 {
		return -1
	}
	w := make(grid, len(g))
	for i, v := range g {
		w[i] = v
		if v&box != 0 {
			w[i] = wall
		}
	}
	if !lv.targetsOf(w, scc)[first] {
		return -1
	}
	return first
}

// pullPackerBase picks among the moves that take a box off the board: a
// box not on a target that the player cannot reach around ("floater")
// first, else the pull from a non-hole that leaves the fewest regions,
// the longest walk first (Festival's find_best_base_pull).
func (s *search) pullPackerBase(g grid, moves []move) int32 {
	lv := s.lv
	for i := range moves {
		if moves[i].base && g[moves[i].from] == box {
			return int32(i)
		}
	}
	best := int32(-1)
	var bh, bc, bd int32
	c := s.scratch
	for i := range moves {
		m := &moves[i]
		if !m.base {
			continue
		}
		hole := int32(0)
		if lv.targetHole[m.from] {
			hole = 1
		}
		copy(c, g)
		c[m.from] &^= box
		c[m.to] |= box
		conn := lv.connectivity(c, s.sc.mark, &s.sc.gen, s.stack)
		d := lv.walking(int(m.to), int(m.from))
		if best < 0 || hole < bh || hole == bh && (conn < bc || conn == bc && d > bd) {
			best, bh, bc, bd = int32(i), hole, conn, d
		}
	}
	return best
}
