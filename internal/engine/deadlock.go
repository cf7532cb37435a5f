package engine

// Freeze deadlocks.
//
// A box is frozen when it can never move again: on each axis it is blocked
// by a wall, by a frozen box, or by dead squares on both sides (moving it
// onto either would be a simple deadlock). Boxes can block each other, so the
// check is recursive: while a box is being examined it counts as a wall for
// the boxes it depends on. A group of frozen boxes is a deadlock only when
// one of them is off a goal; frozen boxes on goals are fine.
//
// The recursion keeps a stack of the boxes it has assumed frozen. When a box
// turns out not to be frozen, every assumption made while examining it is
// rolled back, so a box is never left counted as a wall on the strength of a
// hypothesis that failed.

// freezeDeadlock reports whether the box on square sq (just pushed there) is
// frozen together with at least one box that is off a goal.
//
// When the box is frozen with boxes on goals only, it reports false and sets
// s.frozeOnGoal, the frozen boxes in s.fstack (goalfreeze.go).
func (s *searcher) freezeDeadlock(sq uint16) bool {
	s.fgen++
	if s.fgen == 0 {
		clear(s.fmark)
		s.fgen = 1
	}
	s.fstack = s.fstack[:0]
	s.frozeOnGoal = false
	if !s.frozen(sq) {
		return false
	}
	for _, x := range s.fstack {
		if s.b.GoalIndex[x] < 0 {
			return true
		}
	}
	s.frozeOnGoal = true
	return false
}

// frozen examines the box on sq; on false it leaves no marks behind.
func (s *searcher) frozen(sq uint16) bool {
	mark := len(s.fstack)
	s.fmark[sq] = s.fgen
	s.fstack = append(s.fstack, sq)
	nb := s.nbr[int(sq)*4 : int(sq)*4+4]
	if s.blocked(nb[0], nb[2]) && s.blocked(nb[1], nb[3]) {
		return true
	}
	for _, x := range s.fstack[mark:] {
		s.fmark[x] = 0
	}
	s.fstack = s.fstack[:mark]
	return false
}

// blocked reports whether a box between squares a and c cannot move along
// their axis.
func (s *searcher) blocked(a, c uint16) bool {
	wall := s.wall
	if a == wall || c == wall || s.fmark[a] == s.fgen || s.fmark[c] == s.fgen {
		return true
	}
	if s.b.Dead[a] && s.b.Dead[c] {
		return true
	}
	if s.isBlocker(a) && s.frozen(a) {
		return true
	}
	if s.isBlocker(c) && s.frozen(c) {
		return true
	}
	return false
}

// isBlocker reports whether the freeze test counts the box on sq, if any:
// every box, or with fOnly set only the boxes marked with it in cmark (the
// boxes of a corral; see corralFrozen).
func (s *searcher) isBlocker(sq uint16) bool {
	return s.boxAt[sq] >= 0 && (s.fOnly == 0 || s.cmark[sq] == s.fOnly)
}
