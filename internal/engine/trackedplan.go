package engine

import (
	"slices"

	"github.com/sokod/sokod/board"
)

// The reverse search with the player followed (phases.go): YASS's packing
// order search, a depth-first search with backtracking from the solved
// position that keeps the player on one square rather than in one region.
//
// Each step either takes a set of boxes off the board as one round, each
// pulled to a start square not claimed yet while the player stays where it
// stands, or parks one goal's box on a square off the goals, the player
// then standing beside the parked box. The rules, YASS's:
//   - no box leaves before every start square has been within the
//     player's reach (boxes are parked until then);
//   - a goal's box leaves only to a start square three or more squares
//     (city-block) from its goal, until few boxes are left, and of those
//     to the one whose claim leaves the most start squares to the goal
//     with the fewest;
//   - a goal's box whose pulls reach only a small part of the board is
//     parked rather than taken off;
//   - boxes on parking squares leave once every goal is empty, never in a
//     round with goals' boxes;
//   - the box parked is the one whose best parking square is farthest
//     from its goal in pushes; it is tried on that square and on the one
//     farthest in straight-line distance, and each goal gets one try per
//     step.
//
// Its plans differ from the other search's in where they park, and each
// guides the packing search to solutions where the other does not
// (docs/benchmarks.md), so the packing search's restarts take both in
// turns (interleave.go).

const (
	// trackedEndPercent: once this share of the boxes has left, boxes may
	// leave to start squares near their goals.
	trackedEndPercent = 85
	// trackedLargePercent: a box whose pulls reach this share of the
	// squares a box can stand on comes from a large area and may leave.
	trackedLargePercent = 25
	// trackedMinLeave: the city-block distance from a goal to the start
	// square its box leaves to, outside the end game.
	trackedMinLeave = 3
)

// trackedSearch returns the phases with the player on square player at
// the solved position, nil when the search finds none.
func (ps *phaseSearch) trackedSearch(player uint16) [][]uint16 {
	b := ps.b
	ps.reset()
	ps.tries = maxParkTries
	floor := 0
	for sq := range b.Squares {
		if !b.Dead[sq] {
			floor++
		}
	}
	ps.large = floor * trackedLargePercent / 100
	ps.endGame = (len(b.Goals)*(100-trackedEndPercent) + 50) / 100
	if ps.pl == nil {
		ps.pl = board.NewBlockedFlood(b)
		ps.area = make([]int32, b.Squares+1)
	}
	var rounds [][]uint16
	if !ps.track(player, len(b.Goals), nil, &rounds) {
		return nil
	}
	slices.Reverse(rounds)
	return rounds
}

// track empties the left targets with the player on square player,
// appending the rounds, and reports whether it could; on false, nothing is
// changed.
func (ps *phaseSearch) track(player uint16, left int, parked []uint16, rounds *[][]uint16) bool {
	if left == 0 {
		return true
	}
	if ps.spent() {
		return false
	}
	b := ps.b
	undo := ps.mark(rounds)
	ps.last = left == 1
	goalsLeft := slices.ContainsFunc(b.Goals, func(g uint16) bool { return ps.filled[g] })
	var out, claims, small []uint16
	if ps.allReached(player) {
		gen := ps.playerReach(player)
		for i, targets := range [2][]uint16{b.Goals, parked} {
			for _, t := range targets {
				if !ps.filled[t] || !ps.loose(t, gen) {
					continue
				}
				s, area := ps.leaveTo(t, player, left, i == 1)
				if s == noSquare {
					continue
				}
				if i == 0 && area < ps.large && left > ps.endGame {
					small = append(small, t)
					continue
				}
				if i == 1 && len(out) > 0 {
					continue // goals' boxes leave first
				}
				ps.used[s] = true
				out, claims = append(out, t), append(claims, s)
			}
		}
	}
	onlyParked := len(out) > 0 && ps.parkedFor[out[0]] != noSquare
	if onlyParked && goalsLeft && len(small) == 0 {
		// Parked boxes leave once every goal is empty.
		for _, s := range claims {
			ps.used[s] = false
		}
		out, claims = out[:0], claims[:0]
	}
	if len(small) > 0 || len(out) == 0 {
		for _, s := range claims {
			ps.used[s] = false
		}
		tried := make([]bool, b.Squares+1)
		if len(small) > 0 {
			for _, g := range b.Goals {
				tried[g] = !slices.Contains(small, g)
			}
		}
		for ps.tries > 0 && !ps.spent() {
			g, spots := ps.bestParking(player, tried)
			if g == noSquare {
				break
			}
			tried[g] = true
			for _, sp := range spots {
				if sp.sq == noSquare || ps.tries <= 0 {
					continue
				}
				ps.tries--
				ps.filled[g], ps.filled[sp.sq], ps.parkedFor[sp.sq] = false, true, g
				*rounds = append(*rounds, []uint16{g})
				if ps.track(sp.player, left, append(parked[:len(parked):len(parked)], sp.sq), rounds) {
					return true
				}
				undo()
			}
		}
		for _, s := range claims {
			ps.used[s] = true
		}
	}
	if len(out) > 0 {
		for _, t := range out {
			ps.filled[t] = false
		}
		*rounds = append(*rounds, slices.Clone(out))
		if ps.track(player, left-len(out), parked, rounds) {
			return true
		}
	}
	undo()
	return false
}

// playerReach floods the player's reach from square player, the filled
// squares standing, into ps.pl, and returns its stamp.
func (ps *phaseSearch) playerReach(player uint16) int32 {
	gen, reached := ps.pl.Run(ps.b, player, ps.b.Wall(), ps.filled)
	ps.work -= reached
	return gen
}

// loose reports whether the box on target t can be pulled at all, the
// player's reach stamped gen in ps.pl, or stands on a start square with
// every box left on one (it may then leave where it stands).
func (ps *phaseSearch) loose(t uint16, gen int32) bool {
	b := ps.b
	wall := b.Wall()
	for d := 0; d < 4; d++ {
		q := b.Nbr[int(t)*4+d]
		if q == wall || ps.filled[q] || b.Dead[q] {
			continue
		}
		if q2 := b.Nbr[int(q)*4+d]; q2 != wall && ps.pl.Reach[q2] == gen {
			return true
		}
	}
	if !ps.start[t] {
		return false
	}
	for sq := range b.Squares {
		if ps.filled[sq] && !ps.start[sq] {
			return false
		}
	}
	return true
}

// leaveTo returns the start square the box on target t leaves to (noSquare
// for none) and the number of squares its pulls reach, the player on
// square player: of the start squares not claimed, far enough from t and
// reached by a pull that lets the player walk back to player, the one
// whose claim leaves the most start squares to the filled goal with the
// fewest.
func (ps *phaseSearch) leaveTo(t, player uint16, left int, parkedBox bool) (uint16, int) {
	b := ps.b
	ps.agen++
	gen := ps.agen
	area := 0
	ok := ps.cands[:0]
	ps.pulls(t, player, func(q, p uint16) bool {
		if ps.area[q] != gen {
			ps.area[q] = gen
			area++
		}
		if ps.start[q] && !ps.used[q] && (manhattan(b, q, t) >= trackedMinLeave || left <= ps.endGame) &&
			!slices.Contains(ok, q) && ps.getsBack(q, p, player) {
			ok = append(ok, q)
		}
		return false
	})
	if ps.start[t] && !ps.used[t] && (!parkedBox || left <= ps.endGame) {
		ok = append(ok, t)
	}
	ps.cands = ok[:0]
	best, bestScore := uint16(noSquare), -1
	for _, s := range b.StartBoxes {
		if !slices.Contains(ok, s) {
			continue
		}
		if sc := ps.leaveScore(s); sc > bestScore {
			best, bestScore = s, sc
		}
	}
	return best, area
}

// leaveScore is, for start square s, the fewest start squares left
// unclaimed, once s is, to a filled goal that s serves (a lone box can be
// pushed from s to it); a large number when s serves none.
func (ps *phaseSearch) leaveScore(s uint16) int {
	b := ps.b
	n := len(b.Goals)
	score := 1 << 30
	for gi, g := range b.Goals {
		if !ps.filled[g] || b.Dist[int(s)*n+gi] == Inf {
			continue
		}
		c := 0
		for _, s2 := range b.StartBoxes {
			if s2 != s && !ps.used[s2] && b.Dist[int(s2)*n+gi] != Inf {
				c++
			}
		}
		score = min(score, c)
	}
	return score
}

// parkSpot is a square to park a box on and where the player stands after.
type parkSpot struct{ sq, player uint16 }

// bestParking returns the goal whose box is best parked next, noSquare for
// none, and its two parking squares: of the filled goals not tried, whose
// box the player on square player can pull, the one with the farthest
// parking square (the push distance to the goal on the empty board; on a
// tie, a goal off the corners).
func (ps *phaseSearch) bestParking(player uint16, tried []bool) (uint16, [2]parkSpot) {
	b := ps.b
	wall := b.Wall()
	best, bestDist, bestCorner := uint16(noSquare), -1, false
	var bestSpots [2]parkSpot
	gen := ps.playerReach(player)
	for _, g := range b.Goals {
		if !ps.filled[g] || tried[g] || !ps.loose(g, gen) {
			continue
		}
		spots, far := ps.parkingSpots(g, player)
		if spots[0].sq == noSquare {
			continue
		}
		corner := false
		for d := 0; d < 4; d++ {
			if b.Nbr[int(g)*4+d] == wall && b.Nbr[int(g)*4+(d+1)%4] == wall {
				corner = true
			}
		}
		if far > bestDist || far == bestDist && bestCorner && !corner {
			best, bestDist, bestCorner, bestSpots = g, far, corner, spots
		}
	}
	return best, bestSpots
}

// parkingSpots returns the two squares to park the box of goal g on, the
// player on square player, and the first one's push distance to g: of the
// squares its pulls reach with the player then able to walk back to g
// (none dead, none where a lone box cuts the player's area), the one
// farthest from g in pushes on the empty board, and the one farthest in
// straight-line distance (the farther from the first on a tie).
func (ps *phaseSearch) parkingSpots(g, player uint16) ([2]parkSpot, int) {
	b := ps.b
	n, gi := len(b.Goals), int(b.GoalIndex[g])
	type cand struct{ q, p uint16 }
	var cands []cand
	ps.pulls(g, player, func(q, p uint16) bool {
		// Parking on goals (YASS does) needs a plan that can hold a square
		// twice.
		if ps.filled[q] || b.Dead[q] || b.Dist[int(q)*n+gi] == Inf || splits(b, q) ||
			b.GoalIndex[q] >= 0 || ps.parkedFor[q] != noSquare {
			return false
		}
		if slices.ContainsFunc(cands, func(c cand) bool { return c.q == q }) {
			return false
		}
		gen, reached := ps.back.Run(b, p, q, ps.filled)
		ps.work -= reached
		if ps.back.Reach[g] == gen {
			cands = append(cands, cand{q, p})
		}
		return false
	})
	spots := [2]parkSpot{{noSquare, noSquare}, {noSquare, noSquare}}
	far := -1
	for _, c := range cands {
		if d := int(b.Dist[int(c.q)*n+gi]); d > far {
			spots[0], far = parkSpot{c.q, c.p}, d
		}
	}
	wide := -1
	for _, c := range cands {
		if c.q == spots[0].sq {
			continue
		}
		d := manhattan(b, c.q, g)
		if d > wide || d == wide && manhattan(b, c.q, spots[0].sq) > manhattan(b, spots[1].sq, spots[0].sq) {
			spots[1], wide = parkSpot{c.q, c.p}, d
		}
	}
	return spots, far
}
