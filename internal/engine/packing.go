package engine

// The packing search: best-first search steered by the level's fill phases
// (phases.go), for goal-room levels under ObjectiveAny. After YASS's
// packing-order search.
//
// A state's key is
//
//	g + h + packGoalWeight*(goals not yet filled in phase order) + the last move's term
//
// where g counts only the pushes on the state's path that brought no box
// nearer an empty goal of the current phase (a push that does is free, so a
// box is taken home in one go and others are rearranged only as far as
// needed), h is the heuristic's bound, and the last move's term is twice
// the pushed box's distance (plus one) to the nearest empty goal of the
// current phase, less two for each such goal it came nearer: of the boxes
// that could move, the one nearest the goals goes first. A goal counts as
// filled in phase order when it and all goals of earlier phases hold boxes
// (the current phase is the first with an empty goal); distances are the
// phase distances, which wall off the earlier phases' goals.
//
// Ties go to the deeper state, so that the search follows a box home
// without a detour through its siblings; children of a PI-corral
// expansion keep their parent's key (expand.corralKey), since the corral
// must be opened before anything else and its pushes are no step back.
//
// The keys say nothing of optimality; g is not the push count (the path's
// pushes are still counted in the solution). Under the default strategy
// the packing search gets packShare of the budget on the levels that
// qualify (packingLevel), then the alternating search has the rest.

// noSquare stands for no square where one is optional.
const noSquare = 0xFFFF

const (
	// packGoalWeight is what a goal filled in order is worth in pushes: the
	// search spends up to that many unproductive pushes on a state before
	// it looks again at states with one goal fewer.
	packGoalWeight = 32
	// packMinGoals: a level gets the packing search when at least this
	// many goals have a goal next to them (YASS uses the same threshold):
	// fewer is no goal room, and the alternating search does better.
	packMinGoals = 9
	// packShare is the percentage of the budget the packing search gets
	// before the alternating search takes over.
	packShare = 50
)

// packGuide is the packing search's state in a searcher.
type packGuide struct {
	on      bool
	phases  [][]uint16 // fill phases, first first
	pdist   [][]uint16 // per goal index: phase distances from every square
	phaseOf []int16    // per square: its goal's phase, -1 off the goals
	cur     int        // the phase being filled in the position packMove saw
}

// init sets the guide up with the level's fill phases fp, nil for none.
func (g *packGuide) init(b *Board, fp *fillPlan) {
	g.on = fp != nil
	if !g.on {
		return
	}
	g.phases, g.pdist = fp.phases, fp.dist
	g.phaseOf = make([]int16, b.Squares+1)
	for i := range g.phaseOf {
		g.phaseOf[i] = -1
	}
	for k, goals := range g.phases {
		for _, sq := range goals {
			g.phaseOf[sq] = int16(k)
		}
	}
}

// packingLevel reports whether b is a goal-room level: at least
// packMinGoals goals have a goal next to them.
func packingLevel(b *Board) bool {
	n := 0
	for _, g := range b.Goals {
		for d := 0; d < 4; d++ {
			if b.GoalIndex[b.Nbr[int(g)*4+d]] >= 0 {
				n++
				break
			}
		}
	}
	return n >= packMinGoals
}

// packMove scores the move that has just taken a box from from to to (the
// position after it is on the board; from and to are noSquare for the
// start): the packing part of the child's key (all but g and h), and
// whether the move was productive.
func (s *searcher) packMove(from, to uint16) (term int, productive bool) {
	g := &s.pk
	done := 0
	g.cur = len(g.phases)
	for k, goals := range g.phases {
		filled := 0
		for _, sq := range goals {
			if s.boxAt[sq] >= 0 {
				filled++
			}
		}
		done += filled
		if filled < len(goals) {
			g.cur = k
			break
		}
	}
	term = packGoalWeight * (len(s.boxes) - done)
	if to == noSquare || g.cur == len(g.phases) {
		return term, false
	}
	if ph := g.phaseOf[to]; ph >= 0 && int(ph) <= g.cur {
		return term, true // the box is home
	}
	best, closer := Inf, 0
	for _, t := range g.phases[g.cur] {
		if s.boxAt[t] >= 0 {
			continue
		}
		pd := g.pdist[s.b.GoalIndex[t]]
		d := int(pd[to])
		if d < best {
			best = d
		}
		if from != noSquare && d < int(pd[from]) {
			closer++
		}
	}
	if best == Inf {
		// No empty goal of the phase is in reach of the box: a move of
		// little use now.
		return term + packGoalWeight/4, false
	}
	return term + 2*(best+1) - 2*closer, closer > 0
}
