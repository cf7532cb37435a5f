package macro

import (
	"context"
	"fmt"
	"time"

	"github.com/sokod/sokod/board"
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
	// legEnd and legNodes, when set, end the current leg (see Leg) before
	// the budget runs out.
	legEnd   time.Time
	legNodes uint64

	// Nodes counts expansions. Best is the most boxes on goals in a
	// position the plan expanded, which passed its deadlock tests: a child
	// is counted when it is expanded, not when it is stored, so that dead
	// ends do not inflate the progress a plan reports.
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

// Tick counts one expansion and reports whether the plan, or its current
// leg, must stop, and why.
func (r *Run) Tick() (stop bool, reason string) {
	r.Nodes++
	now := time.Now()
	if reason := r.over(now); reason != "" {
		return true, reason
	}
	if r.legNodes > 0 && r.Nodes >= r.legNodes || past(r.legEnd, now) {
		return true, legSpent
	}
	if r.progress != nil && now.Sub(r.last) >= progressInterval {
		r.last = now
		r.progress(sdk.PlanProgress{Nodes: r.Nodes, BoxesOnGoals: r.Best, Message: r.Message})
	}
	return false, ""
}

// legSpent is Tick's reason when a leg, not the plan, is over.
const legSpent = "its share spent"

// over returns why the whole plan must stop at now, or "".
func (r *Run) over(now time.Time) string {
	switch {
	case r.ctx.Err() != nil:
		return "cancelled: " + r.ctx.Err().Error()
	case r.maxNodes > 0 && r.Nodes >= r.maxNodes:
		return "node budget spent"
	case past(r.deadline, now):
		return "time budget spent"
	}
	return ""
}

// Over reports whether the whole plan must stop: cancelled, or a budget
// spent. A planner that ends a leg asks it before it starts the next.
func (r *Run) Over() bool { return r.over(time.Now()) != "" }

// Why says why the whole plan must stop now, "" when it need not.
func (r *Run) Why() string { return r.over(time.Now()) }

// Expired reports whether the plan or its leg must stop now (cancelled or
// past a deadline), without counting an expansion: for checks inside one
// expansion, which on a board with hundreds of boxes takes a while.
func (r *Run) Expired() bool {
	now := time.Now()
	return r.ctx.Err() != nil || past(r.deadline, now) || past(r.legEnd, now)
}

// past reports whether deadline is set and now is after it.
func past(deadline, now time.Time) bool { return !deadline.IsZero() && now.After(deadline) }

// Leg limits the run to share (0 to 1) of what is left of its time and
// node budgets, for a planner that tries its searches in turn, until the
// returned function ends the leg. Tick stops the leg with its own reason;
// Over tells a spent leg from a spent plan. A leg within a leg takes its
// share of what is left of the enclosing one, which its end restores.
func (r *Run) Leg(share float64) (end func()) {
	now := time.Now()
	prevEnd, prevNodes := r.legEnd, r.legNodes
	until := r.deadline
	if !prevEnd.IsZero() && (until.IsZero() || prevEnd.Before(until)) {
		until = prevEnd
	}
	if !until.IsZero() {
		r.legEnd = now.Add(time.Duration(float64(until.Sub(now)) * share))
	}
	limit := r.maxNodes
	if prevNodes > 0 && (limit == 0 || prevNodes < limit) {
		limit = prevNodes
	}
	if limit > r.Nodes {
		r.legNodes = r.Nodes + max(uint64(float64(limit-r.Nodes)*share), 1)
	}
	return func() { r.legEnd, r.legNodes = prevEnd, prevNodes }
}

// Context returns the plan's context, ended also by the plan's deadline,
// for the work a planner does before its search (the packing order).
func (r *Run) Context() (context.Context, context.CancelFunc) {
	if r.deadline.IsZero() {
		return context.WithCancel(r.ctx)
	}
	return context.WithDeadline(r.ctx, r.deadline)
}

// Board analyses the request's level in this process, keeping the host's
// square numbering (sdk.Level.Analyze).
func Board(ctx context.Context, req *sdk.PlanRequest) (*board.Board, error) {
	if req == nil || req.Level == nil {
		return nil, fmt.Errorf("%w: no level", sdk.ErrBadRequest)
	}
	return req.Level.Analyze(ctx)
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
