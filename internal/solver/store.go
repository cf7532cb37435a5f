package solver

import (
	"context"
	"fmt"
	"time"

	"github.com/sokod/sokod/internal/engine"
	"github.com/sokod/sokod/internal/store"
	"github.com/sokod/sokod/sokoban"
)

// Store is where a solve looks for a known solution before it searches, and
// records the solution it finds; *store.Store is one.
type Store interface {
	// Lookup returns the stored solutions of l, replayed on l; nil when
	// there are none.
	Lookup(ctx context.Context, l *sokoban.Level) (*store.Known, error)
	// Record offers a solution of l; the store keeps it if it beats what
	// it holds.
	Record(ctx context.Context, l *sokoban.Level, f store.Found) (store.Outcome, error)
}

// PhaseStore is the phase of a result that came from the store.
const PhaseStore Phase = "store"

// FoundByStore is Result.FoundBy for a solution that came from the store.
const FoundByStore = "store"

// recordTimeout bounds recording a solution, which goes on after the
// solve's context ends: a solution found just before a cancel is kept.
const recordTimeout = 30 * time.Second

// solveStored is Solve with req.Store: a stored solution that meets the
// request (any solution under ObjectiveAny, a proved one under
// ObjectivePushes) is the result at once; otherwise the level is solved,
// the solution recorded, and the stored one returned instead when it has
// fewer pushes or the solve found none. A store that fails costs the solve
// nothing but a failed run.
func solveStored(ctx context.Context, req Request) (*Result, error) {
	clock := req.Clock
	if clock == nil {
		clock = time.Now
	}
	start := clock()
	st := req.Store
	req.Store = nil
	known, err := st.Lookup(ctx, req.Level)
	var storeRuns []Run
	if err != nil {
		storeRuns = append(storeRuns, Run{Phase: PhaseStore, Component: FoundByStore, Status: "failed", Reason: err.Error()})
	}
	var best *store.Solution
	if known != nil {
		best = known.Pushes
	}
	if best != nil && (req.Objective == engine.ObjectiveAny || best.Optimal) {
		res := &Result{Objective: req.Objective}
		res.fromStore(best)
		res.Elapsed = clock().Sub(start)
		return res, nil
	}
	res, err := Solve(ctx, req)
	if err != nil {
		return nil, err
	}
	res.Runs = append(storeRuns, res.Runs...)
	if res.Status == engine.Solved {
		rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), recordTimeout)
		out, err := st.Record(rctx, req.Level, store.Found{Solution: res.Solution, Optimal: res.Optimal, FoundBy: res.FoundBy})
		cancel()
		switch {
		case err != nil:
			res.Runs = append(res.Runs, Run{Phase: PhaseStore, Component: FoundByStore, Status: "failed", Reason: err.Error()})
		case out.Contradiction != "":
			res.Runs = append(res.Runs, Run{Phase: PhaseStore, Component: FoundByStore, Status: "failed", Reason: "proofs disagree: " + out.Contradiction})
		}
	}
	if best == nil || res.Reason == engine.ReasonCancelled && ctx.Err() != nil {
		return res, nil
	}
	switch {
	case res.Status == engine.Solved && res.Metrics.Pushes <= best.Metrics.Pushes:
	case res.Status == engine.Unsolvable:
		res.Runs = append(res.Runs, Run{Phase: PhaseStore, Component: FoundByStore, Status: "failed",
			Reason: "the search proved the level unsolvable, but the store holds a solution that replays"})
		res.fromStore(best)
	default:
		res.fromStore(best)
	}
	res.Elapsed = clock().Sub(start)
	return res, nil
}

// fromStore makes s, a stored solution, res's answer.
func (res *Result) fromStore(s *store.Solution) {
	res.Status, res.Reason = engine.Solved, ""
	res.Solution, res.Metrics, res.Optimal = s.Solution, s.Metrics, s.Optimal
	res.FoundBy, res.FoundIn = FoundByStore, PhaseStore
	res.Runs = append(res.Runs, Run{Phase: PhaseStore, Component: FoundByStore, Status: "solved",
		Reason: fmt.Sprintf("stored solution found by %s on %s", s.FoundBy, s.FoundAt.UTC().Format(time.DateOnly))})
}
