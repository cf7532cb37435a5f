package engine

import (
	"fmt"
)

// Expansion: the pushes of a position, PI-corral and goal macros applied,
// and each child made, tested for deadlocks and keyed.

// genMoves lists the pushes to expand in the current position, whose
// player region is stamped with gen (normalised square pnorm): every legal push that does not put a
// box on a dead square, or only those of a PI-corral when there is one.
// The slice is scratch, valid until the next call.
func (s *searcher) genMoves(gen uint32, pnorm uint16) []push {
	if s.frozenGoalTest {
		s.frozenGoals() // the children's frozen-goal tests start from it
	}
	s.moves = s.moves[:0]
	for _, b := range s.boxes {
		if s.boxMark[b] != gen {
			continue
		}
		for d := uint8(0); d < 4; d++ {
			to := s.nbr[int(b)*4+int(d)]
			if s.boxAt[to] != -1 {
				continue
			}
			if s.dead[to] {
				if s.cnt != nil && s.cnt.deadBy[to] >= 0 {
					s.cnt.pruned(s.cnt.deadBy[to])
				}
				continue
			}
			side := s.nbr[int(b)*4+int(d^2)]
			if s.stamp[side] != gen {
				continue
			}
			s.moves = append(s.moves, push{from: b, dir: d})
		}
	}
	if s.corralPruning && s.piCorral(gen, pnorm) {
		s.corrals++
		s.inCorral = true
		if len(s.cmoves) == 0 {
			// A dead position: no home move either.
			s.corralDead++
			return s.cmoves
		}
		if s.gm.on && !s.gm.noHome {
			return s.homeMoves(s.cmoves)
		}
		return s.cmoves
	}
	if s.gm.on && !s.gm.noHome {
		return s.homeMoves(s.moves)
	}
	return s.moves
}

// expand generates the children of the current position (record r, g
// pushes). It returns GaveUp with an empty reason to continue the search.
func (s *searcher) expand(r uint32, g, hcur, fcur int) (Status, string, uint32) {
	s.renewGens()
	pnorm := s.reach(s.player)
	gen := s.gen
	s.inCorral = false
	moves := s.genMoves(gen, pnorm)
	if s.pk.near != nil {
		s.pk.dist = s.pk.boxDistances(s.boxes) // the bound keying's children start from it
	}
	if s.overdue() {
		return GaveUp, s.endReason(), 0
	}
	astar := s.objective == ObjectivePushes
	n := len(s.boxes)
	player := s.player
	pruned := 0 // children a deadlock test pruned
	for _, p := range moves {
		if s.overdue() {
			return GaveUp, s.endReason(), 0
		}
		i := int(s.boxAt[p.from])
		to := s.nbr[int(p.from)*4+int(p.dir)]
		key, p, to, ok := s.pushChild(i, p, to, player, gen, pnorm)
		if !ok {
			pruned++
			continue
		}
		cg := g + 1 + int(p.more)
		if s.pk.on {
			// The progress keying counts only the pushes that bring no
			// box nearer its phase's goals (packing.go).
			var productive bool
			s.pkTerm, productive = s.packTerm(p.from, to)
			if productive {
				cg = g
			}
		}
		if cg > 0xFFFE {
			s.undoPush(p, player)
			return GaveUp, ReasonMemory, 0 // g no longer fits a record
		}
		last := s.player
		solved := s.onGoal == n
		slot, found := s.tt.find(key)
		if found {
			c := &s.tt.slots[slot]
			if cg >= int(c.g) {
				s.duplicates++
				s.undoPush(p, player)
				continue
			}
			// A cheaper path to a known state.
			wasClosed := c.closed()
			c.relink(r, uint16(cg), recFrom(p, last), p.dir)
			s.remember(uint32(slot), key, p)
			if wasClosed && !astar {
				// Greedy search keeps the shorter path but does not expand
				// the state again.
				s.undoPush(p, player)
				continue
			}
			s.undoPush(p, player)
			h := s.childBound(hcur, i, to, last, p)
			if wasClosed {
				c.setOpen()
				s.reopened++
			}
			s.corralKey(fcur, cg, h)
			if s.bt != nil {
				if reason := s.queueChild(uint32(slot), cg, h, g+hcur, i, to, last); reason != "" {
					return GaveUp, reason, 0
				}
			} else if !s.enqueue(uint32(slot), cg, h) {
				return GaveUp, ReasonMemory, 0
			}
			continue
		}
		s.undoPush(p, player)
		h := s.childBound(hcur, i, to, last, p)
		if h >= infCost {
			s.matchPruned++
			pruned++
			continue
		}
		if s.tt.full() {
			return GaveUp, ReasonMemory, 0
		}
		s.tt.insert(slot, key, r, uint16(cg), recFrom(p, last), p.dir)
		s.remember(uint32(slot), key, p)
		if !astar && solved {
			return Solved, "", uint32(slot)
		}
		if s.back != nil {
			if id, ok := s.back.tt.find(key); ok {
				s.met = uint32(id)
				return Solved, "", uint32(slot)
			}
		}
		s.corralKey(fcur, cg, h)
		if s.bt != nil {
			if reason := s.queueChild(uint32(slot), cg, h, g+hcur, i, to, last); reason != "" {
				return GaveUp, reason, 0
			}
		} else if !s.enqueue(uint32(slot), cg, h) {
			return GaveUp, ReasonMemory, 0
		}
	}
	if s.inCorral && pruned == len(moves) && len(moves) > 0 {
		s.hindsight(pnorm)
	}
	return GaveUp, "", 0
}

// pushChild makes push p of box i (to square to) from the expanded
// position, whose player stands on player and whose region is stamped gen
// with normalised square pnorm, and goes on through a tunnel (slideOn). It
// returns the child's table key with the move applied, the move made (its
// tunnel pushes in more) and the box's final square, or ok false, the push
// taken back, when a deadlock test prunes the child. A* and IDA* share it.
func (s *searcher) pushChild(i int, p push, to, player uint16, gen uint32, pnorm uint16) (key uint64, q push, end uint16, ok bool) {
	s.generated++
	if p.home {
		// A home move (homemove.go): the push path is known already.
		s.doMove(i, p)
		s.gm.homes++
		return s.childKey(i, p, p.end, player, gen, pnorm)
	}
	p0, to0 := p, to
	s.doPush(i, p.dir)
	p, to, stuck := s.slideOn(i, p, to)
	if stuck {
		s.stuck++
		s.undoPush(p, player)
		return 0, p, to, false
	}
	if s.gm.on && !s.gm.noEntrance {
		if q, end, ok := s.goalMacro(i, p, to); ok {
			s.gm.count++
			s.gm.pushes += int64(q.more - p.more)
			if key, q, end, ok := s.childKey(i, q, end, player, gen, pnorm); ok {
				return key, q, end, true
			}
			// The box taken home makes a deadlock (it froze on a goal the
			// others needed, say); the push without the macro may not:
			// make it again and test it as it is.
			s.gm.undone++
			s.doPush(i, p0.dir)
			p, to, _ = s.slideRun(i, p0, to0) // its tunnel counted once, above
		}
	}
	return s.childKey(i, p, to, player, gen, pnorm)
}

// childKey finishes pushChild after move p of box i, which ends on to: the
// deadlock tests, and the child's key.
func (s *searcher) childKey(i int, p push, to, player uint16, gen uint32, pnorm uint16) (key uint64, q push, end uint16, ok bool) {
	if s.cnt != nil {
		if k := s.cnt.violated(p.from, to, lastDir(p)); k >= 0 {
			s.cnt.pruned(s.cnt.owner[k])
			s.tablePruned++
			s.undoPush(p, player)
			return 0, p, to, false
		}
	}
	if s.freezeDeadlock(to) || (s.frozeOnGoal && s.frozenGoalTest && s.frozenGoalDead(to)) {
		s.frozenPruned++
		s.undoPush(p, player)
		return 0, p, to, false
	}
	if s.learned.used > 0 && s.learned.dead(s.boxAt, to, s.player) {
		s.undoPush(p, player)
		return 0, p, to, false
	}
	if s.cluster != nil && s.clusterDead(to, s.player) {
		s.clusterPruned++
		s.undoPush(p, player)
		return 0, p, to, false
	}
	var norm uint16
	if p.more == 0 && !p.goal {
		norm = s.childNorm(p.from, to, p.dir, gen, pnorm)
		if s.verifyNorm {
			if full := s.childReach(p.from); full != norm {
				panic(fmt.Sprintf("engine: childNorm %d, full search %d", norm, full))
			}
		}
	} else {
		// The squares the box passed are free now: a full search.
		norm = s.childReach(s.player)
	}
	return hashKey(s.boxHash ^ s.zpl[norm]), p, to, true
}

// childBound returns the bound a child is queued with: its bound, or when
// the evaluator only gives a lower bound (evaluator.child), under objective
// pushes that lower bound, which keeps A* admissible, and under objective
// any at least the parent's bound plus one. The exact bound is computed
// when the child is popped (see step); a lower-bound key there makes
// children whose bound the potentials leave open come out first in every
// list, only to be queued again, while under objective any the order is
// a heuristic and such a child is guessed to be one push worse. One that
// turns out better is expanded at once when popped. The box i ends on to,
// the player on last, after the pushes of p.
func (s *searcher) childBound(hcur, i int, to, last uint16, p push) int {
	h, exact := s.ev.child(hcur, i, to, last, 1+int(p.more), s.lazy)
	if !exact && s.objective == ObjectiveAny && h <= hcur {
		h = hcur + 1
	}
	return h
}

// corralKey gives a child of a PI-corral expansion at most its parent's key
// fcur under the packing guide: its pushes must be made sooner or later
// (corral.go), so opening the corral is no step back, and without the cap
// the search would avoid it while every position with the corral waits on
// it.
func (s *searcher) corralKey(fcur, cg, h int) {
	if s.pk.on && s.inCorral && s.priority(byPacking, cg, h) > fcur {
		s.pkTerm = fcur - s.priority(byPacking, cg, h) + s.pkTerm
	}
}
