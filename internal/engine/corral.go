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
// The argument holds for any set of boxes closed in this way, so a box
// outside K that blocks a K box's push (in its way, or on its player's
// side) is taken into K, with the unreachable regions around it, and the
// rule checked again (at most maxCorralJoins times); YASS does the same.
// It also holds for every PI-corral at once: each one's pushes can start
// some shortest solution. So a PI-corral whose inward pushes all leave a
// box frozen off a goal (or break a deadlock table) makes the position a
// deadlock, whichever corral the expansion would have used. Among the
// PI-corrals left, the one with the fewest pushes is used.
//
// Two more deadlock tests look at corrals the rule rejects (with
// TechCorralDeadlocks on): lockedCorral, a plain unreachable region whose
// boxes cannot make a first push that does not freeze them, and the corral
// sub-search (subsearch.go), whose boxes alone on the board cannot all
// reach goals. Both reason about the corral's boxes only, so they hold
// whatever the other boxes do, and what they prove is kept (learned.go).
// The sub-search runs on a plain region's own boxes, on a merged corral's
// own boxes, and on those with the outside boxes that joined: the joined
// boxes, and the regions merged in, can be what lets the player in, so the
// smaller sets are dead more often. A PI-corral left with no push is kept
// too (learnNoPush), after a check with its boxes alone on the board.

// piCorral looks for a PI-corral in the current position, whose player
// region is stamped with gen (normalised square pnorm). It returns whether
// one was found; the pushes to expand are then in s.cmoves (possibly none:
// a deadlock).
func (s *searcher) piCorral(gen uint32, pnorm uint16) bool {
	// Plain regions first: one that is locked makes the position dead.
	first := s.gen + 1
	for _, b := range s.boxes {
		if !s.corralDeadlocks {
			break
		}
		if s.boxMark[b] != gen {
			continue
		}
		for d := 0; d < 4; d++ {
			n := s.nbr[int(b)*4+d]
			if s.boxAt[n] != -1 || s.stamp[n] == gen || (s.cmark[n] >= first && s.cmark[n] <= s.gen) {
				continue
			}
			if s.lockedCorral(n, gen) {
				if s.onCorralDead != nil {
					s.onCorralDead(s.kbox, s.player)
				}
				s.learnLocked()
				s.lockedDead++
				s.cmoves = s.cmoves[:0]
				return true
			}
			// The region's own boxes may be unable to let the player in
			// even alone on the board, which the merged corral below,
			// with more boxes, does not show.
			if k := s.kbox[:s.kregion]; s.sub != nil && len(k) <= maxQuickK && s.sub.deadlocked(k, s.player, pnorm, s.subInside(n), quickLimit) {
				if s.onCorralDead != nil {
					s.onCorralDead(k, s.player)
				}
				s.learnSub(k, pnorm)
				s.cmoves = s.cmoves[:0]
				return true
			}
		}
	}
	first = s.gen + 1 // every corral flood below uses a newer generation
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
			s.kplain = append(s.kplain[:0], s.kbox...)
			moves, ok := s.checkCorral(gen, cg)
			if !ok || len(s.kbox) > len(s.kplain) {
				// No PI-corral, or one only with outside boxes joined;
				// but the corral's boxes may be unable to get out even
				// on their own: its own boxes first (the boxes that
				// joined may be what lets the player in), then with
				// those that joined.
				if k, dead := s.subDeadlocked(n, pnorm, ok); dead {
					if s.onCorralDead != nil {
						s.onCorralDead(k, s.player)
					}
					s.learnSub(k, pnorm)
					s.cmoves = s.cmoves[:0]
					return true
				}
				if !ok {
					continue
				}
			}
			// Every solution can start with one of this corral's pushes,
			// whichever other corrals there are: with none of them alive,
			// the position is dead.
			if s.corralDeadlocks && moves > 0 && s.dropDeadPushes() == 0 {
				s.learnNoPush(pnorm)
				s.cmoves = s.cmoves[:0]
				return true
			}
			if !found || len(s.cscratch) < best {
				found, best = true, len(s.cscratch)
				s.cmoves = append(s.cmoves[:0], s.cscratch...)
				s.kbest, s.kin = append(s.kbest[:0], s.kbox...), n
				if best == 0 {
					if s.corralDeadlocks {
						s.learnNoPush(pnorm)
					}
					return true
				}
			}
		}
	}
	return found
}

// hindsight looks again at a position whose PI-corral pushes a deadlock
// test all pruned (YASS's hindsight deadlocks): the position is dead, and
// often by the corral's boxes alone, which the full sub-search can prove
// and then keep as a learned deadlock. pnorm is the position's normalised
// player square.
func (s *searcher) hindsight(pnorm uint16) {
	if s.sub == nil || len(s.kbest) > s.subK() {
		return
	}
	if s.sub.deadlocked(s.kbest, s.player, pnorm, s.subInside(s.kin), subLimit) {
		s.learnSub(s.kbest, pnorm)
	}
}

// subDeadlocked runs the corral sub-search (subsearch.go) on the boxes of
// the corral around square inside: on its own boxes s.kplain, then on
// s.kbox when outside boxes joined. It returns the boxes proved dead.
func (s *searcher) subDeadlocked(inside, pnorm uint16, pi bool) ([]uint16, bool) {
	if s.sub == nil {
		return nil, false
	}
	inside, maxK := s.subInside(inside), s.subK()
	if len(s.kplain) <= maxK && s.sub.deadlocked(s.kplain, s.player, pnorm, inside, subLimit) {
		return s.kplain, true
	}
	if !pi && len(s.kbox) > len(s.kplain) && len(s.kbox) <= maxK && s.sub.deadlocked(s.kbox, s.player, pnorm, inside, subLimit) {
		return s.kbox, true
	}
	return nil, false
}

// subAffordable reports whether the corral sub-searches (subsearch.go)
// have expanded at most subAllowance positions more than the search has.
// Within that budget they follow the player into the corral and take
// corrals of up to maxSubK boxes, which proves many more corrals dead; past
// it they stop where the player gets in and take at most cheapSubK boxes,
// so that they cost no more than the search itself where few corrals are
// dead.
func (s *searcher) subAffordable() bool {
	return s.sub.work <= s.nodes+subAllowance
}

// subInside returns the square whose reaching by the player ends a corral
// sub-search, given sq, a square of the corral: the wall, which the player
// never reaches, while the sub-searches are affordable.
func (s *searcher) subInside(sq uint16) uint16 {
	if s.subAffordable() {
		return s.wall
	}
	return sq
}

// subK returns the most boxes a corral sub-search takes now.
func (s *searcher) subK() int {
	if s.subAffordable() {
		return maxSubK
	}
	return cheapSubK
}

// subAllowance is the sub-search positions allowed beyond the search's
// expansions, so that a search starts out following the player into
// corrals.
const subAllowance = 20000

// learnLocked keeps the deadlock lockedCorral has just found: its boxes
// s.kbox with the player outside its region s.queue[:s.cregion], when a box
// of K is off its goal (an empty goal in the region alone proves nothing
// for a position with another box there).
func (s *searcher) learnLocked() {
	off := false
	for _, b := range s.kbox {
		off = off || s.goals[b] < 0
	}
	if off {
		s.learnSet(s.kbox, s.queue[:s.cregion])
	}
}

// learnSub keeps the deadlock the corral sub-search has just proved for
// the boxes k with the player where it stands: it holds wherever the player
// stands among the squares it reaches with k's boxes alone on the board.
// First it drops boxes while the sub-search still proves the rest dead, as
// a SAT solver minimises a learned clause: a corral's boxes often include
// some its deadlock does not need, and a smaller set holds in more
// positions. pnorm is the position's normalised player square.
func (s *searcher) learnSub(k []uint16, pnorm uint16) {
	k = reduceSet(append(s.kred[:0], k...), func(k []uint16) bool {
		return s.sub.deadlocked(k, s.player, pnorm, s.wall, subLimit)
	})
	s.learnSet(k, s.sub.outside(k, s.player, s.lcorral[:0]))
}

// reduceSet drops boxes from k, in place, each tried once in turn, while
// dead still holds for the rest, and returns what is left (at least one
// box): the learned sets' minimisation, for learnSub and learnNoPush.
func reduceSet(k []uint16, dead func([]uint16) bool) []uint16 {
	for i := 0; i < len(k) && len(k) > 1; {
		k[i], k[len(k)-1] = k[len(k)-1], k[i]
		if dead(k[:len(k)-1]) {
			k = k[:len(k)-1]
			continue
		}
		k[i], k[len(k)-1] = k[len(k)-1], k[i]
		i++
	}
	return k
}

// learnSet adds boxes k with the player outside corral c to the learned
// deadlocks.
func (s *searcher) learnSet(k, c []uint16) {
	var key uint64
	for _, sq := range k {
		key ^= s.zbox[sq]
	}
	for _, sq := range c {
		key ^= s.zpl[sq] * 0x9E3779B97F4A7C15
	}
	s.learned.learn(k, c, key)
}

// lockedCorral reports whether the unreachable region around sq is a
// deadlock by itself: its boxes K (those next to it) need work, and the
// first push of any of them either cannot happen before another K box has
// moved (a wall, a K box or the region on its player's side; a wall or a K
// box in its way), or pushes onto a dead square, or pushes into the region
// and leaves the boxes frozen with K's boxes alone as blockers (so whatever
// the other boxes do first). The region is the plain one, not merged with
// its neighbours, so this holds where the PI-corral rule (which needs the
// merged corral) does not apply.
func (s *searcher) lockedCorral(sq uint16, gen uint32) bool {
	cg := s.nextGen()
	q := s.queue
	s.kbox = s.kbox[:0]
	s.cmark[sq] = cg
	q[0] = sq
	tail := 1
	need := false
	for head := 0; head < tail; head++ {
		c := q[head]
		if s.goals[c] >= 0 {
			need = true
		}
		for _, m := range s.nbr[int(c)*4 : int(c)*4+4 : int(c)*4+4] {
			if s.cmark[m] == cg {
				continue
			}
			switch v := s.boxAt[m]; {
			case v == -1:
				s.cmark[m] = cg
				q[tail] = m
				tail++
			case v >= 0:
				s.cmark[m] = cg
				s.kbox = append(s.kbox, m)
				if s.goals[m] < 0 {
					need = true
				}
			}
		}
	}
	s.kregion, s.cregion = len(s.kbox), tail
	if !need {
		return false
	}
	// A box outside K that blocks a K push (in its way, or on its
	// player's side) joins K: the argument holds for any set of boxes.
	for joins := 0; ; joins++ {
		blocker, locked := s.lockedRule(cg)
		if locked {
			return true
		}
		if blocker == noSquare || joins == maxCorralJoins {
			return false
		}
		s.cmark[blocker] = cg
		s.kbox = append(s.kbox, blocker)
	}
}

// lockedRule checks lockedCorral's rule for the region and boxes marked cg.
// When it fails because of a box outside K, blocker is that box's square.
func (s *searcher) lockedRule(cg uint32) (blocker uint16, locked bool) {
	for _, b := range s.kbox {
		for d := uint8(0); d < 4; d++ {
			p := s.nbr[int(b)*4+int(d^2)]
			t := s.nbr[int(b)*4+int(d)]
			inK := func(x uint16) bool { return s.boxAt[x] >= 0 && s.cmark[x] == cg }
			switch {
			case p == s.wall || t == s.wall || s.cmark[p] == cg || inK(t):
				continue // not before a K box has moved (p in C or K)
			case s.b.Dead[t]:
				continue
			case s.boxAt[t] >= 0:
				return t, false // in the way until it moves
			case s.cmark[t] != cg:
				if s.boxAt[p] >= 0 {
					return p, false // the box may leave once p's box moves
				}
				return noSquare, false // the box may leave
			}
			// Into the region: dead when it freezes K.
			if !s.freezesAmong(b, t, cg) {
				return noSquare, false
			}
		}
	}
	return noSquare, true
}

// dropDeadPushes removes from s.cscratch the pushes after which the pushed
// box is frozen off a goal or breaks a deadlock table, and returns how many
// are left.
func (s *searcher) dropDeadPushes() int {
	kept := s.cscratch[:0]
	for _, p := range s.cscratch {
		i := int(s.boxAt[p.from])
		to := s.nbr[int(p.from)*4+int(p.dir)]
		s.moveBox(i, p.from, to)
		dead := s.freezeDeadlock(to)
		if !dead && s.cnt != nil {
			if k := s.cnt.violated(p.from, to, p.dir); k >= 0 {
				s.cnt.pruned(s.cnt.owner[k]) // no proof rests on it then
				dead = true
			}
		}
		s.moveBox(i, to, p.from)
		if !dead {
			kept = append(kept, p)
		}
	}
	s.cscratch = kept
	return len(kept)
}

// floodCorral marks with cg the unreachable region around sq, closed under
// adjacency through boxes, and collects the corral boxes in s.kbox. It
// reports whether the corral needs work.
func (s *searcher) floodCorral(sq uint16, gen, cg uint32) bool {
	s.kbox = s.kbox[:0]
	s.cneed = false
	s.cmark[sq] = cg
	s.queue[0] = sq
	s.growCorral(1, gen, cg)
	return s.cneed
}

// joinCorral adds the box on m, outside the corral marked cg, to its boxes,
// and the unreachable regions around it (and the boxes around those) to it.
func (s *searcher) joinCorral(m uint16, gen, cg uint32) {
	s.growCorral(s.addCorralBox(m, 0, gen, cg), gen, cg)
}

// addCorralBox adds the box on m to K and queues its unreachable free
// neighbours from s.queue[tail]; it returns the new tail.
func (s *searcher) addCorralBox(m uint16, tail int, gen, cg uint32) int {
	s.cmark[m] = cg
	s.kbox = append(s.kbox, m)
	if s.goals[m] < 0 {
		s.cneed = true
	}
	for _, o := range s.nbr[int(m)*4 : int(m)*4+4 : int(m)*4+4] {
		if s.boxAt[o] == -1 && s.stamp[o] != gen && s.cmark[o] != cg {
			s.cmark[o] = cg
			s.queue[tail] = o
			tail++
		}
	}
	return tail
}

// growCorral floods the corral marked cg from the squares s.queue[:tail],
// already marked: unreachable free squares join C, boxes next to C join K.
func (s *searcher) growCorral(tail int, gen, cg uint32) {
	q := s.queue
	for head := 0; head < tail; head++ {
		c := q[head]
		if s.goals[c] >= 0 {
			s.cneed = true // an empty goal in C
		}
		for _, m := range s.nbr[int(c)*4 : int(c)*4+4 : int(c)*4+4] {
			if s.cmark[m] == cg {
				continue
			}
			switch v := s.boxAt[m]; {
			case v == -1 && s.stamp[m] != gen:
				s.cmark[m] = cg
				q[tail] = m
				tail++
			case v >= 0:
				// A box next to C: it joins K, and the unreachable
				// squares around it join C.
				tail = s.addCorralBox(m, tail, gen, cg)
			}
		}
	}
}

// maxCorralJoins bounds how many outside boxes one corral check takes in.
const maxCorralJoins = 8

// checkCorral applies the rule to the corral marked cg and collects its
// available inward pushes in s.cscratch. A box outside K that blocks a K
// box's push (on its player side or its target) is taken into K, with the
// unreachable regions around it, and the rule is checked again: the
// argument above holds for any closed set of boxes.
func (s *searcher) checkCorral(gen, cg uint32) (int, bool) {
	for joins := 0; ; joins++ {
		blocker, ok := s.corralRule(gen, cg)
		if ok {
			return len(s.cscratch), true
		}
		if blocker == noSquare || joins == maxCorralJoins || !s.corralDeadlocks {
			return 0, false
		}
		s.joinCorral(blocker, gen, cg)
	}
}

// corralRule checks the rule once. When it fails because of a box outside
// K, blocker is that box's square, else noSquare.
func (s *searcher) corralRule(gen, cg uint32) (blocker uint16, ok bool) {
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
			t := s.nbr[int(b)*4+int(d)]
			tv := s.boxAt[t]
			switch {
			case tv == -2 || s.b.Dead[t]:
				continue
			case tv >= 0 && s.cmark[t] == cg:
				continue
			case pv >= 0:
				return p, false // a box outside K on the player's side
			case tv == -1 && s.cmark[t] == cg:
				s.cscratch = append(s.cscratch, push{from: b, dir: d})
				continue
			case tv >= 0:
				return t, false // a box outside K in the way
			}
			return noSquare, false
		}
	}
	return noSquare, true
}

// learnNoPush keeps the deadlock of a PI-corral none of whose boxes K has a
// push left that does not freeze a box off a goal (YASS's "no legal
// pushes" deadlocks). With K's boxes alone on the board the player may
// reach more, so the set is checked again there (noPush), and boxes are
// dropped while it still holds, for a set that more positions hold. It is
// a deadlock wherever K's boxes stand and the player is outside their
// corral, some box of K being off its goal: before a box of K moves the
// player cannot get into the corral, and whatever the other boxes did,
// every first push of a K box is one noPush rejected (other boxes only
// freeze more). pnorm is the position's normalised player square.
func (s *searcher) learnNoPush(pnorm uint16) {
	key := s.zpl[pnorm]
	for _, b := range s.kbox {
		key ^= s.zbox[b]
	}
	slot := &s.noPushTried[key&(noPushTried-1)]
	if *slot == key {
		return
	}
	*slot = key
	k := append(s.kred[:0], s.kbox...)
	if !s.noPush(k) || !s.offGoal(k) {
		return
	}
	k = reduceSet(k, func(k []uint16) bool { return s.noPush(k) && s.offGoal(k) })
	c := s.sub.outside(k, s.player, s.lcorral[:0])
	if s.onNoPushDead != nil {
		s.onNoPushDead(k, c)
	}
	s.learnSet(k, c)
}

// noPushTried is the slots of the cache of the corrals learnNoPush has
// tried: a dead corral comes back in positions queued before it was
// learned.
const noPushTried = 1 << 12

// offGoal reports whether a box on one of the squares k is off its goal.
func (s *searcher) offGoal(k []uint16) bool {
	for _, b := range k {
		if s.goals[b] < 0 {
			return true
		}
	}
	return false
}

// noPush reports whether, with only the boxes on squares k on the board,
// no box of k has a push from the player's region onto a square that is
// not dead and that leaves no box off a goal frozen. A box outside k on the
// target counts as a possible push (it cannot be tested in place).
func (s *searcher) noPush(k []uint16) bool {
	cg := s.nextGen()
	for _, b := range k {
		s.cmark[b] = cg
	}
	rg := s.nextGen()
	q := s.queue
	s.cstamp[s.player] = rg
	q[0] = s.player
	for head, tail := 0, 1; head < tail; head++ {
		c := int(q[head]) * 4
		for _, m := range s.nbr[c : c+4 : c+4] {
			if s.cstamp[m] == rg || s.boxAt[m] == -2 || (s.boxAt[m] >= 0 && s.cmark[m] == cg) {
				continue
			}
			s.cstamp[m] = rg
			q[tail] = m
			tail++
		}
	}
	for _, b := range k {
		for d := 0; d < 4; d++ {
			p, t := s.nbr[int(b)*4+(d^2)], s.nbr[int(b)*4+d]
			if s.cstamp[p] != rg || s.boxAt[t] == -2 || s.b.Dead[t] || (s.boxAt[t] >= 0 && s.cmark[t] == cg) {
				continue
			}
			if s.boxAt[t] >= 0 {
				return false
			}
			if !s.freezesAmong(b, t, cg) {
				return false
			}
		}
	}
	return true
}

// freezesAmong reports whether pushing the box on b to the free square t
// leaves a box off a goal frozen, the freeze test counting as blockers
// only the boxes cmark marks with cg, and the pushed box.
func (s *searcher) freezesAmong(b, t uint16, cg uint32) bool {
	i := int(s.boxAt[b])
	mark := s.cmark[t]
	s.moveBox(i, b, t)
	s.cmark[t] = cg
	s.fOnly = cg
	frozen := s.freezeDeadlock(t)
	s.fOnly = 0
	s.cmark[t] = mark
	s.moveBox(i, t, b)
	return frozen
}
