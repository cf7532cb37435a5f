package engine

// IDA*: iterative deepening on f = pushes + bound, depth first, with the
// transposition table holding the fewest pushes each position was reached
// with in the current iteration. A position reached again with no fewer
// pushes is not searched again: its subtree was, or is being, searched with
// at least as much of the threshold left. The table is cleared between
// iterations, so its memory bounds the positions of one iteration, not of
// the search; the open list is not used at all. With an admissible bound
// the first goal found is push-optimal, as with A*: every iteration
// searches all positions with f up to its threshold, and the next threshold
// is the least f that exceeded it.
//
// It trades re-expansion for memory: where A* drowns because its table is
// full, IDA* goes on with a table that only has to hold one iteration's
// positions.

// idaChild is a child of a position on the depth-first path, computed
// before the search descends into any of them (the reachability stamps and
// the evaluator then belong to the descendants).
type idaChild struct {
	p    push
	key  uint64
	h    int32
	box  int16
	last uint16 // where the player stands after p
}

// runIDA runs the whole IDA* search. It returns like run.
func (s *searcher) runIDA() (Status, string, uint32) {
	h0, st, reason, end := s.rootBound()
	if end {
		return st, reason, 0
	}
	n := len(s.boxes)
	if s.onGoal == n {
		root, _ := s.insertRoot()
		s.proofHolds = true
		return Solved, "", root
	}
	s.threshold = h0
	for {
		s.tt.reset()
		s.finish()
		root, _ := s.insertRoot()
		s.nextThreshold = infCost
		// The evaluator follows the last position it was synced to, deep
		// in the previous iteration; child bounds need it at the root.
		s.ev.sync(s.boxes, s.player)
		goal, st, reason, end := s.dfs(root, 0, h0)
		if end {
			if st == Solved && s.objective == ObjectivePushes {
				s.proofHolds = true
			}
			return st, reason, goal
		}
		if s.overdue() {
			return GaveUp, s.endReason(), 0 // the iteration may be incomplete
		}
		if s.nextThreshold >= infCost {
			if note := s.cnt.untrustedNote(); note != "" {
				return GaveUp, "every reachable position was searched" + note, 0
			}
			return Unsolvable, "every reachable position was searched", 0
		}
		s.threshold = s.nextThreshold
	}
}

// dfs searches below the current position, record r, reached with g
// pushes; h is its exact bound. end is true when the search is over.
func (s *searcher) dfs(r uint32, g, h int) (goal uint32, st Status, reason string, end bool) {
	if s.onGoal == len(s.boxes) {
		return r, Solved, "", true
	}
	if st, reason, end := s.checkBudget(g); end {
		return 0, st, reason, true
	}
	s.nodes++
	if g > s.maxDepth {
		s.maxDepth = g
	}
	s.renewGens()
	pnorm := s.reach(s.player)
	gen := s.gen
	moves := s.genMoves(gen, pnorm)
	if s.overdue() {
		return 0, GaveUp, s.endReason(), true
	}
	base := len(s.idaStack)
	player := s.player
	for _, p := range moves {
		i := int(s.boxAt[p.from])
		to := s.nbr[int(p.from)*4+int(p.dir)]
		key, p, to, ok := s.pushChild(i, p, to, player, gen, pnorm)
		if !ok {
			continue
		}
		last := s.player
		s.undoPush(p, player)
		ch, _ := s.ev.child(h, i, to, last, 1+int(p.more), s.lazy)
		if ch >= infCost {
			s.matchPruned++
			continue
		}
		s.idaStack = append(s.idaStack, idaChild{p: p, key: key, h: int32(ch), box: int16(i), last: last})
	}
	children := s.idaStack[base:]
	// Most promising first: the smallest bound, which under objective any
	// is what greedy search would take.
	for a := 1; a < len(children); a++ {
		for b := a; b > 0 && children[b].h < children[b-1].h; b-- {
			children[b], children[b-1] = children[b-1], children[b]
		}
	}
	for k := range children {
		c := s.idaStack[base+k] // the stack may move as descendants grow it
		cg := g + 1 + int(c.p.more)
		if cg > 0xFFFE {
			s.idaStack = s.idaStack[:base]
			return 0, GaveUp, ReasonMemory, true
		}
		if f := cg + int(c.h); f > s.threshold {
			s.nextThreshold = min(s.nextThreshold, f)
			continue
		}
		slot, found := s.tt.find(c.key)
		if found {
			rec := &s.tt.slots[slot]
			if cg >= int(rec.g) {
				s.duplicates++
				continue
			}
			rec.relink(r, uint16(cg), recFrom(c.p, c.last), c.p.dir)
			s.remember(uint32(slot), c.key, c.p)
		} else {
			if s.tt.full() {
				s.idaStack = s.idaStack[:base]
				return 0, GaveUp, ReasonMemory, true
			}
			s.tt.insert(slot, c.key, r, uint16(cg), recFrom(c.p, c.last), c.p.dir)
			s.remember(uint32(slot), c.key, c.p)
		}
		s.doMove(int(c.box), c.p)
		ch := s.ev.sync(s.boxes, s.player)
		if f := cg + ch; ch < infCost && f <= s.threshold {
			goal, st, reason, end = s.dfs(uint32(slot), cg, ch)
		} else if ch < infCost {
			s.nextThreshold = min(s.nextThreshold, f)
		}
		s.undoPush(c.p, player)
		if end {
			s.idaStack = s.idaStack[:base]
			return goal, st, reason, true
		}
	}
	s.idaStack = s.idaStack[:base]
	return 0, GaveUp, "", false
}
