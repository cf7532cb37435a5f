package macro

import (
	"context"
	"fmt"
	"time"

	"github.com/sokod/sokod/internal/engine"
	"github.com/sokod/sokod/internal/pluginhost/enginetables"
	"github.com/sokod/sokod/sdk"
)

// DefaultMemory is a plan's memory for its node store when the request's
// budget names none.
const DefaultMemory = 256 << 20

// progressInterval is how often a plan reports progress.
const progressInterval = 250 * time.Millisecond

// Run is the bookkeeping of one Plan call: the clock and deadline, the
// cancellation context, the node budget and progress reports. Planners
// call Tick once per expansion; a macro expansion costs far more than
// reading the clock, so Tick reads it every time.
type Run struct {
	ctx      context.Context
	deadline time.Time
	maxNodes uint64
	progress func(sdk.PlanProgress)
	last     time.Time

	// Nodes counts expansions; Best is the most boxes on goals seen.
	Nodes uint64
	Best  int
	// Message is sent with each progress report.
	Message string
}

// NewRun starts the bookkeeping for req. progress may be nil.
func NewRun(ctx context.Context, req *sdk.PlanRequest, progress func(sdk.PlanProgress)) *Run {
	r := &Run{ctx: ctx, maxNodes: req.Budget.Nodes, progress: progress, last: time.Now()}
	if req.Budget.Time > 0 {
		r.deadline = r.last.Add(req.Budget.Time)
	}
	return r
}

// Tick counts one expansion and reports whether the plan must stop, and
// why.
func (r *Run) Tick() (stop bool, reason string) {
	r.Nodes++
	if err := r.ctx.Err(); err != nil {
		return true, "cancelled: " + err.Error()
	}
	if r.maxNodes > 0 && r.Nodes >= r.maxNodes {
		return true, "node budget spent"
	}
	now := time.Now()
	if !r.deadline.IsZero() && now.After(r.deadline) {
		return true, "time budget spent"
	}
	if r.progress != nil && now.Sub(r.last) >= progressInterval {
		r.last = now
		r.progress(sdk.PlanProgress{Nodes: r.Nodes, BoxesOnGoals: r.Best, Message: r.Message})
	}
	return false, ""
}

// Expired reports whether the plan must stop now (cancelled or past its
// deadline), without counting an expansion: for checks inside one
// expansion, which on a board with hundreds of boxes takes a while.
func (r *Run) Expired() bool {
	return r.ctx.Err() != nil || !r.deadline.IsZero() && time.Now().After(r.deadline)
}

// Context returns the plan's context, ended also by the plan's deadline,
// for the work a planner does before its search (the packing order).
func (r *Run) Context() (context.Context, context.CancelFunc) {
	if r.deadline.IsZero() {
		return context.WithCancel(r.ctx)
	}
	return context.WithDeadline(r.ctx, r.deadline)
}

// Board analyses the request's level with the engine, keeping the host's
// square numbering (enginetables.Board checks it).
func Board(req *sdk.PlanRequest) (*engine.Board, error) {
	if req == nil || req.Level == nil {
		return nil, fmt.Errorf("%w: no level", sdk.ErrBadRequest)
	}
	if err := req.Level.Validate(); err != nil {
		return nil, fmt.Errorf("%w: %w", sdk.ErrBadRequest, err)
	}
	return enginetables.Board(req.Level)
}

// StoreLimit returns how many nodes of a level with boxes boxes fit in the
// request's memory budget, when the planner keeps extra bytes per node
// besides the store (its own per-node data and open-list entries).
func StoreLimit(req *sdk.PlanRequest, boxes int, extra int64) int {
	mem := int64(min(req.Budget.MemoryBytes, 1<<40))
	if mem == 0 {
		mem = DefaultMemory
	}
	return int(max(mem/(NodeBytes(boxes)+extra), 1024))
}

// Finish rebuilds node id's moves, has the host verify them, and returns
// the plan's result: solved only when the host accepts the solution.
func Finish(ctx context.Context, g *Gen, store *Store, id int32, host sdk.Host) (*sdk.PlanResult, error) {
	sol, err := g.Solution(store, id)
	if err != nil {
		return nil, fmt.Errorf("rebuilding the solution: %w", err)
	}
	return Verified(ctx, host, sol.String())
}

// Verified has the host verify lurd and returns the plan's result: solved
// when the host accepts it, else given up, naming the rejection.
func Verified(ctx context.Context, host sdk.Host, lurd string) (*sdk.PlanResult, error) {
	v, err := host.Verify(ctx, lurd)
	if err != nil {
		return nil, fmt.Errorf("verifying the solution: %w", err)
	}
	if !v.Solved {
		return &sdk.PlanResult{Status: sdk.PlanGaveUp, Reason: "the host rejected the solution found: " + v.Error}, nil
	}
	return &sdk.PlanResult{Status: sdk.PlanSolved, Solution: lurd}, nil
}

// GaveUp is the result of a plan that stopped without a solution.
func GaveUp(r *Run, reason string) *sdk.PlanResult {
	return &sdk.PlanResult{Status: sdk.PlanGaveUp,
		Reason: fmt.Sprintf("%s after %d expansions; at best %d boxes on goals", reason, r.Nodes, r.Best)}
}
