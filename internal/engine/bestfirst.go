package engine

import (
	"context"
)

// Best-first search (A*, greedy, weighted, alternating): open lists over
// one transposition table, and the loop that pops, rebuilds and expands.

// queueKind says how an open list orders states.
type queueKind uint8

const (
	byAStar    queueKind = iota // f = g + h
	byBound                     // f = h
	byWeighted                  // f = g + W*h
	byPacking                   // f = g (+ h) + the packing term (packing.go)
)

// priority returns the key of a state with g pushes and bound h in an open
// list of kind k.
func (s *searcher) priority(k queueKind, g, h int) int {
	switch k {
	case byBound:
		return h
	case byWeighted:
		return g + s.weight*h
	case byPacking:
		return g + s.pkTerm // without the bound (packing.go)
	}
	return g + h
}

// enqueue puts a record in every open list. It reports false when the
// entry pool is full. Ties go to the larger g, except in the packing list,
// where g counts unproductive pushes and ties go to the deeper state: the
// child of the state expanded last.
func (s *searcher) enqueue(r uint32, g, h int) bool {
	tie := g
	if s.pk.on {
		tie = len(s.pathRec)
	}
	for k, q := range s.queues {
		if !q.push(r, s.priority(s.kinds[k], g, h), tie) {
			return false
		}
	}
	return true
}

// next pops the next state to expand, taking the open lists in turn. ok is
// false when every list is empty.
func (s *searcher) next() (r uint32, f, g int, ok bool) {
	for range s.queues {
		q := s.queues[s.turn]
		if s.escapeNow(s.kinds[s.turn]) {
			r, f, g, ok = q.popEscape()
		} else {
			r, f, g, ok = q.pop()
		}
		if ok {
			s.popped = s.turn
			return r, f, g, true
		}
		s.turn = (s.turn + 1) % len(s.queues)
	}
	return 0, 0, 0, false
}

// escapeEvery: a greedy open list gives every escapeEvery-th pop to the
// states behind its best (openQueue.popEscape), after YASS's open-list
// escape. A greedy key that misjudges one early push, say one that makes
// a deadlock no test sees, keeps the search in that push's subtree; the
// escapes take one state of every key queued in turn, and so go on
// expanding the states outside it.
const escapeEvery = 8

// escapeNow reports whether the next pop from an open list of kind k
// escapes: only greedy lists do, since an A* list must pop the smallest f
// for its optimality and its lower bound.
func (s *searcher) escapeNow(k queueKind) bool {
	if k != byBound && k != byPacking {
		return false
	}
	s.greedyPops++
	return s.greedyPops%escapeEvery == 0
}

// lowerBound is the smallest f of the A* list, -1 without one.
func (s *searcher) lowerBound() int {
	if s.ida {
		return s.threshold
	}
	for k, q := range s.queues {
		if s.kinds[k] == byAStar {
			return s.bt.lowest(q.lowest())
		}
	}
	return -1
}

// run is the search loop. It returns the status, a reason, and the goal
// record when solved.
func (s *searcher) run(ctx context.Context) (Status, string, uint32) {
	s.watch(ctx)
	if ctx.Err() != nil {
		return GaveUp, s.endReason(), 0
	}
	if s.ida {
		return s.runIDA()
	}
	if st, reason, goal, end := s.begin(); end {
		return st, reason, goal
	}
	for {
		if st, reason, goal, end := s.step(); end {
			return st, reason, goal
		}
	}
}

// begin checks and stores the root. end is true when that already decides
// the search.
func (s *searcher) begin() (st Status, reason string, goal uint32, end bool) {
	h0, st, reason, end := s.rootBound()
	if end {
		return st, reason, 0, true
	}
	root, ok := s.insertRoot()
	if !ok {
		s.proofHolds = true
		return Solved, "", root, true
	}
	if s.pk.on {
		s.pkTerm, _ = s.packTerm(noSquare, noSquare)
	}
	s.enqueue(root, 0, h0)
	return GaveUp, "", 0, false
}

// rootBound checks the start position and returns its bound. end is true
// when that already decides the search (always as unsolvable or, under
// untrusted knowledge, gave up).
func (s *searcher) rootBound() (h0 int, st Status, reason string, end bool) {
	n := len(s.boxes)
	for i := 0; i < n; i++ {
		if s.freezeDeadlock(s.boxes[i]) {
			return 0, Unsolvable, "the start position has a frozen box off a goal", true
		}
	}
	if s.cnt != nil {
		if k := s.cnt.violatedAtStart(); k >= 0 {
			s.cnt.pruned(s.cnt.owner[k])
			reason := "the start position is a deadlock for detector " + s.cnt.names[s.cnt.owner[k]]
			if note := s.cnt.untrustedNote(); note != "" {
				return 0, GaveUp, reason + note, true
			}
			return 0, Unsolvable, reason, true
		}
	}
	h0 = s.ev.sync(s.boxes, s.player)
	if s.overdue() {
		return 0, GaveUp, s.endReason(), true
	}
	if s.bt != nil {
		if h0, st, reason, end = s.rootBatch(h0); end {
			return 0, st, reason, true
		}
	}
	s.initialLB = h0
	if h0 >= infCost {
		return 0, Unsolvable, "no assignment of boxes to goals is reachable", true
	}
	return h0, GaveUp, "", false
}

// insertRoot stores the start position in the table as the path's first
// record. ok is false when the start is solved already.
func (s *searcher) insertRoot() (root uint32, ok bool) {
	n := len(s.boxes)
	s.renewGens()
	norm := s.reach(s.player)
	key := hashKey(s.boxHash ^ s.zpl[norm])
	slot, _ := s.tt.find(key)
	s.tt.insert(slot, key, noRecord, 0, 0, 0)
	root = uint32(slot)
	s.pathRec = append(s.pathRec, root)
	s.pathPush = append(s.pathPush, push{})
	s.pathDead.add(false)
	s.setOnPath(root)
	return root, s.onGoal != n
}

// step pops one state and expands it. end is true when the search is over.
func (s *searcher) step() (st Status, reason string, goal uint32, end bool) {
	r, f, g, ok := s.next()
	if !ok {
		if reason, flushed := s.flushPending(); flushed {
			return GaveUp, reason, 0, reason != ""
		}
		if note := s.cnt.untrustedNote() + s.bt.untrustedNote(); note != "" {
			return GaveUp, "every reachable position was searched" + note, 0, true
		}
		return Unsolvable, "every reachable position was searched", 0, true
	}
	rec := &s.tt.slots[r]
	if s.pk.on {
		// The packing list's second key is the depth in moves, not g
		// (see enqueue); a record queued again is closed when its older
		// entry comes out.
		g = int(rec.g)
	}
	if rec.closed() || int(rec.g) != g {
		return GaveUp, "", 0, false // stale entry
	}
	if st, reason, end := s.checkBudget(g); end {
		return st, reason, 0, true
	}
	s.goTo(r)
	if s.pathDead.count > 0 {
		// A position on its path holds a learned deadlock, most often one
		// learned after this one was queued: nothing after it is solvable.
		s.learned.late++
		rec.setClosed()
		return GaveUp, "", 0, false
	}
	// Children may have been queued with a lower bound on their bound (see
	// evaluator.child). The exact bound is computed now; when it raises the
	// state's priority in the list it came from, the state goes back there
	// with the exact priority instead of being expanded. Every priority
	// queued is thus at most the state's exact one, and a state is expanded
	// only at its exact priority, so A* with an admissible bound still pops
	// the goal at the optimal cost first.
	var h int
	if s.bt != nil && s.bt.est != nil {
		h = s.queuedBound(f, g)
	} else {
		h = s.ev.sync(s.boxes, s.player)
	}
	if s.overdue() {
		return GaveUp, s.endReason(), 0, true
	}
	if h >= infCost {
		s.matchPruned++
		rec.setClosed()
		return GaveUp, "", 0, false
	}
	if k := s.popped; s.kinds[k] != byPacking && s.priority(s.kinds[k], g, h) > f {
		s.deferred++
		if !s.queues[k].push(r, s.priority(s.kinds[k], g, h), g) {
			return GaveUp, ReasonMemory, 0, true
		}
		return GaveUp, "", 0, false
	}
	if s.objective == ObjectivePushes && s.onGoal == len(s.boxes) {
		if reason, wait := s.solvedFirst(r, f, g); wait {
			return GaveUp, reason, 0, reason != ""
		}
		// First goal popped: with an admissible bound, f = g is optimal.
		s.proofHolds = true
		return Solved, "", r, true
	}
	rec.setClosed()
	s.nodes++
	s.turn = (s.turn + 1) % len(s.queues)
	depth := g
	if s.pk.on {
		depth = len(s.pathRec) - 1 // moves: g counts unproductive pushes only
	}
	s.maxDepth = max(s.maxDepth, depth)
	st, reason, goal = s.expand(r, g, h, f)
	return st, reason, goal, st != GaveUp || reason != ""
}
