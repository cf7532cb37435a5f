package server

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/types/known/durationpb"

	"github.com/sokod/sokod/config"
	"github.com/sokod/sokod/internal/engine"
	"github.com/sokod/sokod/internal/registry"
	"github.com/sokod/sokod/internal/solver"
	"github.com/sokod/sokod/internal/supervisor"
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
	heuristic   *registry.Heuristic
	deadlocks   []solver.Deadlocks
	planners    []solver.Planner
	budget      solver.Budget
	searchShare int
}

// optionError is a bad option; its text starts with the option's name, so
// the CLI can print it as it prints its own flag errors.
func optionError(name string, format string, args ...any) error {
	return rpcError(codes.InvalidArgument, reasonInvalidOption, map[string]string{"option": name},
		name+": "+fmt.Sprintf(format, args...))
}

// componentError is a component that could not be resolved for option: a
// plugin that is restarting, starting or hung is UNAVAILABLE (it passes:
// a client retries), one taken out of use FAILED_PRECONDITION, a plugin
// that refused INVALID_ARGUMENT, like an unknown name or a component that
// cannot do what the options ask. A plugin's failure is told briefly
// (supervisor.Error.Brief); its cause goes to the daemon's log.
func (s *Server) componentError(option string, err error) error {
	var pe *supervisor.Error
	if !errors.As(err, &pe) {
		return optionError(option, "%v", err)
	}
	s.log.Warn("component unavailable", "option", option, "error", err)
	md := map[string]string{"option": option, "plugin": pe.Plugin}
	msg := option + ": " + pe.Brief()
	switch pe.Kind {
	case supervisor.ErrDisabled, supervisor.ErrNotFound, supervisor.ErrChecksum:
		return rpcError(codes.FailedPrecondition, reasonPluginDisabled, md, msg)
	case supervisor.ErrRefused:
		return rpcError(codes.InvalidArgument, reasonInvalidOption, md, msg)
	}
	return rpcError(codes.Unavailable, reasonPluginUnavailable, md, msg)
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
		return st, s.componentError("heuristic", err)
	}
	if st.objective == engine.ObjectivePushes && !h.Admissible {
		return st, optionError("heuristic", "%s is not admissible, so it cannot prove push-optimality; use it with objective any", h.Name)
	}
	st.heuristic = h
	for _, name := range o.GetDeadlocks() {
		d, err := s.opts.Components.Deadlocks(ctx, name)
		if err != nil {
			return st, s.componentError("deadlocks", err)
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
			return st, s.componentError("planners", err)
		}
		st.planners = append(st.planners, solver.Planner{Name: p.Name, Planner: p.Planner})
	}
	return st, nil
}

// Solve runs one solve as a job; see the proto for the protocol.
func (v *service) Solve(req *sokodv1.SolveRequest, stream sokodv1.SolverService_SolveServer) error {
	return v.s.solve(stream.Context(), req, stream.Send)
}

// solve admits req as a job, starts it, and streams its events to send
// until its result. ctx is the call's: when it ends first, a job that is
// not detached is cancelled, and solve returns once it has ended, so that a
// call never outlives the memory of its job.
func (s *Server) solve(ctx context.Context, req *sokodv1.SolveRequest, send func(*sokodv1.SolveResponse) error) error {
	level, lerr := parseLevel(req.GetLevel(), req.GetLevelNumber())
	if lerr != nil {
		return send(resultEvent(&sokodv1.Result{Status: sokodv1.Status_STATUS_INVALID_LEVEL, Reason: lerr.Message, LevelError: lerr}))
	}
	st, err := s.resolve(ctx, req.GetOptions())
	if err != nil {
		return err
	}
	if level.Solved() {
		// Nothing to search, so no slot and no memory: the empty solution
		// replays to solved and nothing beats 0 pushes.
		m, err := sokoban.Replay(level, nil)
		if err != nil || !m.Solved {
			return status.Errorf(codes.Internal, "replay of the empty solution: solved %v, %v", m.Solved, err)
		}
		return send(resultEvent(&sokodv1.Result{Status: sokodv1.Status_STATUS_SOLVED, Title: level.Title, Metrics: metricsProto(m),
			Optimal: true, Heuristic: st.heuristic.Name, Objective: objectiveProto(st.objective), Elapsed: durationpb.New(0)}))
	}

	// The job's context is not the call's: a detached job outlives it.
	jctx, cancel := context.WithCancelCause(context.Background())
	j := &job{owner: principalOf(ctx), title: level.Title, objective: st.objective, heuristic: st.heuristic.Name, memory: st.budget.Memory, cancel: cancel,
		detach: req.GetOptions().GetDetach()}
	pos, err := s.jobs.admit(j)
	if err != nil {
		cancel(nil)
		s.log.Debug("solve refused", "reason", err)
		return s.admissionError(err)
	}
	s.log.With("job", j.id).Info("job admitted", "title", level.Title, "queue_position", pos, "objective", st.objective,
		"heuristic", st.heuristic.Name, "time", st.budget.Time, "memory", st.budget.Memory, "nodes", st.budget.Nodes, "detach", j.detach)
	s.runners.Go(func() {
		defer cancel(nil)
		s.runJob(jctx, j, level, st)
	})
	err = s.watch(ctx, j, send)
	if err != nil && !j.detach {
		// The client is gone (or its stream broke): the job goes too.
		j.cancel(errClientGone)
		<-j.ended
	}
	return err
}

// Watch streams a job's events; see the proto.
func (v *service) Watch(req *sokodv1.WatchRequest, stream sokodv1.SolverService_WatchServer) error {
	return v.s.watchJob(stream.Context(), req.GetJobId(), stream.Send)
}

// watchJob streams the events of the job with id to send.
func (s *Server) watchJob(ctx context.Context, id string, send func(*sokodv1.SolveResponse) error) error {
	id = strings.TrimSpace(id)
	j := s.jobs.lookup(id)
	if j == nil {
		return rpcError(codes.NotFound, reasonNoSuchJob, nil, fmt.Sprintf("no job %q is queued, running or ended in the last %v", id, keepFor))
	}
	if !principalOf(ctx).mayControl(j.owner) {
		return notYours(id)
	}
	return s.watch(ctx, j, send)
}

// watch sends j's events to send: Accepted, Started once it runs, each
// progress record, and the result. It returns after the result, or with
// ctx's error or send's.
func (s *Server) watch(ctx context.Context, j *job, send func(*sokodv1.SolveResponse) error) error {
	st := s.jobs.state(j)
	if err := send(&sokodv1.SolveResponse{Event: &sokodv1.SolveResponse_Accepted{Accepted: &sokodv1.Accepted{
		JobId: j.id, QueuePosition: int32(st.queuePosition)}}}); err != nil {
		return err
	}
	started := false
	var seq uint64
	for {
		if st.started && !started {
			started = true
			if err := send(&sokodv1.SolveResponse{Event: &sokodv1.SolveResponse_Started{Started: &sokodv1.Started{
				Queued: durationpb.New(st.queued)}}}); err != nil {
				return err
			}
		}
		if st.result != nil {
			return send(resultEvent(st.result))
		}
		if st.progress != nil && st.seq != seq {
			seq = st.seq
			if err := send(&sokodv1.SolveResponse{Event: &sokodv1.SolveResponse_Progress{Progress: progressProto(*st.progress)}}); err != nil {
				return err
			}
		}
		select {
		case <-st.changed:
		case <-ctx.Done():
			return status.FromContextError(ctx.Err()).Err()
		}
		st = s.jobs.state(j)
	}
}

// runJob waits for j's slot, solves, and records the result.
func (s *Server) runJob(ctx context.Context, j *job, level *sokoban.Level, st settings) {
	log := s.log.With("job", j.id)
	var res *sokodv1.Result
	if err := s.jobs.wait(ctx, j); err != nil {
		log.Info("job cancelled while queued", "reason", cancelReason(ctx))
		res = &sokodv1.Result{Status: sokodv1.Status_STATUS_CANCELLED, Reason: cancelReason(ctx),
			GiveUpReason: sokodv1.GiveUpReason_GIVE_UP_REASON_CANCELLED, Heuristic: st.heuristic.Name, Objective: objectiveProto(st.objective)}
	} else {
		res = s.run(ctx, j, level, st)
	}
	res.JobId, res.Title = j.id, level.Title
	log.Info("job ended", "status", res.Status, "reason", res.Reason, "elapsed", res.GetElapsed().AsDuration())
	s.metrics.solves.WithLabelValues(strings.ToLower(strings.TrimPrefix(res.Status.String(), "STATUS_"))).Inc()
	s.jobs.done(j, res)
	s.releaseMemory()
}

// progressEvery bounds how often a job records progress for its watchers;
// the search reports at this pace already, planners may report faster.
const progressEvery = 250 * time.Millisecond

// run solves, recording progress in j, and returns the result.
func (s *Server) run(ctx context.Context, j *job, level *sokoban.Level, st settings) *sokodv1.Result {
	var last solver.Event
	var lastAt time.Time
	onEvent := func(e solver.Event) {
		// Calls never overlap (solver.Request.OnEvent).
		now := s.clock()
		if e.Phase == last.Phase && e.Component == last.Component && now.Sub(lastAt) < progressEvery {
			return
		}
		last, lastAt = e, now
		s.jobs.setProgress(j, e)
	}
	r, err := solver.Solve(ctx, solver.Request{
		Level: level, Objective: st.objective, Strategy: st.strategy, Heuristic: st.heuristic, Deadlocks: st.deadlocks, Planners: st.planners,
		Budget: st.budget, SearchShare: st.searchShare, PlannerShare: s.opts.PlannerShare, Portfolio: s.opts.Portfolio, BatchSize: s.opts.BatchSize, Clock: s.clock, OnEvent: onEvent,
		Store: s.opts.Store,
	})
	return s.outcome(ctx, level, st, r, err)
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
			GiveUpReason: sokodv1.GiveUpReason_GIVE_UP_REASON_CANCELLED, Heuristic: st.heuristic.Name, Objective: objectiveProto(st.objective)}
	case err != nil:
		res := &sokodv1.Result{Status: sokodv1.Status_STATUS_FAILED, Reason: err.Error(),
			Heuristic: st.heuristic.Name, Objective: objectiveProto(st.objective)}
		var ce *solver.ComponentError
		if errors.As(err, &ce) {
			res.GiveUpReason = sokodv1.GiveUpReason_GIVE_UP_REASON_PLUGIN_FAILED
			var pe *supervisor.Error
			if errors.As(err, &pe) {
				s.log.Warn("component failed", "what", ce.What, "error", err)
				res.Reason = ce.What + ": " + pe.Brief()
			}
		}
		return res
	}
	res := resultProto(r)
	if res.Heuristic == "" {
		// A solve stopped before the heuristic was prepared.
		res.Heuristic = st.heuristic.Name
	}
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
	case r.Status == engine.GaveUp && ctx.Err() != nil:
		res.Status, res.Reason = sokodv1.Status_STATUS_CANCELLED, cancelReason(ctx)
		res.GiveUpReason = sokodv1.GiveUpReason_GIVE_UP_REASON_CANCELLED
	}
	return res
}

// cancelReason says why ctx, a job's context, ended.
func cancelReason(ctx context.Context) string {
	switch cause := context.Cause(ctx); {
	case errors.Is(cause, errCancelled), errors.Is(cause, errShutdown), errors.Is(cause, errClientGone):
		return cause.Error()
	case cause != nil:
		return "cancelled: " + cause.Error()
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
	p := &sokodv1.Progress{
		Phase: phaseProto(e.Phase), Component: e.Component, Nodes: e.Nodes, NodesPerSecond: rate, Stored: e.Stored,
		Depth: int32(e.Depth), LowerBound: int32(e.LowerBound), Elapsed: durationpb.New(e.Elapsed), MemoryBytes: e.Memory,
		BoxesOnGoals: int32(e.BoxesOnGoals), Generated: e.Generated,
	}
	if e.Batches > 0 {
		p.Batches, p.BatchWait = e.Batches, durationpb.New(e.BatchWait)
	}
	if e.Position != nil {
		p.Position = &sokodv1.Position{Player: squareProto(e.Position.Player)}
		for _, b := range e.Position.Boxes {
			p.Position.Boxes = append(p.Position.Boxes, squareProto(b))
		}
	}
	return p
}

func squareProto(p solver.Square) *sokodv1.Square {
	return &sokodv1.Square{X: int32(p.X), Y: int32(p.Y)}
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
	if r.Search.Batches > 0 {
		res.Stats.Batches, res.Stats.BatchWait = r.Search.Batches, durationpb.New(r.Search.BatchWait)
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
		res.GiveUpReason = giveUpReason(r.Reason)
	}
	for _, run := range r.Runs {
		pr := &sokodv1.ComponentRun{Phase: phaseProto(run.Phase), Component: run.Component, Status: runStatus(run.Status),
			Reason: run.Reason, Nodes: run.Nodes, Elapsed: durationpb.New(run.Elapsed)}
		switch pr.Status {
		case sokodv1.RunStatus_RUN_STATUS_GAVE_UP:
			pr.GiveUpReason = giveUpReason(run.Reason)
		case sokodv1.RunStatus_RUN_STATUS_FAILED:
			pr.GiveUpReason = sokodv1.GiveUpReason_GIVE_UP_REASON_PLUGIN_FAILED
		}
		res.Runs = append(res.Runs, pr)
	}
	return res
}

// runStatus converts a solver.Run's status.
func runStatus(s string) sokodv1.RunStatus {
	switch s {
	case solver.RunSolved:
		return sokodv1.RunStatus_RUN_STATUS_SOLVED
	case solver.RunUnsolvable:
		return sokodv1.RunStatus_RUN_STATUS_UNSOLVABLE
	case solver.RunGaveUp:
		return sokodv1.RunStatus_RUN_STATUS_GAVE_UP
	case solver.RunInvalid:
		return sokodv1.RunStatus_RUN_STATUS_INVALID
	case solver.RunFailed:
		return sokodv1.RunStatus_RUN_STATUS_FAILED
	}
	return sokodv1.RunStatus_RUN_STATUS_UNSPECIFIED
}

// reasonExhausted starts the engine's reason for a search that ran out of
// positions; as a give-up reason (not unsolvable) it means a plugin's
// deadlock tables pruned some.
const reasonExhausted = "every reachable position was searched"

// giveUpReason classifies a give-up reason's text, which starts with the
// budget that ran out (a solve's reason adds what the planners did).
func giveUpReason(reason string) sokodv1.GiveUpReason {
	for _, k := range []struct {
		prefix string
		r      sokodv1.GiveUpReason
	}{
		{engine.ReasonDeadline, sokodv1.GiveUpReason_GIVE_UP_REASON_TIME},
		{solver.ReasonPlannerTime, sokodv1.GiveUpReason_GIVE_UP_REASON_TIME},
		{engine.ReasonMemory, sokodv1.GiveUpReason_GIVE_UP_REASON_MEMORY},
		{engine.ReasonNodes, sokodv1.GiveUpReason_GIVE_UP_REASON_NODES},
		{engine.ReasonCancelled, sokodv1.GiveUpReason_GIVE_UP_REASON_CANCELLED},
		{reasonExhausted, sokodv1.GiveUpReason_GIVE_UP_REASON_UNTRUSTED_PRUNING},
	} {
		if strings.HasPrefix(reason, k.prefix) {
			return k.r
		}
	}
	return sokodv1.GiveUpReason_GIVE_UP_REASON_OTHER
}

// admissionError is the status of a job admit refused, counted.
func (s *Server) admissionError(err error) error {
	switch {
	case errors.Is(err, errExhausted):
		s.metrics.refused.WithLabelValues("queue_full").Inc()
		return rpcError(codes.ResourceExhausted, reasonQueueFull, nil, err.Error())
	case errors.Is(err, errClosed):
		s.metrics.refused.WithLabelValues("shutting_down").Inc()
		return rpcError(codes.Unavailable, reasonShuttingDown, nil, err.Error())
	}
	return status.Error(codes.Internal, err.Error())
}

// notYours refuses a client control of another's job.
func notYours(id string) error {
	return rpcError(codes.PermissionDenied, reasonNotYourJob, nil,
		fmt.Sprintf("job %q was started by another client; only it and the daemon's user may cancel or watch it", id))
}

// Cancel cancels a queued or running job.
func (v *service) Cancel(ctx context.Context, req *sokodv1.CancelRequest) (*sokodv1.CancelResponse, error) {
	id := strings.TrimSpace(req.GetJobId())
	switch found, allowed := v.s.jobs.cancel(id, principalOf(ctx)); {
	case !found:
		return nil, rpcError(codes.NotFound, reasonNoSuchJob, nil, fmt.Sprintf("no job %q is queued or running", id))
	case !allowed:
		return nil, notYours(id)
	}
	v.s.log.Info("job cancel requested", "job", id)
	return &sokodv1.CancelResponse{}, nil
}
