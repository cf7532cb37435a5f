package server

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/types/known/durationpb"

	"github.com/sokod/sokod/config"
	"github.com/sokod/sokod/internal/engine"
	"github.com/sokod/sokod/internal/pluginhost"
	"github.com/sokod/sokod/internal/solver"
	"github.com/sokod/sokod/sokoban"

	sokodv1 "github.com/sokod/sokod/proto/sokod/v1"
)

// service implements sokodv1.SolverServiceServer over a Server.
type service struct {
	sokodv1.UnimplementedSolverServiceServer
	s *Server
}

// settings are a request's options resolved against the daemon's limits
// and components.
type settings struct {
	objective   engine.Objective
	strategy    engine.Strategy
	heuristic   *pluginhost.Heuristic
	deadlocks   []solver.Deadlocks
	planners    []solver.Planner
	budget      solver.Budget
	searchShare int
}

// optionError is a bad option; its text starts with the option's name, so
// the CLI can print it as it prints its own flag errors.
func optionError(name string, format string, args ...any) error {
	return status.Errorf(codes.InvalidArgument, "%s: %s", name, fmt.Sprintf(format, args...))
}

// resolve checks o and resolves its components. A limit above the
// daemon's is lowered to it.
func (s *Server) resolve(ctx context.Context, o *sokodv1.SolveOptions) (settings, error) {
	var st settings
	if o == nil {
		o = &sokodv1.SolveOptions{}
	}
	switch o.GetObjective() {
	case sokodv1.Objective_OBJECTIVE_UNSPECIFIED, sokodv1.Objective_OBJECTIVE_ANY:
		st.objective = engine.ObjectiveAny
	case sokodv1.Objective_OBJECTIVE_PUSHES:
		st.objective = engine.ObjectivePushes
	default:
		return st, optionError("objective", "unknown objective %d", o.GetObjective())
	}
	strategy, err := engine.ParseStrategy(o.GetStrategy())
	if err != nil {
		return st, optionError("strategy", "%v", err)
	}
	if st.objective == engine.ObjectivePushes && strategy == engine.StrategyGreedy {
		return st, optionError("strategy", "greedy cannot prove push-optimality; use it with objective any")
	}
	st.strategy = strategy
	lim := s.opts.Limits
	st.budget = solver.Budget{Time: lim.Time, Memory: lim.Memory, Nodes: lim.Nodes}
	if o.TimeLimit != nil {
		if err := o.TimeLimit.CheckValid(); err != nil {
			return st, optionError("time_limit", "%v", err)
		}
		switch d := o.TimeLimit.AsDuration(); {
		case d < 0:
			return st, optionError("time_limit", "must not be negative (got %v)", d)
		case d > 0:
			st.budget.Time = min(d, lim.Time)
		}
	}
	if m := o.GetMemoryLimitBytes(); m != 0 {
		if m < uint64(config.MinMemory) {
			return st, optionError("memory_limit_bytes", "must be at least %s (got %d)", config.MinMemory, m)
		}
		st.budget.Memory = int64(min(m, uint64(lim.Memory)))
	}
	if n := o.GetNodeLimit(); n != 0 {
		n := int64(min(n, 1<<62))
		if lim.Nodes > 0 {
			n = min(n, lim.Nodes)
		}
		st.budget.Nodes = n
	}
	st.searchShare = s.opts.SearchShare
	if sh := o.GetSearchShare(); sh != 0 {
		if sh < 1 || sh > 100 {
			return st, optionError("search_share", "must be a percentage from 1 to 100 (got %d)", sh)
		}
		st.searchShare = int(sh)
	}

	h, err := s.opts.Components.Heuristic(ctx, o.GetHeuristic())
	if err != nil {
		return st, optionError("heuristic", "%v", err)
	}
	if st.objective == engine.ObjectivePushes && !h.Admissible {
		return st, optionError("heuristic", "%s is not admissible, so it cannot prove push-optimality; use it with objective any", h.Name)
	}
	st.heuristic = h
	for _, name := range o.GetDeadlocks() {
		d, err := s.opts.Components.Deadlocks(ctx, name)
		if err != nil {
			return st, optionError("deadlocks", "%v", err)
		}
		st.deadlocks = append(st.deadlocks, d)
	}

	names := s.opts.Planners
	if o.UsePlanners != nil {
		switch {
		case !o.GetUsePlanners():
			names = nil
		case len(o.GetPlanners()) > 0:
			names = o.GetPlanners()
		}
	}
	for _, name := range names {
		if name == "none" {
			continue
		}
		p, err := s.opts.Components.Planner(ctx, name)
		if err != nil {
			return st, optionError("planners", "%v", err)
		}
		st.planners = append(st.planners, solver.Planner{Name: p.Name, Planner: p.Planner})
	}
	return st, nil
}

// Solve runs one solve as a job; see the proto for the protocol.
func (v *service) Solve(req *sokodv1.SolveRequest, stream sokodv1.SolverService_SolveServer) error {
	s := v.s
	ctx := stream.Context()
	level, lerr := parseLevel(req.GetLevel(), req.GetLevelNumber())
	if lerr != nil {
		return stream.Send(resultEvent(&sokodv1.Result{Status: sokodv1.Status_STATUS_INVALID_LEVEL, Reason: lerr.Message, LevelError: lerr}))
	}
	st, err := s.resolve(ctx, req.GetOptions())
	if err != nil {
		return err
	}

	jctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	j := &job{title: level.Title, objective: st.objective, heuristic: st.heuristic.Name, memory: st.budget.Memory, cancel: cancel}
	pos, err := s.jobs.admit(j)
	switch {
	case errors.Is(err, errExhausted):
		s.log.Debug("solve refused", "reason", err)
		return status.Error(codes.ResourceExhausted, err.Error())
	case errors.Is(err, errClosed):
		return status.Error(codes.Unavailable, err.Error())
	case err != nil:
		return status.Error(codes.Internal, err.Error())
	}
	defer s.jobs.done(j)
	log := s.log.With("job", j.id)
	log.Info("job admitted", "title", level.Title, "queue_position", pos, "objective", st.objective, "heuristic", st.heuristic.Name,
		"time", st.budget.Time, "memory", st.budget.Memory, "nodes", st.budget.Nodes)
	if err := stream.Send(&sokodv1.SolveResponse{Event: &sokodv1.SolveResponse_Accepted{Accepted: &sokodv1.Accepted{JobId: j.id, QueuePosition: int32(pos)}}}); err != nil {
		return err
	}
	if err := s.jobs.wait(jctx, j); err != nil {
		log.Info("job cancelled while queued", "reason", cancelReason(jctx))
		return stream.Send(resultEvent(&sokodv1.Result{JobId: j.id, Title: level.Title, Status: sokodv1.Status_STATUS_CANCELLED,
			Reason: cancelReason(jctx), Heuristic: st.heuristic.Name, Objective: objectiveProto(st.objective)}))
	}

	res := s.run(jctx, j, level, st, stream)
	res.JobId, res.Title = j.id, level.Title
	log.Info("job ended", "status", res.Status, "reason", res.Reason, "elapsed", res.GetElapsed().AsDuration())
	return stream.Send(resultEvent(res))
}

// run solves while forwarding progress to stream, and returns the result.
// It returns only once the solver has, whatever happens to the stream.
func (s *Server) run(ctx context.Context, j *job, level *sokoban.Level, st settings, stream sokodv1.SolverService_SolveServer) *sokodv1.Result {
	// The solver reports from its own goroutine and must not block, so the
	// latest event waits in a one-slot mailbox; a slow client misses
	// intermediate events, never the latest.
	mailbox := make(chan solver.Event, 1)
	onEvent := func(e solver.Event) {
		s.jobs.setProgress(j, e)
		select {
		case <-mailbox:
		default:
		}
		mailbox <- e
	}
	type outcome struct {
		r   *solver.Result
		err error
	}
	done := make(chan outcome, 1)
	go func() {
		r, err := solver.Solve(ctx, solver.Request{
			Level: level, Objective: st.objective, Strategy: st.strategy, Heuristic: st.heuristic, Deadlocks: st.deadlocks, Planners: st.planners,
			Budget: st.budget, SearchShare: st.searchShare, PlannerShare: s.opts.PlannerShare, Portfolio: s.opts.Portfolio, Clock: s.clock, OnEvent: onEvent,
		})
		done <- outcome{r, err}
	}()
	// A first event says the job runs now, whether or not the solve lasts
	// long enough for the solver's own.
	streamOK := stream.Send(&sokodv1.SolveResponse{Event: &sokodv1.SolveResponse_Progress{Progress: &sokodv1.Progress{
		Phase: sokodv1.Phase_PHASE_SEARCH, Component: st.heuristic.Name, LowerBound: -1, Elapsed: durationpb.New(0)}}}) == nil
	for {
		select {
		case e := <-mailbox:
			if streamOK {
				// A failed send means the client is gone; its context then
				// cancels the solve, which is awaited below.
				streamOK = stream.Send(&sokodv1.SolveResponse{Event: &sokodv1.SolveResponse_Progress{Progress: progressProto(e)}}) == nil
			}
		case out := <-done:
			return s.outcome(ctx, level, st, out.r, out.err)
		}
	}
}

// outcome turns what the solver returned into a Result.
func (s *Server) outcome(ctx context.Context, level *sokoban.Level, st settings, r *solver.Result, err error) *sokodv1.Result {
	var bad *solver.BadLevelError
	switch {
	case errors.As(err, &bad):
		le := levelError(bad)
		return &sokodv1.Result{Status: sokodv1.Status_STATUS_INVALID_LEVEL, Reason: le.Message, LevelError: le,
			Heuristic: st.heuristic.Name, Objective: objectiveProto(st.objective)}
	case err != nil && ctx.Err() != nil:
		return &sokodv1.Result{Status: sokodv1.Status_STATUS_CANCELLED, Reason: cancelReason(ctx),
			Heuristic: st.heuristic.Name, Objective: objectiveProto(st.objective)}
	case err != nil:
		return &sokodv1.Result{Status: sokodv1.Status_STATUS_FAILED, Reason: err.Error(),
			Heuristic: st.heuristic.Name, Objective: objectiveProto(st.objective)}
	}
	res := resultProto(r)
	switch {
	case r.Status == engine.Solved:
		// The solver has replayed the solution; replaying it once more
		// here, a few microseconds, keeps the promise that nothing
		// unverified leaves the daemon even if that ever regresses.
		if m, err := sokoban.Replay(level, r.Solution); err != nil || !m.Solved {
			s.log.Error("solution failed verification", "found_by", r.FoundBy, "error", err)
			res.Status, res.Reason, res.Solution, res.Metrics = sokodv1.Status_STATUS_FAILED,
				fmt.Sprintf("internal error: the solution found by %s failed verification", r.FoundBy), "", nil
		}
	case r.Status == engine.GaveUp && r.Reason == engine.ReasonCancelled && ctx.Err() != nil:
		res.Status, res.Reason = sokodv1.Status_STATUS_CANCELLED, cancelReason(ctx)
	}
	return res
}

// cancelReason says why ctx, a job's context, ended.
func cancelReason(ctx context.Context) string {
	switch cause := context.Cause(ctx); {
	case errors.Is(cause, errCancelled), errors.Is(cause, errShutdown):
		return cause.Error()
	case cause != nil:
		return "cancelled: the client closed the stream"
	}
	return engine.ReasonCancelled
}

func resultEvent(r *sokodv1.Result) *sokodv1.SolveResponse {
	return &sokodv1.SolveResponse{Event: &sokodv1.SolveResponse_Result{Result: r}}
}

func objectiveProto(o engine.Objective) sokodv1.Objective {
	if o == engine.ObjectivePushes {
		return sokodv1.Objective_OBJECTIVE_PUSHES
	}
	return sokodv1.Objective_OBJECTIVE_ANY
}

func phaseProto(p solver.Phase) sokodv1.Phase {
	switch p {
	case solver.PhaseSearch:
		return sokodv1.Phase_PHASE_SEARCH
	case solver.PhasePlan:
		return sokodv1.Phase_PHASE_PLAN
	}
	return sokodv1.Phase_PHASE_UNSPECIFIED
}

func progressProto(e solver.Event) *sokodv1.Progress {
	rate := 0.0
	if e.Elapsed > 0 {
		rate = float64(e.Nodes) / e.Elapsed.Seconds()
	}
	return &sokodv1.Progress{
		Phase: phaseProto(e.Phase), Component: e.Component, Nodes: e.Nodes, NodesPerSecond: rate, Stored: e.Stored,
		Depth: int32(e.Depth), LowerBound: int32(e.LowerBound), Elapsed: durationpb.New(e.Elapsed), MemoryBytes: e.Memory,
		BoxesOnGoals: int32(e.BoxesOnGoals),
	}
}

func metricsProto(m sokoban.Metrics) *sokodv1.Metrics {
	return &sokodv1.Metrics{Moves: int32(m.Moves), Pushes: int32(m.Pushes), BoxLines: int32(m.BoxLines), BoxChanges: int32(m.BoxChanges),
		PushingSessions: int32(m.PushingSessions), PlayerLines: int32(m.PlayerLines), Solved: m.Solved}
}

// resultProto converts a solver result; the caller settles CANCELLED.
func resultProto(r *solver.Result) *sokodv1.Result {
	res := &sokodv1.Result{
		Reason: r.Reason, Optimal: r.Optimal, FoundBy: r.FoundBy, FoundIn: phaseProto(r.FoundIn),
		Heuristic: r.Heuristic, Objective: objectiveProto(r.Objective), Elapsed: durationpb.New(r.Elapsed),
		Stats: &sokodv1.SearchStats{
			Nodes: r.Search.Nodes, Generated: r.Search.Generated, Stored: r.Search.Stored, MaxDepth: int32(r.Search.MaxDepth),
			InitialLowerBound: int32(r.Search.InitialLB), MemoryReservedBytes: r.Search.MemoryReserved,
			MemoryUsedBytes: r.Search.MemoryUsed, Elapsed: durationpb.New(r.Search.Elapsed),
		},
	}
	switch r.Status {
	case engine.Solved:
		res.Status = sokodv1.Status_STATUS_SOLVED
		res.Solution = r.Solution.String()
		res.Metrics = metricsProto(r.Metrics)
	case engine.Unsolvable:
		res.Status = sokodv1.Status_STATUS_UNSOLVABLE
	default:
		res.Status = sokodv1.Status_STATUS_GAVE_UP
	}
	for _, run := range r.Runs {
		res.Runs = append(res.Runs, &sokodv1.ComponentRun{Phase: phaseProto(run.Phase), Component: run.Component, Status: run.Status,
			Reason: run.Reason, Nodes: run.Nodes, Elapsed: durationpb.New(run.Elapsed)})
	}
	return res
}

// Cancel cancels a queued or running job.
func (v *service) Cancel(_ context.Context, req *sokodv1.CancelRequest) (*sokodv1.CancelResponse, error) {
	id := strings.TrimSpace(req.GetJobId())
	if !v.s.jobs.cancel(id) {
		return nil, status.Errorf(codes.NotFound, "no job %q is queued or running", id)
	}
	v.s.log.Info("job cancel requested", "job", id)
	return &sokodv1.CancelResponse{}, nil
}
