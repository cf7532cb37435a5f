package batch

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/sokod/sokod/internal/engine"
	"github.com/sokod/sokod/internal/registry"
	"github.com/sokod/sokod/internal/solver"
	"github.com/sokod/sokod/sokoban"
)

// Components resolves solve components by name; *registry.Registry is
// one.
type Components interface {
	Heuristic(ctx context.Context, name string) (*registry.Heuristic, error)
	Deadlocks(ctx context.Context, name string) (*registry.Deadlocks, error)
	Planner(ctx context.Context, name string) (*registry.Planner, error)
}

// Limits are a worker's per-solve limits: the budget of a job that sets
// none, and the most a job may ask for.
type Limits struct {
	Time   time.Duration
	Memory int64
	// Nodes is 0 for no bound.
	Nodes int64
}

// LevelSolver is the Solver of sokod's workers: internal/solver with the
// worker's components, limits, fall-back and store.
type LevelSolver struct {
	Components Components
	Limits     Limits
	// Planners are the fall-back planners of a job that names none
	// (fallback.planners).
	Planners []string
	// SearchShare, PlannerShare and Portfolio are fallback.*.
	SearchShare, PlannerShare int
	Portfolio                 bool
	// Store, when set, answers known levels and keeps what is found.
	Store solver.Store
	// Clock is the injected clock; nil means time.Now.
	Clock func() time.Time
}

// Solve solves job's level; see Solver.
func (s *LevelSolver) Solve(ctx context.Context, job *Job) *Result {
	clock := s.Clock
	if clock == nil {
		clock = time.Now
	}
	start := clock()
	l, err := sokoban.Parse(job.Text)
	if err != nil {
		return &Result{Status: StatusInvalidLevel, Reason: err.Error()}
	}
	req, err := s.request(ctx, job.Options)
	if err != nil {
		return &Result{Status: StatusInvalidJob, Reason: err.Error()}
	}
	req.Level, req.Clock = l, clock
	r, err := solver.Solve(ctx, req)
	var bad *solver.BadLevelError
	switch {
	case errors.As(err, &bad):
		return &Result{Status: StatusInvalidLevel, Reason: err.Error()}
	case err != nil:
		return &Result{Status: StatusFailed, Reason: err.Error()}
	}
	res := &Result{Status: solver.StatusName(r.Status), Reason: r.Reason, Optimal: r.Optimal, FoundBy: r.FoundBy,
		Nodes: r.Nodes(), Seconds: clock().Sub(start).Seconds()}
	if r.Status == engine.Solved {
		res.Solution = r.Solution.String()
		res.Moves, res.Pushes, res.BoxLines, res.BoxChanges = r.Metrics.Moves, r.Metrics.Pushes, r.Metrics.BoxLines, r.Metrics.BoxChanges
	}
	return res
}

// request resolves a job's options against the worker's components and
// limits; a budget above a limit is lowered to it.
func (s *LevelSolver) request(ctx context.Context, o SolveOptions) (solver.Request, error) {
	req := solver.Request{SearchShare: s.SearchShare, PlannerShare: s.PlannerShare, Portfolio: s.Portfolio, Store: s.Store}
	objective := o.Objective
	if objective == "" {
		objective = "any"
	}
	var err error
	if req.Objective, err = engine.ParseObjective(objective); err != nil {
		return req, fmt.Errorf("objective: %w", err)
	}
	if req.Strategy, err = engine.ParseStrategy(o.Strategy); err != nil {
		return req, fmt.Errorf("strategy: %w", err)
	}
	if req.Objective == engine.ObjectivePushes && req.Strategy == engine.StrategyGreedy {
		return req, errors.New("strategy: greedy cannot prove push-optimality; use it with objective any")
	}
	h, err := s.Components.Heuristic(ctx, o.Heuristic)
	if err != nil {
		return req, fmt.Errorf("heuristic: %w", err)
	}
	if req.Objective == engine.ObjectivePushes && !h.Admissible {
		return req, fmt.Errorf("heuristic: %s is not admissible, so it cannot prove push-optimality", h.Name)
	}
	req.Heuristic = h
	for _, name := range o.Deadlocks {
		d, err := s.Components.Deadlocks(ctx, name)
		if err != nil {
			return req, fmt.Errorf("deadlocks: %w", err)
		}
		req.Deadlocks = append(req.Deadlocks, d)
	}
	names := o.Planners
	if len(names) == 0 {
		names = s.Planners
	}
	for _, name := range names {
		if name == "none" {
			continue
		}
		p, err := s.Components.Planner(ctx, name)
		if err != nil {
			return req, fmt.Errorf("planners: %w", err)
		}
		req.Planners = append(req.Planners, solver.Planner{Name: p.Name, Planner: p.Planner})
	}
	lim := s.Limits
	req.Budget = solver.Budget{Time: lim.Time, Memory: lim.Memory, Nodes: lim.Nodes}
	if t := o.Time(); t > 0 && (lim.Time <= 0 || t < lim.Time) {
		req.Budget.Time = t
	}
	if m := o.MemoryBytes; m > 0 && (lim.Memory <= 0 || m < lim.Memory) {
		req.Budget.Memory = m
	}
	if n := o.Nodes; n > 0 && (lim.Nodes <= 0 || n < lim.Nodes) {
		req.Budget.Nodes = n
	}
	return req, nil
}
