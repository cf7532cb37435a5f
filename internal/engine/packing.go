package engine

// The packing search: best-first search steered by the level's fill phases
// (phases.go), for goal-room levels under ObjectiveAny, in two keyings that
// run in turn (each is brittle where the other is not).
//
// The progress keying, after YASS's packing-order search: a state's key is
//
//	g + packGoalWeight*(goals not yet filled in phase order) + the last move's term
//
// where g counts only the pushes on the state's path that brought no box
// nearer an empty goal of the current phase (a push that does is free, so a
// box is taken home in one go and others are rearranged only as far as
// needed), and the last move's term is twice
// the pushed box's distance (plus one) to the nearest empty goal of the
// current phase, less two for each such goal it came nearer: of the boxes
// that could move, the one nearest the goals goes first. A goal counts as
// filled in phase order when it and all goals of earlier phases hold boxes
// (the current phase is the first with an empty goal); distances are the
// phase distances, which wall off the earlier phases' goals.
//
// The key leaves out the heuristic's bound (YASS adds its simple one): the
// bound rewards pushing every box nearer some goal, which the phases are
// there to overrule, and with it the search spread over the pushes of
// boxes the current phase does not need. The bound still prunes positions
// it proves dead. The goal macros (goalmacro.go) take a box home in one
// move; where their area's order and the fill plan differ, the fall-back
// to the plain push (expand.go) keeps the plan's way open.
//
// Ties go to the deeper state, so that the search follows a box home
// without a detour through its siblings; children of a PI-corral
// expansion keep their parent's key (expand.corralKey), since the corral
// must be opened before anything else and its pushes are no step back.
//
// The subgoal keying is A* towards the next goal: g counts every push, and
// the key is g + packGoalWeight*(goals not filled in phase order) +
// packSubgoalWeight*(the fewest pushes from a box not home to an empty goal
// of the current phase). It fills the next goal with
// the fewest pushes, moving other boxes only as far as needed, and does
// not push every box towards the goals at once.
//
// The keys say nothing of optimality; in the progress keying g is not the
// push count (the path's pushes are still counted in the solution). Under
// the default strategy both keyings run on the levels that qualify
// (packingLevel), in turns with the alternating search (interleave.go).

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
	// packSubgoalWeight weighs the distance to the next goal in the
	// subgoal keying.
	packSubgoalWeight = 2
)

// packKeying says how a packing search keys its states.
type packKeying uint8

const (
	packProgress packKeying = iota + 1 // unproductive pushes free: YASS's
	packSubgoal                        // A* towards the next goal
)

// packGuide is the packing search's state in a searcher.
type packGuide struct {
	on      bool
	keying  packKeying
	phases  [][]uint16 // fill phases, first first
	pdist   [][]uint16 // per goal index: phase distances from every square
	phaseOf []int16    // per square: its goal's phase, -1 off the goals
	cur     int        // the phase being filled in the position packMove saw
}

// init sets the guide up with the level's fill phases fp, nil for none.
func (g *packGuide) init(b *Board, fp *fillPlan, keying packKeying) {
	g.on, g.keying = fp != nil, keying
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

// packTerm returns the packing part of the key of the position on the
// board (all but g and h), reached by the move that took a box from from to
// to (noSquare for the start), and whether that move was productive (which
// only the progress keying asks).
func (s *searcher) packTerm(from, to uint16) (term int, productive bool) {
	if s.pk.keying == packSubgoal {
		return s.subgoalTerm(), false
	}
	return s.progressTerm(from, to)
}

// packPhase sets g.cur, the phase being filled, and returns the goals
// filled in phase order.
func (g *packGuide) packPhase(boxAt []int16) (done int) {
	g.cur = len(g.phases)
	for k, goals := range g.phases {
		filled := 0
		for _, sq := range goals {
			if boxAt[sq] >= 0 {
				filled++
			}
		}
		done += filled
		if filled < len(goals) {
			g.cur = k
			break
		}
	}
	return done
}

// subgoalTerm is the subgoal keying's term of the position on the board.
func (s *searcher) subgoalTerm() int {
	g := &s.pk
	term := packGoalWeight * (len(s.boxes) - g.packPhase(s.boxAt))
	if g.cur == len(g.phases) {
		return term
	}
	best := Inf
	for _, t := range g.phases[g.cur] {
		if s.boxAt[t] >= 0 {
			continue
		}
		pd := g.pdist[s.b.GoalIndex[t]]
		for _, b := range s.boxes {
			if ph := g.phaseOf[b]; ph >= 0 && int(ph) <= g.cur {
				continue // home
			}
			if d := int(pd[b]); d < best {
				best = d
			}
		}
	}
	if best == Inf {
		best = packGoalWeight // no box reaches the phase's goals
	}
	return term + packSubgoalWeight*best
}

// progressTerm is the progress keying's term of the move that has just
// taken a box from from to to (the position after it is on the board),
// and whether the move was productive.
func (s *searcher) progressTerm(from, to uint16) (term int, productive bool) {
	g := &s.pk
	term = packGoalWeight * (len(s.boxes) - g.packPhase(s.boxAt))
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
