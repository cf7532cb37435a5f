package engine

// PI-corral pruning.
//
// A corral is a set C of free squares the player cannot reach, together
// with the boxes K adjacent to C (its corral boxes). C starts as one
// unreachable region and is closed under "every unreachable region next to
// a box of K belongs to C" (combined corrals), so every free neighbour of a
// K box is either reachable (R) or in C, and the player can enter C only
// after some K box has moved.
//
// The rule, checked for every K box b and direction d, with the player side
// p = b-d and the target t = b+d:
//
//   - p a wall, in C, or a K box: the push cannot happen before some K box
//     has moved. Fine.
//   - t a wall, a dead square, or a K box: the push cannot happen (or is in
//     no solution) before some K box has moved. Fine.
//   - t in C with p reachable now: an inward push, available now. Fine.
//   - anything else (t reachable, t a box outside K, or p a box outside K
//     that could move away first): the corral is rejected.
//
// If the corral also needs work (a K box off its goal, or an empty goal in
// C, which only a K box can fill), every solution pushes some K box. Take
// the first such push in a shortest solution: by the rule it is one of the
// inward pushes available now, and the pushes before it never touch C, K,
// or the push's squares, so they stay legal when it is made first. Hence
// some shortest solution starts with an available inward push of a K box,
// and expanding only those pushes keeps completeness and push-optimality.
// With no such push available the position is a deadlock.
//
// Among several such corrals the one with the fewest pushes is used.

// piCorral looks for a PI-corral in the current position, whose player
// region is stamped with gen. It returns whether one was found; the pushes
// to expand are then in s.cmoves (possibly none: a deadlock).
func (s *searcher) piCorral(gen uint32) bool {
	first := s.gen + 1 // every corral flood below uses a newer generation
	found := false
	best := 0
	for _, b := range s.boxes {
		if s.boxMark[b] != gen {
			continue // only corrals next to a reachable box can pass the rule
		}
		for d := 0; d < 4; d++ {
			n := s.nbr[int(b)*4+d]
			if s.boxAt[n] != -1 || s.stamp[n] == gen || (s.cmark[n] >= first && s.cmark[n] <= s.gen) {
				continue // wall, box, reachable, or already in a corral
			}
			cg := s.nextGen()
			if !s.floodCorral(n, gen, cg) {
				continue
			}
			if moves, ok := s.checkCorral(gen, cg); ok && (!found || moves < best) {
				found, best = true, moves
				s.cmoves = append(s.cmoves[:0], s.cscratch...)
				if best == 0 {
					return true
				}
			}
		}
	}
	return found
}

// floodCorral marks with cg the unreachable region around sq, closed under
// adjacency through boxes, and collects the corral boxes in s.kbox. It
// reports whether the corral needs work.
func (s *searcher) floodCorral(sq uint16, gen, cg uint32) bool {
	q := s.queue
	s.kbox = s.kbox[:0]
	s.cmark[sq] = cg
	q[0] = sq
	head, tail := 0, 1
	needed := false
	for head < tail {
		c := q[head]
		head++
		if s.goals[c] >= 0 {
			needed = true // an empty goal in C
		}
		for _, m := range s.nbr[int(c)*4 : int(c)*4+4 : int(c)*4+4] {
			if s.cmark[m] == cg {
				continue
			}
			v := s.boxAt[m]
			if v == -2 {
				continue
			}
			if v == -1 {
				if s.stamp[m] != gen {
					s.cmark[m] = cg
					q[tail] = m
					tail++
				}
				continue
			}
			// A box next to C: it joins K, and the unreachable squares
			// around it join C.
			s.cmark[m] = cg
			s.kbox = append(s.kbox, m)
			if s.goals[m] < 0 {
				needed = true
			}
			for _, o := range s.nbr[int(m)*4 : int(m)*4+4 : int(m)*4+4] {
				if s.boxAt[o] == -1 && s.stamp[o] != gen && s.cmark[o] != cg {
					s.cmark[o] = cg
					q[tail] = o
					tail++
				}
			}
		}
	}
	return needed
}

// checkCorral applies the rule to the corral marked cg and collects its
// available inward pushes in s.cscratch.
func (s *searcher) checkCorral(gen, cg uint32) (int, bool) {
	s.cscratch = s.cscratch[:0]
	for _, b := range s.kbox {
		for d := uint8(0); d < 4; d++ {
			p := s.nbr[int(b)*4+int(d^2)]
			pv := s.boxAt[p]
			switch {
			case pv == -2: // wall
				continue
			case pv >= 0 && s.cmark[p] == cg: // a K box
				continue
			case pv == -1 && s.stamp[p] != gen: // in C
				continue
			}
			pReach := pv == -1 // else a box outside K
			t := s.nbr[int(b)*4+int(d)]
			tv := s.boxAt[t]
			switch {
			case tv == -2 || s.b.Dead[t]:
				continue
			case tv >= 0 && s.cmark[t] == cg:
				continue
			case tv == -1 && s.cmark[t] == cg && pReach:
				s.cscratch = append(s.cscratch, push{from: b, dir: d})
				continue
			}
			return 0, false
		}
	}
	return len(s.cscratch), true
}
