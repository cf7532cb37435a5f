package engine

import (
	"context"
	"time"
)

// Interleaved searches: the searches of one Solve (searchStages) take turns
// of about turnTime, each in its own part of the workspace. Which
// of them solves a level fast differs from level to level, and one that
// solves it at all mostly does so within a small part of the budget; in
// turns, a level is solved at about the pace of the best of them times
// their number, where running them one after another with a share each
// makes it wait for the shares of those before.
//
// The searches share the clock, the deadline and the node budget, and
// hand their learned deadlocks on at every turn (they are facts of the
// board). A search that fills its part of the memory drops out and the
// others go on; one that solves the level, proves it unsolvable or meets
// the deadline ends them all.

// sliceNodes is the expansions in one turn: enough that a turn costs
// nothing beside them, few enough that a search which finds a solution in
// a few thousand expansions is not kept waiting. With a clock, each
// search's turns are sized to last turnTime instead, since the searches'
// expansions cost very different times on some levels (the subgoal
// keying's frozen-goal tests, the sub-searches).
const (
	sliceNodes = 1024
	turnTime   = 10 * time.Millisecond
	minTurn    = 16
	maxTurn    = 1 << 16
)

// turnSlot is one search of the rotation and its part of the workspace. A
// search run again in its place (see schedule.run) takes over the slot.
type turnSlot struct {
	s     *searcher
	ws    *Workspace
	begun bool
	ended bool
	peak  int64 // the most memory a search in this slot took
	turn  int64 // expansions in its next turn
	// opts are the search's options; a packing search starts again with
	// a new seed (restart.go) once it has expanded restartAt states in
	// its run (run, from 0)
	opts      Options
	run       int64
	restartAt int64
	// altFirst: the slot's runs start on the second plan (schedule.alt).
	altFirst bool
}

// schedule runs the searches of one Solve in turns.
type schedule struct {
	b     *Board
	opts  Options
	st    *Stats
	slots []*turnSlot
	last  *searcher // the search that ran last: its learned sets are the newest
	start time.Time
	rerun bool  // a plain search runs in the place of one under goal macros
	turn  int64 // expansions in a first turn
	timed bool  // turns are sized by the clock

	// counts of the searches retired from their slots, for the budget and
	// the progress reports
	doneNodes, doneGenerated int64
	sentAt                   time.Duration // Elapsed of the last progress report passed on
	sent                     bool

	// plan is the packing searches' fill plan; alt, made once (altMade)
	// as the bound keying's search starts, is the plan of the reverse
	// search with the player followed when the two differ
	// (trackedplan.go). That search starts on alt, the others on plan,
	// and each one's restarts take the two in turns.
	plan, alt *fillPlan
	altMade   bool

	// back is the backward search (backward.go), made on backWS at its
	// first turn, nil before and when none runs; it takes its turn after
	// the forward searches' and never decides an outcome but a solution,
	// which backPushes then holds.
	back       *pullSearch
	backWS     *Workspace
	backTurn   int64
	backEnded  bool
	backPushes []push
}

// solveStages runs the searches of one Solve (searchStages) in turns on
// parts of ws, and returns the one that decided the outcome, with the
// outcome; it adds the counts of all of them to st. The search returned
// still holds its path (Solve reads the solution from it and finishes it),
// unless the backward search found the solution: back then holds its
// pushes.
func solveStages(ctx context.Context, b *Board, opts Options, ws *Workspace, st *Stats) (s *searcher, status Status, reason string, goal uint32, back []push) {
	stages := searchStages(ctx, b, opts, st)
	backward := backwardRuns(opts)
	parts, n := []*Workspace{ws}, len(stages)
	if backward {
		n++ // the backward search takes the last part
	}
	if n > 1 {
		parts = ws.split(n)
	}
	sc := &schedule{b: b, opts: opts, st: st, turn: sliceNodes, timed: opts.Clock != nil}
	if opts.turnNodes > 0 {
		sc.turn, sc.timed = opts.turnNodes, false
	}
	if backward {
		sc.backWS, sc.backTurn = parts[len(parts)-1], sc.turn
	}
	for i, o := range stages {
		sc.add(ctx, o, parts[i])
	}
	s, status, reason, goal = sc.run(ctx)
	if status == Solved && sc.backPushes == nil && s.met != noRecord {
		sc.st.Backward = true
		sc.backPushes = sc.back.pushesFrom(s.pushPath(goal), s.met)
	}
	st.MemoryUsed = 0
	for _, sl := range sc.slots {
		if !sl.ended {
			sc.retire(sl, sl.s != s)
		}
		st.MemoryUsed += sl.peak
	}
	if ps := sc.back; ps != nil {
		st.Nodes += ps.nodes
		st.Generated += ps.generated
		st.BackwardNodes = ps.nodes
		st.MemoryUsed += ps.memoryUsed()
	}
	return s, status, reason, goal, sc.backPushes
}

// backwardRuns reports whether a Solve with opts runs the backward search
// beside the forward ones: under ObjectiveAny with the default strategy,
// which asks for a solution, not a proof of its length.
func backwardRuns(opts Options) bool {
	return opts.Objective == ObjectiveAny && opts.Strategy == StrategyAlternate && opts.Off&TechBackward == 0
}

// add starts a search with options o in a new slot on ws. The bound
// keying's packing search starts on the second plan, where there is one:
// the plans fail on different levels, and so each gets an unperturbed run
// from the start.
func (sc *schedule) add(ctx context.Context, o Options, ws *Workspace) *turnSlot {
	if o.plan != nil {
		sc.plan = o.plan
	}
	sl := &turnSlot{ws: ws}
	if o.keying == packBound && sc.altPlan(ctx) != nil {
		o.plan, sl.altFirst = sc.alt, true
	}
	sc.slots = append(sc.slots, sl)
	sc.launch(sl, o)
	return sl
}

// launch starts a search with options o in slot sl, retiring the one
// before it there.
func (sc *schedule) launch(sl *turnSlot, o Options) {
	prev := sl.s
	if prev != nil && !sl.ended {
		sc.retire(sl, true)
	}
	sl.opts = o
	if o.Budget.Nodes > 0 {
		o.Budget.Nodes = max(1, o.Budget.Nodes-sc.nodes())
	}
	if sc.opts.OnProgress != nil {
		o.OnProgress = sc.report
	}
	s := newSearcher(sc.b, o.Heuristic, o, sl.ws)
	s.back = sc.back
	if s.clock != nil {
		now := s.clock()
		if sc.start.IsZero() {
			sc.start = now
		}
		s.start, s.lastProgress, s.lastCheck = sc.start, now, now
	}
	if prev != nil {
		s.bt.carry(prev.bt)
	}
	sl.s, sl.begun, sl.ended, sl.turn = s, false, false, sc.turn
	sl.restartAt = 0
	if s.pk.on && o.Off&TechRestarts == 0 {
		unit := int64(restartUnit)
		if o.restartNodes > 0 {
			unit = o.restartNodes
		}
		k := sl.run
		if sc.alt != nil {
			k /= 2 // each plan's runs follow the Luby sequence
		}
		sl.restartAt = unit * luby(k+1)
	}
}

// restart starts the packing search in slot sl again, its next run with a
// new seed (restart.go), or with the other plan.
func (sc *schedule) restart(ctx context.Context, sl *turnSlot) {
	sl.run++
	o := sl.opts
	o.seed = runSeed(sl.run)
	if alt := sc.altPlan(ctx); alt != nil {
		// The plans take turns, each unperturbed on its first run.
		i := sl.run % 2
		if sl.altFirst {
			i = 1 - i
		}
		o.plan = [2]*fillPlan{sc.plan, alt}[i]
		o.seed = runSeed(sl.run / 2)
	}
	sc.launch(sl, o)
	sc.st.Restarts++
}

// altPlan returns sc.alt, making it on the first call (never under
// TechSecondPlan).
func (sc *schedule) altPlan(ctx context.Context) *fillPlan {
	if !sc.altMade {
		sc.altMade = true
		if sc.opts.Off&TechSecondPlan != 0 {
			return nil
		}
		if alt := newTrackedPlan(ctx, sc.b); alt != nil && !alt.samePhases(sc.plan) {
			sc.alt = alt
		}
	}
	return sc.alt
}

// retire adds the counts of sl's search to the stats, while its part of
// the workspace still holds them, and, when finish is set, clears the path
// it left there.
func (sc *schedule) retire(sl *turnSlot, finish bool) {
	s := sl.s
	s.addStats(sc.st)
	if s.pk.on {
		sc.st.PackingNodes += s.nodes
	}
	sl.peak = max(sl.peak, s.memoryUsed())
	sc.doneNodes += s.nodes
	sc.doneGenerated += s.generated
	sl.ended = true
	if finish {
		s.finish()
	}
}

// run takes the searches in turns until one of them decides the outcome,
// or all have dropped out; it returns that search with the outcome.
func (sc *schedule) run(ctx context.Context) (*searcher, Status, string, uint32) {
	var (
		s      *searcher
		status Status
		reason string
	)
	for {
		live := false
		for _, sl := range sc.slots {
			if sl.ended {
				continue
			}
			live = true
			until := sl.s.nodes + sl.turn
			if n := sc.opts.Budget.Nodes; n > 0 {
				left := n - sc.nodes()
				if left <= 0 {
					return sl.s, GaveUp, ReasonNodes, 0
				}
				until = min(until, sl.s.nodes+left)
			}
			sc.handOver(sl.s)
			var begin time.Time
			if sc.timed {
				begin = sc.opts.Clock()
			}
			nodes := sl.s.nodes
			st, why, goal, end := sl.advance(ctx, until)
			if !end {
				if sc.timed {
					sl.resize(sl.s.nodes-nodes, sc.opts.Clock().Sub(begin))
				}
				if sl.restartAt > 0 && sl.s.nodes >= sl.restartAt {
					sc.restart(ctx, sl)
				}
				continue
			}
			switch {
			case st == Unsolvable && sl.s.gm.count > 0 && !sc.rerun:
				// Goal macros cut moves, so the exhausted search proves
				// nothing: the plain search runs in its place, so that
				// Unsolvable always rests on it.
				again := sc.opts
				again.Strategy = StrategyAlternate
				again.Off |= TechGoalMacros
				sc.launch(sl, again)
				sc.rerun, sc.st.GoalMacroRerun = true, true
			case st == Unsolvable && sl.s.gm.count > 0:
				// The plain search runs already: it decides.
				sc.retire(sl, true)
			case st == GaveUp && why == ReasonMemory:
				// The search's part of the memory is full: the others go
				// on. The plain search always ends this way or decides,
				// so an outcome is kept when all have dropped out.
				s, status, reason = sl.s, st, why
				sc.retire(sl, true)
			default:
				return sl.s, st, why, goal
			}
		}
		if !live {
			return s, status, reason, 0
		}
		if sc.backStep(ctx) {
			sc.st.Backward = true
			return sc.slots[0].s, Solved, "", 0
		}
	}
}

// backStep gives the backward search its turn, and reports whether it
// found the solution (sc.backPushes). The search is made at its first
// turn, after the forward searches' first: on a level with many boxes its
// tables take a while, which a context or deadline ending meanwhile cuts
// short. A turn with a clock ends once it has lasted turnTime, since its
// first one is sized before the search's pace is known.
func (sc *schedule) backStep(ctx context.Context) bool {
	if sc.backWS == nil || sc.backEnded {
		return false
	}
	if sc.back == nil {
		sc.back = newPullSearch(sc.b, sc.backWS, func() bool { return sc.stopped(ctx) })
		if sc.back == nil {
			sc.backEnded = true
			return false
		}
		for _, sl := range sc.slots {
			sl.s.back = sc.back
		}
	}
	ps := sc.back
	var begin time.Time
	if sc.timed {
		begin = sc.opts.Clock()
	}
	nodes := ps.nodes
	until := nodes + sc.backTurn
	if n := sc.opts.Budget.Nodes; n > 0 {
		until = min(until, nodes+max(0, n-sc.nodes()))
	}
	for ps.nodes < until {
		solved, end := ps.step()
		if solved {
			sc.backPushes = ps.pushes()
			return true
		}
		if end {
			sc.backEnded = true
			return false
		}
		if sc.timed && (ps.nodes-nodes)%minTurn == 0 && (sc.opts.Clock().Sub(begin) >= turnTime || ctx.Err() != nil) {
			break
		}
	}
	if sc.timed {
		sc.backTurn = nextTurn(sc.backTurn, ps.nodes-nodes, sc.opts.Clock().Sub(begin))
	}
	return false
}

// stopped reports whether the Solve's context or deadline has ended.
func (sc *schedule) stopped(ctx context.Context) bool {
	if ctx.Err() != nil {
		return true
	}
	d := sc.opts.Budget.Deadline
	return !d.IsZero() && sc.opts.Clock().After(d)
}

// advance runs the slot's search until it has expanded until states in
// all, or ends; end says it ended, with the outcome. IDA* runs to its end
// at once: it is never one of several searches.
func (sl *turnSlot) advance(ctx context.Context, until int64) (st Status, reason string, goal uint32, end bool) {
	s := sl.s
	if s.ida {
		st, reason, goal = s.run(ctx)
		return st, reason, goal, true
	}
	if !sl.begun {
		sl.begun = true
		s.watch(ctx)
		if ctx.Err() != nil {
			return GaveUp, s.endReason(), 0, true
		}
		if st, reason, goal, end = s.begin(); end {
			return st, reason, goal, true
		}
	}
	for s.nodes < until {
		if st, reason, goal, end = s.step(); end {
			return st, reason, goal, true
		}
	}
	return GaveUp, "", 0, false
}

// resize sizes the slot's next turn to last about turnTime, at the pace of
// its last turn: n expansions in d.
func (sl *turnSlot) resize(n int64, d time.Duration) {
	sl.turn = nextTurn(sl.turn, n, d)
}

// nextTurn returns the expansions of a turn that lasts about turnTime, at
// the pace of the last one, turn long: n expansions in d.
func nextTurn(turn, n int64, d time.Duration) int64 {
	if d <= 0 || n <= 0 {
		return min(2*turn, maxTurn)
	}
	return min(max(n*int64(turnTime)/int64(d), minTurn), maxTurn)
}

// handOver gives s the learned deadlocks of the search that ran last,
// which holds every set learned so far; s keeps its own counts of them.
func (sc *schedule) handOver(s *searcher) {
	if last := sc.last; last != nil && last != s && last.sub != nil && s.sub != nil {
		hits, late := s.learned.hits, s.learned.late
		s.learned = last.learned
		s.learned.hits, s.learned.late = hits, late
	}
	sc.last = s
}

// nodes is the expansions of all the searches so far.
func (sc *schedule) nodes() int64 {
	n := sc.doneNodes
	if sc.back != nil {
		n += sc.back.nodes
	}
	for _, sl := range sc.slots {
		if sl.s != nil && !sl.ended {
			n += sl.s.nodes
		}
	}
	return n
}

// report passes a search's progress on with the counts of all the
// searches, at most once an interval.
func (sc *schedule) report(p Progress) {
	interval := sc.opts.ProgressInterval
	if interval <= 0 {
		interval = defaultProgressInterval
	}
	if sc.sent && p.Elapsed-sc.sentAt < interval {
		return
	}
	p.Nodes, p.Generated, p.Stored, p.Memory = sc.doneNodes, sc.doneGenerated, 0, 0
	if ps := sc.back; ps != nil {
		p.Nodes += ps.nodes
		p.Generated += ps.generated
		p.Stored += int64(ps.tt.used)
		p.Memory += ps.memoryUsed()
	}
	for _, sl := range sc.slots {
		if sl.ended {
			p.Memory += sl.peak // held until the next Solve
		} else {
			s := sl.s
			p.Nodes += s.nodes
			p.Generated += s.generated
			p.Stored += int64(s.tt.used)
			p.Memory += s.memoryUsed()
			// Only the alternating search keeps an A* list.
			p.LowerBound = max(p.LowerBound, s.lowerBound())
		}
	}
	sc.sent, sc.sentAt = true, p.Elapsed
	sc.opts.OnProgress(p)
}
