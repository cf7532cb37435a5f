package engine

// The packing search: best-first search steered by the level's fill phases
// (phases.go), for goal-room levels under ObjectiveAny, in three keyings
// that run in turn (each is brittle where the others are not).
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
// phase distances, which wall off the earlier phases' goals. A plan's
// parking squares (phases.go) count as goals of their phase, filled while
// a box stands there and, once every phase before their goal's is filled,
// whether or not one does (packPhase); a box on one is home until that
// goal's phase comes.
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
// The bound keying is the progress keying with the boxes' distances added:
// its key is the progress key plus packBoundWeight times the sum, over the
// boxes, of each one's push distance to its nearest goal (YASS's simple
// lower bound, which YASS's own key holds too). A push that takes a box
// nearer some goal then pays for itself even when it does not serve the
// phase, and one that takes a box away costs more, so among the states a
// plateau of the progress key holds (many pushes are free there) it goes
// first to those with the boxes nearer home; where the progress keying is
// drawn into an early goal bought with boxes left far off, this one is not.
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
// the default strategy the three keyings run on the levels that qualify
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
	// packBoundWeight weighs the boxes' distances in the bound keying: at
	// 2, a push that takes a box one square nearer its nearest goal lowers
	// the key even when it is unproductive.
	packBoundWeight = 2
)

// packKeying says how a packing search keys its states.
type packKeying uint8

const (
	packProgress packKeying = iota + 1 // unproductive pushes free: YASS's
	packSubgoal                        // A* towards the next goal
	packBound                          // the progress keying plus the boxes' distances: YASS's whole key
)

// packGuide is the packing search's state in a searcher.
type packGuide struct {
	on      bool
	keying  packKeying
	phases  [][]uint16 // fill phases, first first: goals and parking squares
	targets int        // the squares in all phases
	pdist   [][]uint16 // per square: phase distances to it from every square, nil off the targets
	phaseOf []int16    // per square: its target's phase, -1 off the targets
	// goalOf: per parking square, the goal its box goes on to, noSquare
	// for other squares
	goalOf []uint16
	cur    int // the phase being filled in the position packMove saw
	// near: per square, a lone box's push distance to its nearest goal
	// (the bound keying's only); dist: their sum over the boxes of the
	// position being expanded, so that a child's costs one move's change
	dist int
	near []uint16
	// seed, when not 0, adds a pseudo-random term below packNoise to
	// every key, the same for a position whenever it is keyed (restart.go)
	seed uint64
}

// init sets the guide up with the level's fill phases fp, nil for none.
func (g *packGuide) init(b *Board, fp *fillPlan, keying packKeying, seed uint64) {
	g.on, g.keying, g.seed = fp != nil, keying, seed
	if !g.on {
		return
	}
	g.phases = fp.phases
	n := b.Squares + 1
	g.pdist = make([][]uint16, n)
	for i, t := range b.Goals {
		g.pdist[t] = fp.dist[i]
	}
	g.phaseOf, g.goalOf = make([]int16, n), make([]uint16, n)
	for i := range g.phaseOf {
		g.phaseOf[i], g.goalOf[i] = -1, noSquare
	}
	for _, p := range fp.park {
		g.pdist[p.sq], g.goalOf[p.sq] = p.dist, p.goal
	}
	if keying == packBound {
		g.near = b.NearestGoal()
	}
	for k, targets := range g.phases {
		g.targets += len(targets)
		for _, sq := range targets {
			g.phaseOf[sq] = int16(k)
		}
	}
}

// filled reports whether target t counts as filled while phase due is
// being filled: a box on it or, for a parking square, its goal's phase
// come.
func (g *packGuide) filled(t uint16, boxAt []int16, due int) bool {
	return boxAt[t] >= 0 || g.goalOf[t] != noSquare && int(g.phaseOf[g.goalOf[t]]) <= due
}

// home reports whether a box on sq is where the plan wants it while phase
// cur is being filled: on a target of that phase or an earlier one, and
// for a parking square, before its box's goal is due.
func (g *packGuide) home(sq uint16) bool {
	ph := g.phaseOf[sq]
	if ph < 0 || int(ph) > g.cur {
		return false
	}
	return g.goalOf[sq] == noSquare || int(g.phaseOf[g.goalOf[sq]]) > g.cur
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

// boxDistances returns the sum of near over the boxes on squares boxes.
func (g *packGuide) boxDistances(boxes []uint16) int {
	sum := 0
	for _, b := range boxes {
		sum += int(g.near[b])
	}
	return sum
}

// packTerm returns the packing part of the key of the position on the
// board (all but g and h), reached by the move that took a box from from to
// to (noSquare for the start), and whether that move was productive (which
// only the progress keying asks).
func (s *searcher) packTerm(from, to uint16) (term int, productive bool) {
	switch s.pk.keying {
	case packSubgoal:
		term = s.subgoalTerm()
	case packBound:
		term, productive = s.progressTerm(from, to)
		if from == noSquare {
			term += packBoundWeight * s.pk.boxDistances(s.boxes) // the root
		} else {
			// One box has moved since expand summed the distances.
			term += packBoundWeight * (s.pk.dist - int(s.pk.near[from]) + int(s.pk.near[to]))
		}
	default:
		term, productive = s.progressTerm(from, to)
	}
	if s.pk.seed != 0 {
		term += keyNoise(s.boxHash, s.pk.seed)
	}
	return term, productive
}

// packPhase sets g.cur, the phase being filled, and returns the targets
// filled in phase order.
//
// A parking square counts as filled while a box stands on it and, once
// its goal's phase has come (every other target of the phases before it
// filled), whether or not one does: its box must leave it then (YASS
// keeps the phase on the position and does not retreat for that). Before
// then a box on the goal does not fill it: the plan parks a box there
// because the goal must be filled later. The phase is found with all
// parking squares' goals taken as due, then again with its own bound
// until it holds.
func (g *packGuide) packPhase(boxAt []int16) (done int) {
	due := len(g.phases)
	for {
		done = g.filledUpTo(boxAt, due)
		if g.cur == due {
			return done
		}
		due = g.cur
	}
}

// filledUpTo sets g.cur to the first phase with a target not filled when
// the parking squares' goals of phases up to due are due, and returns the
// targets filled before it and in it.
func (g *packGuide) filledUpTo(boxAt []int16, due int) (done int) {
	g.cur = len(g.phases)
	for k, targets := range g.phases {
		filled := 0
		for _, sq := range targets {
			if g.filled(sq, boxAt, due) {
				filled++
			}
		}
		done += filled
		if filled < len(targets) {
			g.cur = k
			break
		}
	}
	return done
}

// subgoalTerm is the subgoal keying's term of the position on the board.
func (s *searcher) subgoalTerm() int {
	g := &s.pk
	term := packGoalWeight * (g.targets - g.packPhase(s.boxAt))
	if g.cur == len(g.phases) {
		return term
	}
	best := Inf
	for _, t := range g.phases[g.cur] {
		if g.filled(t, s.boxAt, g.cur) {
			continue
		}
		pd := g.pdist[t]
		for _, b := range s.boxes {
			if g.home(b) {
				continue
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
	term = packGoalWeight * (g.targets - g.packPhase(s.boxAt))
	if to == noSquare || g.cur == len(g.phases) {
		return term, false
	}
	if g.home(to) {
		return term, true // the box is home
	}
	best, closer := Inf, 0
	for _, t := range g.phases[g.cur] {
		if g.filled(t, s.boxAt, g.cur) {
			continue
		}
		pd := g.pdist[t]
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
