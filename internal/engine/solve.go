package engine

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/sokod/sokod/sokoban"
)

// Budget checks (clock, cancellation, progress) come every checkInterval
// expansions. The interval adapts to the clock: it halves when checks are
// more than checkSlow apart and doubles when they are less than checkFast
// apart, so a board where one expansion takes a millisecond still checks
// its deadline about every 10 ms. Without a clock it stays at checkMax.
const (
	checkMax  = 1024
	checkSlow = 20 * time.Millisecond
	checkFast = 5 * time.Millisecond
)

// Solve searches the level analysed in b. The error is for bad options and
// internal errors only (a solution that fails replay is one, never
// returned); running out of budget or cancellation is a GaveUp result.
func Solve(ctx context.Context, b *Board, opts Options) (*Result, error) {
	if b == nil {
		return nil, errors.New("engine: nil board")
	}
	if ctx == nil {
		ctx = context.Background()
	}
	h := opts.Heuristic
	if err := h.check(b); err != nil {
		return nil, err
	}
	if err := checkBatch(h, opts); err != nil {
		return nil, err
	}
	switch opts.Objective {
	case ObjectiveAny:
	case ObjectivePushes:
		if !h.Admissible {
			return nil, fmt.Errorf("engine: objective pushes needs an admissible heuristic; %q is not admissible", h.Name)
		}
	default:
		return nil, fmt.Errorf("engine: unknown objective %d", opts.Objective)
	}
	switch {
	case opts.Strategy > StrategyPacking:
		return nil, fmt.Errorf("engine: unknown strategy %d", opts.Strategy)
	case opts.Strategy == StrategyPacking && opts.Objective != ObjectiveAny:
		return nil, errors.New("engine: the packing search is for objective any only")
	case opts.Strategy > StrategyIDA && opts.Strategy != StrategyPacking:
		return nil, fmt.Errorf("engine: unknown strategy %d", opts.Strategy)
	case opts.Strategy == StrategyWeighted && opts.Weight < 1:
		return nil, fmt.Errorf("engine: weighted search needs a weight of at least 1, not %d", opts.Weight)
	}
	for _, d := range opts.Deadlocks {
		if err := d.check(b); err != nil {
			return nil, err
		}
	}
	if !opts.Budget.Deadline.IsZero() && opts.Clock == nil {
		return nil, errors.New("engine: a deadline needs a clock")
	}
	if opts.Budget.Nodes < 0 || opts.Budget.Memory < 0 {
		return nil, errors.New("engine: negative budget")
	}
	res := &Result{Heuristic: h.Name, Objective: opts.Objective}
	if b.Impossible != "" {
		res.Status = Unsolvable
		res.Reason = b.Impossible
		return res, nil
	}
	mem := opts.Budget.Memory
	if mem == 0 {
		mem = DefaultMemory
	}
	ws := opts.Workspace
	if ws == nil {
		ws = NewWorkspace(mem)
		defer ws.Release()
	}
	res.Stats.MemoryReserved = ws.Bytes()
	s, st, reason, goal := solveStages(ctx, b, opts, ws, &res.Stats)
	defer s.finish()
	if err := s.bt.failure(); err != nil {
		return nil, err
	}
	res.Status, res.Reason = st, reason
	res.Stats.Stored = int64(s.tt.used)
	if s.clock != nil {
		res.Stats.Elapsed = s.clock().Sub(s.start)
	}
	if st != Solved {
		return res, nil
	}
	pushes := s.pushPath(goal)
	sol, err := buildSolution(b, pushes)
	if err != nil {
		return nil, err
	}
	m, err := sokoban.Replay(b.Level, sol)
	if err != nil {
		return nil, fmt.Errorf("engine: internal error: the solution found does not replay: %w", err)
	}
	if !m.Solved || m.Pushes != len(pushes) {
		return nil, fmt.Errorf("engine: internal error: the solution found replays to solved=%v with %d pushes, want %d", m.Solved, m.Pushes, len(pushes))
	}
	res.Solution, res.Metrics = sol, m
	res.Optimal = opts.Objective == ObjectivePushes && s.proofHolds && (s.cnt == nil || s.cnt.untrusty < 0) && s.bt.untrustedNote() == ""
	return res, nil
}

// solveStages runs the searches of one Solve, each in turn on the same
// workspace, and returns the last with its outcome; it adds their counts to
// st. Under the default strategy for ObjectiveAny a goal-room level
// (packingLevel) with a fill plan gets the packing search first, each of
// its keyings with packShare of the time and node budgets in turn; when
// they give up on their shares, the alternating search has the rest.
// StrategyPacking runs the two keyings alone, half each. A search in which goal macros fired
// that exhausts its space proves nothing (they cut moves): the plain
// search runs again, within what is left, so that Unsolvable always rests
// on it.
func solveStages(ctx context.Context, b *Board, opts Options, ws *Workspace, st *Stats) (*searcher, Status, string, uint32) {
	var stages []Options
	if opts.Objective == ObjectiveAny && (opts.Strategy == StrategyPacking ||
		opts.Strategy == StrategyAlternate && opts.Off&TechPacking == 0 && opts.Heuristic.Estimator == nil && packingLevel(b)) {
		if plan := newFillPlan(ctx, b); plan != nil {
			share := int64(50) // each of the two keyings, alone
			if opts.Strategy == StrategyAlternate {
				share = packShare
			}
			for i, keying := range []packKeying{packProgress, packSubgoal} {
				pk := opts
				pk.Strategy, pk.plan, pk.keying = StrategyPacking, plan, keying
				if opts.Strategy == StrategyAlternate || i == 0 {
					pk.Budget = shareBudget(opts.Budget, opts.Clock, share*int64(i+1))
				}
				stages = append(stages, pk)
			}
			st.Packing = true
		}
	}
	if len(stages) == 0 || opts.Strategy == StrategyAlternate {
		alt := opts
		if alt.Strategy == StrategyPacking {
			alt.Strategy = StrategyAlternate
		}
		stages = append(stages, alt)
	}
	var (
		s      *searcher
		status Status
		reason string
		goal   uint32
	)
	for i := 0; i < len(stages); i++ {
		prev := s
		if prev != nil {
			prev.finish()
		}
		s = newSearcher(b, opts.Heuristic, stages[i], ws)
		if prev == nil {
			if s.clock != nil {
				s.start = s.clock()
				s.lastProgress, s.lastCheck = s.start, s.start
			}
		} else {
			// The clock, the node budget and the progress reports go on
			// from the search before.
			s.start, s.lastProgress, s.lastCheck = prev.start, prev.lastProgress, prev.lastCheck
			s.nodes = prev.nodes
			s.bt.carry(prev.bt)
			if s.sub != nil && prev.sub != nil {
				// Learned deadlocks are facts of the board: the next
				// search starts with them.
				s.learned = prev.learned
				s.learned.hits, s.learned.late = 0, 0
			}
		}
		base := s.nodes
		status, reason, goal = s.run(ctx)
		s.nodes -= base
		s.addStats(st)
		if stages[i].Strategy == StrategyPacking {
			st.PackingNodes += s.nodes
		}
		s.nodes += base
		switch {
		case status == Unsolvable && s.gm.count > 0:
			again := opts
			again.Strategy = StrategyAlternate
			again.Off |= TechGoalMacros
			stages = append(stages[:i+1], again)
			st.GoalMacroRerun = true
		case status == GaveUp && stages[i].plan != nil && i+1 < len(stages) && (reason == ReasonDeadline || reason == ReasonNodes || reason == ReasonMemory):
			// The packing search's share is spent: the next search has
			// what is left of the budget.
		default:
			return s, status, reason, goal
		}
	}
	return s, status, reason, goal
}

// shareBudget returns the part of budget b a search gets with percent of
// its time and nodes (the deadline measured from now on clock).
func shareBudget(b Budget, clock func() time.Time, percent int64) Budget {
	if !b.Deadline.IsZero() && clock != nil {
		now := clock()
		b.Deadline = now.Add(b.Deadline.Sub(now) * time.Duration(percent) / 100)
	}
	if b.Nodes > 0 {
		b.Nodes = max(1, b.Nodes*percent/100)
	}
	return b
}

// addStats adds the search's counts to st: a search run again after goal
// macros (see Solve) reports the work of both runs.
func (s *searcher) addStats(st *Stats) {
	st.Nodes += s.nodes
	st.Generated += s.generated
	st.Duplicates += s.duplicates
	st.Reopened += s.reopened
	st.Deferred += s.deferred
	st.Frozen += s.frozenPruned
	st.Matching += s.matchPruned
	st.Tables += s.tablePruned
	st.Corrals += s.corrals
	st.CorralDead += s.corralDead
	st.LockedCorrals += s.lockedDead
	if s.sub != nil {
		st.SubSearches += s.sub.runs
		st.SubDead += s.sub.dead
	}
	st.FrozenGoals += s.gf.pruned
	st.Learned = max(st.Learned, int64(s.learned.used)) // the next search starts with them
	st.LearnedPruned += s.learned.hits + s.learned.late
	st.Macros += s.macros
	st.MacroPushes += s.macroPushes
	st.Stuck += s.stuck
	st.GoalMacros += s.gm.count
	st.HomeMoves += s.gm.homes
	st.GoalMacroPushes += s.gm.pushes
	s.bt.addStats(st)
	st.MaxDepth = max(st.MaxDepth, s.maxDepth)
	st.InitialLB = s.initialLB
	st.MemoryUsed = max(st.MemoryUsed, s.tt.bytesTouched()+int64(s.pool.peak)*openEntryBytes)
}

// finish clears the path bits the search left in the workspace.
func (s *searcher) finish() {
	for _, r := range s.pathRec {
		s.clearOnPath(r)
	}
	s.pathRec = s.pathRec[:0]
	s.pathPush = s.pathPush[:0]
}

// checkBudget counts toward the next budget check and, when it is due,
// checks cancellation, the clock and the deadline, and reports progress (g
// is the depth of the state about to be expanded). end is true when the
// search must stop.
func (s *searcher) checkBudget(g int) (st Status, reason string, end bool) {
	if s.budget.Nodes > 0 && s.nodes >= s.budget.Nodes {
		return GaveUp, ReasonNodes, true
	}
	if s.sinceCheck++; s.sinceCheck >= s.checkInterval {
		s.sinceCheck = 0
		if s.done != nil {
			select {
			case <-s.done:
				return GaveUp, s.endReason(), true
			default:
			}
		}
		if s.clock != nil {
			now := s.clock()
			switch since := now.Sub(s.lastCheck); {
			case since > checkSlow && s.checkInterval > 1:
				s.checkInterval /= 2
			case since < checkFast && s.checkInterval < checkMax:
				s.checkInterval *= 2
			}
			s.lastCheck = now
			if !s.budget.Deadline.IsZero() && !now.Before(s.budget.Deadline) {
				return GaveUp, ReasonDeadline, true
			}
			if s.progress != nil && now.Sub(s.lastProgress) >= s.interval {
				s.lastProgress = now
				p := Progress{Nodes: s.nodes, Stored: int64(s.tt.used), Depth: g, LowerBound: s.lowerBound(), Elapsed: now.Sub(s.start),
					Memory: s.tt.bytesTouched() + int64(s.pool.peak)*openEntryBytes, Generated: s.generated,
					Boxes: slices.Clone(s.boxes), Player: s.player}
				s.bt.progress(&p)
				s.progress(p)
			}
		}
	}
	return GaveUp, "", false
}
