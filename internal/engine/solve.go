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
	s, st, reason, goal, back := solveStages(ctx, b, opts, ws, &res.Stats)
	defer s.finish()
	if err := s.bt.failure(); err != nil {
		return nil, err
	}
	res.Status, res.Reason = st, reason
	if s.clock != nil {
		res.Stats.Elapsed = s.clock().Sub(s.start)
	}
	if st != Solved {
		return res, nil
	}
	pushes := back
	if pushes == nil {
		pushes = s.pushPath(goal)
	}
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

// searchStages returns the searches one Solve runs. Under the default
// strategy for ObjectiveAny a goal-room level (packingLevel) with a fill
// plan gets the packing search in its three keyings beside the alternating
// search; StrategyPacking runs the three keyings alone. The searches run
// interleaved (interleave.go). It records in st whether the packing search
// runs.
func searchStages(ctx context.Context, b *Board, opts Options, st *Stats) []Options {
	var stages []Options
	if opts.Objective == ObjectiveAny && (opts.Strategy == StrategyPacking ||
		opts.Strategy == StrategyAlternate && opts.Off&TechPacking == 0 && opts.Heuristic.Estimator == nil && packingLevel(b)) {
		if plan := newFillPlan(ctx, b); plan != nil {
			for _, keying := range []packKeying{packProgress, packSubgoal, packBound} {
				pk := opts
				pk.Strategy, pk.plan, pk.keying = StrategyPacking, plan, keying
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
	return stages
}

// addStats adds the search's counts to st: a search run again after goal
// macros (see Solve) reports the work of both runs.
func (s *searcher) addStats(st *Stats) {
	st.Nodes += s.nodes
	st.Stored += int64(s.tt.used)
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
		st.SubPositions += s.sub.work
	}
	st.FrozenGoals += s.gf.pruned
	st.Learned = max(st.Learned, int64(s.learned.used)) // the next search starts with them
	st.LearnedPruned += s.learned.hits + s.learned.late
	if s.cluster != nil {
		st.ClusterSearches += s.cluster.runs
	}
	st.ClusterDead += s.clusterPruned
	st.Macros += s.macros
	st.MacroPushes += s.macroPushes
	st.Stuck += s.stuck
	st.GoalMacros += s.gm.count
	st.HomeMoves += s.gm.homes
	st.GoalMacroPushes += s.gm.pushes
	s.bt.addStats(st)
	st.MaxDepth = max(st.MaxDepth, s.maxDepth)
	st.InitialLB = s.initialLB
	st.MemoryUsed = max(st.MemoryUsed, s.memoryUsed())
}

// memoryUsed is the memory the search's table and open lists have taken.
func (s *searcher) memoryUsed() int64 {
	return s.tt.bytesTouched() + int64(s.pool.peak)*openEntryBytes
}

// finish clears the path bits the search left in the workspace.
func (s *searcher) finish() {
	for _, r := range s.pathRec {
		s.clearOnPath(r)
	}
	s.pathRec = s.pathRec[:0]
	s.pathPush = s.pathPush[:0]
	s.pathDead.reset()
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
					Memory: s.memoryUsed(), Generated: s.generated,
					Boxes: slices.Clone(s.boxes), Player: s.player}
				s.bt.progress(&p)
				s.progress(p)
			}
		}
	}
	return GaveUp, "", false
}
