package engine

import "slices"

// The reverse search with parking (phases.go), a depth-first search with
// backtracking, after YASS's packing order.
//
// Each step either empties, as one round, every target whose box can be
// pulled to a start square not claimed yet, or, when there is none, parks
// one goal's box: it is pulled to a parking square and stays there,
// a target that a later round must empty in turn. A box is parked on one
// of two squares, the farthest from its goal in pushes and the farthest
// in straight-line distance; a parking square that a later step cannot
// empty sends the search back to try the next square, goal or step. Parked
// one at a time, a box leaves room for the next round's pulls to start
// squares, which the boxes parked with it all at once could take away.
//
// No box leaves for a start square before every start square has been
// within the player's reach at some step of the search, as in YASS's
// packing order: while the filled goals wall the player off from some of
// them, boxes are parked, each parking emptying a goal and opening the
// way. Where a goal room cuts the board, the search follows such plans
// where it could not follow those that let boxes leave first
// (docs/benchmarks.md).

// maxParkTries bounds the parkings one search may try, so that a level
// whose boxes can be parked in many ways costs a bounded time.
const maxParkTries = 4096

// parkSearch returns the phases with the player in the region of anchor,
// parking boxes where needed, nil when the search finds none.
func (ps *phaseSearch) parkSearch(anchor uint16) [][]uint16 {
	ps.reset()
	ps.tries = maxParkTries
	var rounds [][]uint16
	if !ps.descend(anchor, len(ps.b.Goals), nil, &rounds) {
		return nil
	}
	slices.Reverse(rounds)
	return rounds
}

// planState is what a step of parkSearch changes, to take it back.
type planState struct {
	filled, used, reached []bool
	parkedFor             []uint16
}

func (ps *phaseSearch) save() planState {
	ps.work -= len(ps.filled) // the copies count as work
	return planState{slices.Clone(ps.filled), slices.Clone(ps.used), slices.Clone(ps.reached), slices.Clone(ps.parkedFor)}
}

func (ps *phaseSearch) restore(st planState) {
	copy(ps.filled, st.filled)
	copy(ps.used, st.used)
	copy(ps.reached, st.reached)
	copy(ps.parkedFor, st.parkedFor)
}

// mark returns a func that takes a step of a search with backtracking
// back: the state and the rounds as they are now.
func (ps *phaseSearch) mark(rounds *[][]uint16) func() {
	st := ps.save()
	n := len(*rounds)
	return func() {
		ps.restore(st)
		*rounds = (*rounds)[:n]
	}
}

// descend empties the left targets (the goals still filled and the
// parking squares parked holding boxes), appending the rounds, and
// reports whether it could; on false, nothing is changed.
func (ps *phaseSearch) descend(anchor uint16, left int, parked []uint16, rounds *[][]uint16) bool {
	if left == 0 {
		return true
	}
	if ps.spent() {
		return false
	}
	b := ps.b
	undo := ps.mark(rounds)
	ps.toStart, ps.last = true, left == 1
	reached := ps.allReached(anchor)
	var out []uint16
	// Until every start square has been in reach, boxes are parked.
	for _, targets := range [2][]uint16{b.Goals, parked} {
		for _, t := range targets {
			if ps.filled[t] && reached && ps.pullsAway(t, anchor) {
				out = append(out, t)
			}
		}
	}
	if len(out) > 0 {
		// The boxes that reach start squares go; parking is tried only
		// where none does (trying it after every round would multiply
		// the search).
		if ps.empty(anchor, out, left, parked, rounds) {
			return true
		}
		undo()
		return false
	}
	for _, g := range b.Goals {
		if !ps.filled[g] || ps.start[g] {
			continue
		}
		for _, q := range ps.parkingSquares(g, anchor) {
			if q == noSquare || ps.tries <= 0 || ps.spent() {
				continue
			}
			ps.tries--
			ps.filled[q], ps.parkedFor[q] = true, g
			if ps.empty(anchor, []uint16{g}, left+1, append(parked[:len(parked):len(parked)], q), rounds) {
				return true
			}
			undo()
		}
	}
	if out = ps.startGoals(out[:0]); len(out) > 0 && ps.empty(anchor, out, left, parked, rounds) {
		return true
	}
	undo()
	return false
}

// allReached marks the start squares the player reaches from anchor, the
// filled targets standing, and reports whether every start square has been
// reached in this search. A start square under a goal counts as reached:
// its box may stay where it starts (startGoals). Once every one has been,
// it floods no more: the rounds after need no gate.
func (ps *phaseSearch) allReached(anchor uint16) bool {
	b := ps.b
	if !slices.ContainsFunc(b.StartBoxes, func(sq uint16) bool { return !ps.reached[sq] }) {
		return true
	}
	gen := ps.flood(anchor, b.Wall())
	all := true
	for _, sq := range b.StartBoxes {
		if ps.fl.Reach[sq] == gen || b.GoalIndex[sq] >= 0 {
			ps.reached[sq] = true
		}
		all = all && ps.reached[sq]
	}
	return all
}

// empty takes the targets out as one round and goes on with the rest.
func (ps *phaseSearch) empty(anchor uint16, out []uint16, left int, parked []uint16, rounds *[][]uint16) bool {
	for _, t := range out {
		ps.filled[t] = false
	}
	*rounds = append(*rounds, slices.Clone(out))
	return ps.descend(anchor, left-len(out), parked, rounds)
}

// parkingSquares returns the two squares to try parking the box of goal g
// on, noSquare for none: of the source squares it can be pulled to with
// the player a way back (but no start square, none parked on before and
// none where a box would cut the player's area in two), the one farthest
// from g in pushes on the empty board, and the one farthest from g in
// straight-line distance (the farther from the first on a tie).
func (ps *phaseSearch) parkingSquares(g, anchor uint16) [2]uint16 {
	b := ps.b
	n, gi := len(b.Goals), int(b.GoalIndex[g])
	var cands []uint16
	ps.pulls(g, anchor, func(q, p uint16) bool {
		if ps.source[q] && !ps.filled[q] && !ps.start[q] && ps.parkedFor[q] == noSquare &&
			!slices.Contains(cands, q) && !splits(b, q) && b.Dist[int(q)*n+gi] != Inf && ps.getsBack(q, p, anchor) {
			cands = append(cands, q)
		}
		return false
	})
	best := [2]uint16{noSquare, noSquare}
	far := -1
	for _, q := range cands {
		if d := int(b.Dist[int(q)*n+gi]); d > far {
			best[0], far = q, d
		}
	}
	far = -1
	for _, q := range cands {
		if q == best[0] {
			continue
		}
		d := manhattan(b, q, g)
		if d > far || d == far && manhattan(b, q, best[0]) > manhattan(b, best[1], best[0]) {
			best[1], far = q, d
		}
	}
	return best
}

// splits reports whether a lone box on sq would cut the player's area in
// two: a box parked there would block the way it stands in.
func splits(b *Board, sq uint16) bool {
	wall := b.Wall()
	lbl := -1
	for d := 0; d < 4; d++ {
		if b.Nbr[int(sq)*4+d] == wall {
			continue
		}
		if l := int(b.SideRegion[int(sq)*4+d]); lbl < 0 {
			lbl = l
		} else if l != lbl {
			return true
		}
	}
	return false
}

// manhattan is the straight-line (city-block) distance between squares.
func manhattan(b *Board, p, q uint16) int {
	px, py := b.XY(p)
	qx, qy := b.XY(q)
	return abs(px-qx) + abs(py-qy)
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}
