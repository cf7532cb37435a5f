package engine

import (
	"context"
	"slices"

	"github.com/sokod/sokod/board"
)

// Fill phases: a packing order for the whole level, from a reverse search
// (the packing search's guide, packing.go; after YASS's packing order).
//
// Start from the solved position, every goal filled. In each round, every
// filled goal whose box could be pulled away to a square where a box
// starts, one not claimed yet, the other filled goals' boxes standing, is
// emptied, and it claims that start square; those goals form the round's
// phase. (When no box can reach a free start square, a round may pull to
// any square off the goals that a lone start box can be pushed to.)
// Rounds repeat until every goal is empty; read backwards, they are the
// phases in which the goals are filled, phases[0] first. Emptying goals
// only frees squares, so every goal of a phase can still be reached when
// some of its phase's others are filled: within a phase the goals can be
// filled in any order. A box that starts on a goal is pulled away like any
// other (it may have to make room and come back); when a round empties
// nothing but such goals are left, they are filled from the start. When a
// round empties nothing else, there is no plan.
//
// Parking (YASS's packing order does the same): when, in a round, no
// goal's box can be pulled to a start square, one goal's box that can be
// pulled to a square off the goals where no box starts is parked there
// instead: it stays on the board, and a later round must pull it on to a
// start square. Read forwards, the parking square is a target of an
// earlier phase (a box is brought there first) and the goal one of a later
// phase (the box goes on from there). Which box and which square is a
// choice that later rounds may prove wrong, so the reverse search with
// parking backtracks (parkplan.go). When it finds no plan, the plan is
// made again without parking, a box pulled to such a square then leaving
// the board.
//
// The player stands, in the solved position, in one region of the board
// with every goal filled: that of its start square (or of the first square
// off the goals when the start is on one), and when no plan comes from
// there, each other region in turn. A pull needs the player on the side
// the box moves to and the square beyond free, and it must leave the player
// a way back to that region (but for the last box): the reverse search
// does not follow the player from pull to pull, and without the way back
// its plan could ask for boxes from both sides of a box the player cannot
// pass. When no region gives a plan that way, the start's region is tried
// again without it.
//
// The phase distances are, for every target (goal or parking square), the
// fewest pushes that bring a lone box from each square to it when the
// targets of the earlier phases hold boxes that can never move again (boxes
// there that could still be pushed aside are no obstacle, nor is the box
// parked for it): the distances that matter once the earlier phases are
// filled.

// fillPlan is a level's fill phases and phase distances.
type fillPlan struct {
	phases [][]uint16 // targets: goals, and parking squares
	dist   [][]uint16 // per goal index, per square
	park   []parking
}

// samePhases reports whether p and q fill the same targets in the same
// phases.
func (p *fillPlan) samePhases(q *fillPlan) bool {
	return slices.EqualFunc(p.phases, q.phases, func(a, b []uint16) bool {
		return slices.Equal(a, b)
	}) && slices.EqualFunc(p.park, q.park, func(a, b parking) bool { return a.sq == b.sq && a.goal == b.goal })
}

// parking is a parking square of a fill plan: the square, the goal its
// box goes on to, and the phase distances to the square.
type parking struct {
	sq, goal uint16
	dist     []uint16
}

// maxPhaseWork bounds the squares the reverse searches of one plan may
// visit, so that a huge board gets no plan rather than a long wait.
const maxPhaseWork = 50_000_000

// newFillPlan computes b's fill plan, nil when there is none, when it would
// cost more than maxPhaseWork, or when ctx ends first (on a board of
// hundreds of boxes the plan takes longer than a short time limit).
func newFillPlan(ctx context.Context, b *Board) *fillPlan {
	ps := newPhaseSearch(b)
	ps.work, ps.bounded, ps.stop = maxPhaseWork, true, ctx.Done()
	var phases [][]uint16
	anchors := ps.anchors()
	for _, anchor := range anchors {
		if phases = ps.plan(anchor); phases != nil || ps.spent() {
			break
		}
	}
	if phases == nil && !ps.spent() && len(anchors) > 0 {
		// A rough plan is a better guide than none.
		ps.anyWay = true
		phases = ps.plan(anchors[0])
	}
	if phases == nil || ps.spent() {
		return nil
	}
	return ps.finish(phases)
}

// newTrackedPlan computes b's fill plan by the reverse search with the
// player followed (trackedplan.go), nil as newFillPlan's; it gets the
// share of the work that the search with parking gets there.
func newTrackedPlan(ctx context.Context, b *Board) *fillPlan {
	ps := newPhaseSearch(b)
	ps.work, ps.bounded, ps.stop = maxPhaseWork/4, true, ctx.Done()
	for _, anchor := range ps.anchors() {
		if phases := ps.trackedSearch(anchor); phases != nil {
			return ps.finish(phases)
		}
		if ps.spent() {
			break
		}
	}
	return nil
}

// finish returns the plan of the phases the last reverse search found,
// with its parkings and phase distances, nil when the work runs out.
func (ps *phaseSearch) finish(phases [][]uint16) *fillPlan {
	plan := &fillPlan{phases: phases}
	for sq := range ps.b.Squares {
		if g := ps.parkedFor[sq]; g != noSquare {
			plan.park = append(plan.park, parking{sq: uint16(sq), goal: g})
		}
	}
	ps.phaseDistances(plan)
	if ps.spent() {
		return nil
	}
	return plan
}

// plan returns the phases with the player in the region of anchor, with
// parking or else without, nil for none.
func (ps *phaseSearch) plan(anchor uint16) [][]uint16 {
	// The search with parking may take a quarter of the work left; the
	// plan without parking keeps the rest. The parking searches that
	// succeed take far less, and one that fails would otherwise spend
	// its whole share before the level gets its plan.
	reserve := ps.work - ps.work/4
	ps.work -= reserve
	phases := ps.parkSearch(anchor)
	ps.work = max(ps.work, 0) + reserve
	if phases == nil && !ps.spent() {
		phases = ps.run(anchor)
	}
	return phases
}

// reset puts every goal's box back for a new reverse search.
func (ps *phaseSearch) reset() {
	b := ps.b
	clear(ps.filled)
	for i := range ps.parkedFor {
		ps.parkedFor[i] = noSquare
	}
	for _, g := range b.Goals {
		ps.filled[g] = true
	}
	ps.used = make([]bool, b.Squares+1)
	ps.reached = make([]bool, b.Squares+1)
}

// spent reports whether a bounded search has used up its work or its
// context has ended.
func (ps *phaseSearch) spent() bool {
	if !ps.bounded {
		return false
	}
	if ps.work < 0 {
		return true
	}
	select {
	case <-ps.stop:
		ps.work = -1
		return true
	default:
		return false
	}
}

type phaseSearch struct {
	b       *Board
	filled  []bool // goals whose boxes stand in the reverse search
	start   []bool // squares where a box starts
	source  []bool // squares off the goals a lone start box can be pushed to
	fl      *board.BlockedFlood
	back    *board.BlockedFlood // the player's way back after a pull (pullsAway)
	seen    []int32             // pull states sq*4+side reached, per search
	done    []int32             // pull states whose player region was flooded
	sgen    int32
	queue   []int32
	work    int // squares the floods may still visit, when bounded
	bounded bool
	stop    <-chan struct{} // the plan's context's Done, when bounded
	depth   []uint16        // pull search depths, parallel to queue
	// toStart: a pull must end on a start square not claimed yet (used)
	toStart bool
	used    []bool
	// reached: start squares the player has reached in the search with
	// parking (parkSearch waits for all)
	reached []bool
	tries   int      // parkings parkSearch may still try
	dist    []uint16 // scratch distances (pullDistancesInto)
	// parkedFor: per square, the goal whose box is parked there, else
	// noSquare
	parkedFor []uint16
	// The search with the player followed (trackedplan.go): pl floods the
	// player's reach, area stamps the squares a box's pulls reach, cands
	// is scratch; large and endGame are its thresholds.
	pl             *board.BlockedFlood
	area           []int32
	agen           int32
	cands          []uint16
	large, endGame int
	last           bool // one target is left in the reverse search (getsBack)
	anyWay         bool // no way back needed: no region gave a plan with one
}

func newPhaseSearch(b *Board) *phaseSearch {
	n := b.Squares + 1
	ps := &phaseSearch{b: b, filled: make([]bool, n), start: make([]bool, n), source: make([]bool, n),
		fl: board.NewBlockedFlood(b), back: board.NewBlockedFlood(b), seen: make([]int32, n*4), done: make([]int32, n*4),
		dist: make([]uint16, n), parkedFor: make([]uint16, n)}
	for _, sq := range b.StartBoxes {
		ps.start[sq] = true
	}
	ps.sources()
	return ps
}

// sources marks the squares off the goals that a lone box starting on a
// start square can be pushed to, the player starting on its start square.
func (ps *phaseSearch) sources() {
	b := ps.b
	wall := b.Wall()
	ps.sgen++
	gen := ps.sgen
	ps.queue = ps.queue[:0]
	for _, sq := range b.StartBoxes {
		// The player's side of the box at the start: the region holding the
		// player when the box stands alone on sq.
		lbl := b.Region(sq, b.StartPlayer)
		for d := 0; d < 4; d++ {
			if b.Nbr[int(sq)*4+d] != wall && b.SideRegion[int(sq)*4+d] == lbl && ps.seen[int(sq)*4+d] != gen {
				ps.visitSides(sq, d, gen)
				break
			}
		}
	}
	for head := 0; head < len(ps.queue); head++ {
		st := ps.queue[head]
		sq, d := uint16(st/4), int(st%4)
		lbl := b.SideRegion[int(sq)*4+d]
		for e := 0; e < 4; e++ {
			// A push towards e needs the player on the opposite side.
			if b.SideRegion[int(sq)*4+(e^2)] != lbl || b.Nbr[int(sq)*4+(e^2)] == wall {
				continue
			}
			t := b.Nbr[int(sq)*4+e]
			if t == wall || b.Dead[t] || ps.seen[int(t)*4+(e^2)] == gen {
				continue
			}
			ps.visitSides(t, e^2, gen)
		}
	}
	for st := range ps.seen {
		if ps.seen[st] == gen && b.GoalIndex[st/4] < 0 {
			ps.source[st/4] = true
		}
	}
}

// visitSides marks the lone-box state (sq, side d) and the sides in the same
// player region as seen, and queues it.
func (ps *phaseSearch) visitSides(sq uint16, d int, gen int32) {
	b := ps.b
	lbl := b.SideRegion[int(sq)*4+d]
	for e := 0; e < 4; e++ {
		if b.SideRegion[int(sq)*4+e] == lbl {
			ps.seen[int(sq)*4+e] = gen
		}
	}
	ps.queue = append(ps.queue, int32(sq)*4+int32(d))
}

// flood stamps the squares the player reaches from sq, the filled goals and
// the square box blocked; it returns the stamp.
func (ps *phaseSearch) flood(sq, box uint16) int32 {
	gen, reached := ps.fl.Run(ps.b, sq, box, ps.filled)
	ps.work -= reached
	return gen
}

// anchors returns the player's squares to try for the reverse search, one
// per player region of the solved position: the start square's region
// first (or that of the first square off the goals when the start is on
// one), then the others in square order. Where the filled goals cut the
// board in two, the solution may end with the player on either side
// (YASS's packing order tries every region too).
func (ps *phaseSearch) anchors() []uint16 {
	b := ps.b
	for _, g := range b.Goals {
		ps.filled[g] = true
	}
	defer clear(ps.filled)
	// The floods' stamps only grow: a square stamped above first is in a
	// region found already.
	first := ps.fl.Fresh()
	var out []uint16
	if b.GoalIndex[b.StartPlayer] < 0 {
		out = append(out, b.StartPlayer)
		ps.flood(b.StartPlayer, b.Wall())
	}
	for sq := uint16(0); int(sq) < b.Squares; sq++ {
		if b.GoalIndex[sq] < 0 && ps.fl.Reach[sq] <= first {
			out = append(out, sq)
			ps.flood(sq, b.Wall())
		}
	}
	return out
}

// run returns the rounds read forwards, the phases, with the player in the
// region of anchor and no parking (parkSearch parks), nil when there is no
// plan.
func (ps *phaseSearch) run(anchor uint16) [][]uint16 {
	b := ps.b
	ps.reset()
	var rounds [][]uint16
	left := len(b.Goals)
	for left > 0 && !ps.spent() {
		var out []uint16
		ps.toStart, ps.last = true, left == 1
		for _, t := range b.Goals {
			if ps.filled[t] && ps.pullsAway(t, anchor) {
				out = append(out, t)
			}
		}
		if len(out) == 0 {
			ps.toStart = false
			for _, g := range b.Goals {
				if !ps.filled[g] || !ps.pullsAway(g, anchor) {
					continue
				}
				out = append(out, g)
			}
		}
		if len(out) == 0 {
			out = ps.startGoals(out)
		}
		if len(out) == 0 {
			return nil
		}
		for _, t := range out {
			ps.filled[t] = false
		}
		left -= len(out)
		rounds = append(rounds, out)
	}
	slices.Reverse(rounds)
	return rounds
}

// startGoals appends to out the filled goals whose boxes start there:
// when no box can leave them, they are filled from the start.
func (ps *phaseSearch) startGoals(out []uint16) []uint16 {
	for _, g := range ps.b.Goals {
		if ps.filled[g] && ps.start[g] {
			out = append(out, g)
		}
	}
	return out
}

// pullsAway reports whether the box on goal g can be pulled to a start
// square not claimed yet (which it then claims) or, without toStart, to a
// source square, the other filled goals' boxes standing and the player
// starting in the region of anchor.
func (ps *phaseSearch) pullsAway(g, anchor uint16) bool {
	b := ps.b
	return ps.pulls(g, anchor, func(q, p uint16) bool {
		if ps.toStart {
			if ps.start[q] && !ps.used[q] && b.GoalIndex[q] < 0 && ps.getsBack(q, p, anchor) {
				ps.used[q] = true
				return true
			}
			return false
		}
		return ps.source[q] && !ps.filled[q] && ps.getsBack(q, p, anchor)
	})
}

// pulls runs the pull search of the box on goal g, the other filled
// squares standing and the player starting in the region of anchor: it
// calls at on every pull, with the square q the box lands on and the
// square p the player steps on to, until at returns true, and reports
// whether it did.
func (ps *phaseSearch) pulls(g, anchor uint16, at func(q, p uint16) bool) bool {
	b := ps.b
	wall := b.Wall()
	ps.filled[g] = false
	defer func() { ps.filled[g] = true }()
	ps.sgen++
	gen := ps.sgen
	ps.queue = ps.queue[:0]
	fg := ps.flood(anchor, g)
	for e := 0; e < 4; e++ {
		if q := b.Nbr[int(g)*4+e]; q != wall && ps.fl.Reach[q] == fg {
			ps.seen[int(g)*4+e] = gen
			ps.queue = append(ps.queue, int32(g)*4+int32(e))
		}
	}
	for head := 0; head < len(ps.queue) && !ps.spent(); head++ {
		st := ps.queue[head]
		if ps.done[st] == gen {
			continue
		}
		box, side := uint16(st/4), int(st%4)
		fg := ps.flood(b.Nbr[int(box)*4+side], box)
		for e := 0; e < 4; e++ {
			if q := b.Nbr[int(box)*4+e]; q != wall && ps.fl.Reach[q] == fg {
				ps.done[int(box)*4+e] = gen
			}
		}
		for e := 0; e < 4; e++ {
			// Pull towards e: the player on q steps on to q2, the box
			// follows onto q.
			q := b.Nbr[int(box)*4+e]
			if q == wall || ps.fl.Reach[q] != fg {
				continue
			}
			q2 := b.Nbr[int(q)*4+e]
			if q2 == wall || ps.filled[q2] {
				continue
			}
			if at(q, q2) {
				return true
			}
			if ns := int32(q)*4 + int32(e); ps.seen[ns] != gen {
				ps.seen[ns] = gen
				ps.queue = append(ps.queue, ns)
			}
		}
	}
	return false
}

// getsBack reports whether the player, having pulled a box onto q and
// stepped on to p, can walk back to anchor (see the player above; YASS's
// test for where a pull may end). The last box's pull needs no way back.
func (ps *phaseSearch) getsBack(q, p, anchor uint16) bool {
	if ps.last || ps.anyWay {
		return true
	}
	gen, reached := ps.back.Run(ps.b, p, q, ps.filled)
	ps.work -= reached
	return ps.back.Reach[anchor] == gen
}

// phaseDistances sets the plan's phase distances: for every target, the
// fewest pushes that bring a lone box from each square to it when the
// targets of the earlier phases hold boxes that can no longer move (Inf
// when it cannot). A box on an earlier target that could still be moved
// aside is no obstacle, nor is the box parked for a goal. These are the
// distances that matter once the earlier phases are filled.
func (ps *phaseSearch) phaseDistances(plan *fillPlan) {
	b := ps.b
	plan.dist = make([][]uint16, len(b.Goals))
	parkOf := make(map[uint16]int, len(plan.park)) // goal -> index in plan.park
	at := make(map[uint16]int, len(plan.park))     // parking square -> index
	for i, p := range plan.park {
		parkOf[p.goal], at[p.sq] = i, i
	}
	clear(ps.filled)
	for _, targets := range plan.phases {
		ps.freezeFilled()
		for _, t := range targets {
			if i, ok := parkOf[t]; ok {
				// The box parked for t is no obstacle on its way there.
				was := ps.filled[plan.park[i].sq]
				ps.filled[plan.park[i].sq] = false
				plan.dist[b.GoalIndex[t]] = ps.pullDistances(t)
				ps.filled[plan.park[i].sq] = was
				continue
			}
			if i, ok := at[t]; ok {
				plan.park[i].dist = ps.pullDistances(t)
				continue
			}
			plan.dist[b.GoalIndex[t]] = ps.pullDistances(t)
		}
		for _, t := range targets {
			ps.filled[t] = true
		}
	}
	clear(ps.filled)
}

// freezeFilled keeps in ps.filled only the boxes that can never move: the
// greatest set of filled squares each of which is blocked on both axes by a
// wall or another box of the set (a box that can move along an axis, both
// squares beside it being free of walls and of the set, leaves it).
func (ps *phaseSearch) freezeFilled() {
	b := ps.b
	wall := b.Wall()
	blocked := func(x uint16) bool { return x == wall || ps.filled[x] }
	for changed := true; changed; {
		changed = false
		for sq := uint16(0); int(sq) < b.Squares; sq++ {
			if !ps.filled[sq] {
				continue
			}
			nb := b.Nbr[int(sq)*4 : int(sq)*4+4]
			if (!blocked(nb[0]) && !blocked(nb[2])) || (!blocked(nb[1]) && !blocked(nb[3])) {
				ps.filled[sq] = false
				changed = true
			}
		}
	}
}

// pullDistances returns the fewest pushes from every square to goal t for
// a lone box, the filled squares blocked: a breadth-first search of pulls
// from t over (box square, player side) states.
func (ps *phaseSearch) pullDistances(t uint16) []uint16 {
	return ps.pullDistancesInto(t, make([]uint16, ps.b.Squares+1))
}

// pullDistancesInto is pullDistances into dist (Squares+1 long), with the
// search's depth scratch reused, so that it allocates nothing in steady
// state.
func (ps *phaseSearch) pullDistancesInto(t uint16, dist []uint16) []uint16 {
	b := ps.b
	wall := b.Wall()
	for i := range dist {
		dist[i] = Inf
	}
	if ps.filled[t] {
		return dist
	}
	ps.sgen++
	gen := ps.sgen
	ps.queue = ps.queue[:0]
	depth := ps.depth[:0]
	defer func() { ps.depth = depth[:0] }()
	for e := 0; e < 4; e++ {
		if q := b.Nbr[int(t)*4+e]; q != wall && !ps.filled[q] {
			ps.seen[int(t)*4+e] = gen
			ps.queue = append(ps.queue, int32(t)*4+int32(e))
			depth = append(depth, 0)
		}
	}
	dist[t] = 0
	for head := 0; head < len(ps.queue) && !ps.spent(); head++ {
		st := ps.queue[head]
		if ps.done[st] == gen {
			continue
		}
		box, side := uint16(st/4), int(st%4)
		d := depth[head]
		fg := ps.flood(b.Nbr[int(box)*4+side], box)
		for e := 0; e < 4; e++ {
			if q := b.Nbr[int(box)*4+e]; q != wall && ps.fl.Reach[q] == fg {
				ps.done[int(box)*4+e] = gen
			}
		}
		for e := 0; e < 4; e++ {
			q := b.Nbr[int(box)*4+e]
			if q == wall || ps.fl.Reach[q] != fg {
				continue
			}
			q2 := b.Nbr[int(q)*4+e]
			if q2 == wall || ps.filled[q2] {
				continue
			}
			if d+1 < dist[q] {
				dist[q] = d + 1
			}
			if ns := int32(q)*4 + int32(e); ps.seen[ns] != gen {
				ps.seen[ns] = gen
				ps.queue = append(ps.queue, ns)
				depth = append(depth, d+1)
			}
		}
	}
	return dist
}
