package pluginserver

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/hashicorp/go-plugin"
	"google.golang.org/grpc"

	pb "github.com/sokod/sokod/proto/sokod/plugin/v1"
	"github.com/sokod/sokod/sdk"
	"github.com/sokod/sokod/sdk/internal/wire"
)

// This file holds the gRPC services that call the plugin author's
// components, and the Host a planner calls back through.

// sessions holds what Prepare handed out for later batches: one table per
// service, keyed by session number. Numbers start at 1, since 0 means "no
// session" on the wire, and are never reused within a process, so a stale
// number from before a restart cannot name someone else's level.
type sessions[T any] struct {
	mu   sync.Mutex
	next uint64
	m    map[uint64]session[T]
}

type session[T any] struct {
	v       T
	squares int
}

func (s *sessions[T]) add(v T, squares int) uint64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.m == nil {
		s.m = make(map[uint64]session[T])
	}
	s.next++
	s.m[s.next] = session[T]{v: v, squares: squares}
	return s.next
}

func (s *sessions[T]) get(id uint64) (session[T], error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	v, ok := s.m[id]
	if !ok {
		return v, fmt.Errorf("%w %d", sdk.ErrUnknownSession, id)
	}
	return v, nil
}

func (s *sessions[T]) remove(id uint64) (session[T], bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	v, ok := s.m[id]
	delete(s.m, id)
	return v, ok
}

// batch finds the session a batch names and unpacks its positions against
// that session's level.
func (s *sessions[T]) batch(id uint64, packed *pb.StateBatch) (T, sdk.States, error) {
	sess, err := s.get(id)
	if err != nil {
		var zero T
		return zero, sdk.States{}, err
	}
	states, err := wire.StatesFromProto(packed, sess.squares, sdk.ErrBadRequest)
	return sess.v, states, err
}

// release forgets a session and releases what it holds; an unknown
// session is no error, so a repeated release is harmless.
func release[T interface{ Release(context.Context) error }](ctx context.Context, s *sessions[T], id uint64) error {
	if sess, ok := s.remove(id); ok {
		if err := sess.v.Release(ctx); err != nil {
			return wire.ToStatus(ctx, fmt.Errorf("release: %w", err))
		}
	}
	return nil
}

// infoServer serves PluginService.
type infoServer struct {
	pb.UnimplementedPluginServiceServer
	info *pb.InfoResponse
}

func (s *infoServer) Info(context.Context, *pb.InfoRequest) (*pb.InfoResponse, error) {
	return s.info, nil
}

// heuristicServer serves HeuristicService over an sdk.Heuristic.
type heuristicServer struct {
	pb.UnimplementedHeuristicServiceServer
	impl     sdk.Heuristic
	sessions sessions[sdk.Estimator]
}

func (s *heuristicServer) PrepareHeuristic(ctx context.Context, req *pb.PrepareHeuristicRequest) (*pb.PrepareHeuristicResponse, error) {
	l, err := wire.LevelFromProto(req.GetLevel())
	if err != nil {
		return nil, wire.ToStatus(ctx, err)
	}
	h, err := s.impl.Prepare(ctx, l)
	if err != nil {
		return nil, wire.ToStatus(ctx, fmt.Errorf("prepare: %w", err))
	}
	if h == nil || (h.Tables == nil) == (h.Estimator == nil) {
		return nil, wire.ToStatus(ctx, errors.New("plugin bug: Prepare must return exactly one of Tables and sdk.Estimator"))
	}
	resp := &pb.PrepareHeuristicResponse{Admissible: h.Admissible}
	if h.Tables != nil {
		// Checked here too, so a plugin author sees the mistake in the
		// plugin's own error rather than as the host's refusal.
		if err := h.Tables.Validate(len(l.Squares), len(l.Goals)); err != nil {
			return nil, wire.ToStatus(ctx, fmt.Errorf("plugin bug: %w", err))
		}
		resp.Tables = wire.HeuristicTablesToProto(h.Tables)
		return resp, nil
	}
	resp.Session = s.sessions.add(h.Estimator, len(l.Squares))
	return resp, nil
}

func (s *heuristicServer) Estimate(ctx context.Context, req *pb.EstimateRequest) (*pb.EstimateResponse, error) {
	est, states, err := s.sessions.batch(req.GetSession(), req.GetStates())
	if err != nil {
		return nil, wire.ToStatus(ctx, err)
	}
	out := make([]uint32, states.Len())
	if err := est.Estimate(ctx, states, out); err != nil {
		return nil, wire.ToStatus(ctx, fmt.Errorf("estimate: %w", err))
	}
	return &pb.EstimateResponse{Estimates: out}, nil
}

func (s *heuristicServer) ReleaseHeuristic(ctx context.Context, req *pb.ReleaseHeuristicRequest) (*pb.ReleaseHeuristicResponse, error) {
	if err := release(ctx, &s.sessions, req.GetSession()); err != nil {
		return nil, err
	}
	return &pb.ReleaseHeuristicResponse{}, nil
}

// deadlockServer serves DeadlockService over an sdk.DeadlockDetector.
type deadlockServer struct {
	pb.UnimplementedDeadlockServiceServer
	impl     sdk.DeadlockDetector
	sessions sessions[sdk.Checker]
}

func (s *deadlockServer) PrepareDeadlocks(ctx context.Context, req *pb.PrepareDeadlocksRequest) (*pb.PrepareDeadlocksResponse, error) {
	l, err := wire.LevelFromProto(req.GetLevel())
	if err != nil {
		return nil, wire.ToStatus(ctx, err)
	}
	d, err := s.impl.Prepare(ctx, l)
	if err != nil {
		return nil, wire.ToStatus(ctx, fmt.Errorf("prepare: %w", err))
	}
	if d == nil || (d.Tables == nil && d.Checker == nil) {
		return nil, wire.ToStatus(ctx, errors.New("plugin bug: Prepare must return Tables, a sdk.Checker, or both"))
	}
	resp := &pb.PrepareDeadlocksResponse{}
	if d.Tables != nil {
		if err := d.Tables.Validate(len(l.Squares)); err != nil {
			return nil, wire.ToStatus(ctx, fmt.Errorf("plugin bug: %w", err))
		}
		resp.Tables = wire.DeadlockTablesToProto(d.Tables)
	}
	if d.Checker != nil {
		resp.Session = s.sessions.add(d.Checker, len(l.Squares))
	}
	return resp, nil
}

func (s *deadlockServer) Check(ctx context.Context, req *pb.CheckRequest) (*pb.CheckResponse, error) {
	chk, states, err := s.sessions.batch(req.GetSession(), req.GetStates())
	if err != nil {
		return nil, wire.ToStatus(ctx, err)
	}
	out := make([]bool, states.Len())
	if err := chk.Check(ctx, states, out); err != nil {
		return nil, wire.ToStatus(ctx, fmt.Errorf("check: %w", err))
	}
	return &pb.CheckResponse{Deadlocked: out}, nil
}

func (s *deadlockServer) ReleaseDeadlocks(ctx context.Context, req *pb.ReleaseDeadlocksRequest) (*pb.ReleaseDeadlocksResponse, error) {
	if err := release(ctx, &s.sessions, req.GetSession()); err != nil {
		return nil, err
	}
	return &pb.ReleaseDeadlocksResponse{}, nil
}

// plannerServer serves PlannerService over an sdk.Planner, dialling the host's
// HostService through the broker for each plan.
type plannerServer struct {
	pb.UnimplementedPlannerServiceServer
	impl   sdk.Planner
	broker *plugin.GRPCBroker
}

func (s *plannerServer) Plan(req *pb.PlanRequest, stream grpc.ServerStreamingServer[pb.PlanResponse]) error {
	ctx := stream.Context()
	l, err := wire.LevelFromProto(req.GetLevel())
	if err != nil {
		return wire.ToStatus(ctx, err)
	}
	var host sdk.Host
	if id := req.GetHostBrokerId(); id != 0 {
		conn, err := s.broker.Dial(id)
		if err != nil {
			return wire.ToStatus(ctx, fmt.Errorf("dial the host's service %d: %w", id, err))
		}
		defer conn.Close()
		host = &hostClient{c: pb.NewHostServiceClient(conn), squares: len(l.Squares)}
	}
	// progress is called from Plan's goroutine, so sends do not race; a
	// failed send means the host has gone, and Plan sees ctx cancelled.
	progress := func(p sdk.PlanProgress) {
		_ = stream.Send(&pb.PlanResponse{Event: &pb.PlanResponse_Progress{Progress: &pb.PlanProgress{
			Nodes: p.Nodes, BoxesOnGoals: uint32(p.BoxesOnGoals), Message: p.Message,
		}}})
	}
	res, err := s.impl.Plan(ctx, &sdk.PlanRequest{Level: l, Budget: wire.BudgetFromProto(req.GetBudget())}, host, progress)
	if err != nil {
		return wire.ToStatus(ctx, fmt.Errorf("plan: %w", err))
	}
	if res == nil || res.Status < sdk.PlanSolved || res.Status > sdk.PlanGaveUp {
		return wire.ToStatus(ctx, errors.New("plugin bug: Plan returned no result or an invalid status"))
	}
	return stream.Send(&pb.PlanResponse{Event: &pb.PlanResponse_Result{Result: &pb.PlanResult{
		Status: pb.PlanStatus(res.Status), Solution: res.Solution, Reason: res.Reason,
	}}})
}

// hostClient implements sdk.Host in the plugin by calling HostService.
type hostClient struct {
	c       pb.HostServiceClient
	squares int
}

func (h *hostClient) LegalPushes(ctx context.Context, states sdk.States) (*sdk.PushList, error) {
	resp, err := h.c.LegalPushes(ctx, &pb.LegalPushesRequest{States: wire.StatesToProto(states)})
	if err != nil {
		return nil, wire.FromStatus("legal pushes", err)
	}
	pl := &sdk.PushList{Counts: wire.IntsFromProto(resp.GetCounts())}
	if len(pl.Counts) != states.Len() {
		return nil, fmt.Errorf("legal pushes: %w: %d counts for %d positions", sdk.ErrBadAnswer, len(pl.Counts), states.Len())
	}
	if pl.Pushes, err = wire.UnpackPushes(resp.GetPushes(), h.squares, sdk.ErrBadAnswer); err != nil {
		return nil, fmt.Errorf("legal pushes: %w", err)
	}
	if pl.Results, err = wire.StatesFromProto(resp.GetResults(), h.squares, sdk.ErrBadAnswer); err != nil {
		return nil, fmt.Errorf("legal pushes: %w", err)
	}
	total := 0
	for _, n := range pl.Counts {
		total += n
	}
	if total != len(pl.Pushes) || pl.Results.Len() != total || (total > 0 && pl.Results.Boxes != states.Boxes) {
		return nil, fmt.Errorf("legal pushes: %w: counts sum to %d, with %d pushes and %d results", sdk.ErrBadAnswer, total, len(pl.Pushes), pl.Results.Len())
	}
	return pl, nil
}

func (h *hostClient) Reachable(ctx context.Context, states sdk.States) (sdk.SquareSets, error) {
	resp, err := h.c.Reachable(ctx, &pb.ReachableRequest{States: wire.StatesToProto(states)})
	if err != nil {
		return sdk.SquareSets{}, wire.FromStatus("reachable", err)
	}
	sets := sdk.SquareSets{Squares: h.squares, Bits: resp.GetReachable()}
	if len(sets.Bits) != states.Len()*sets.Stride() {
		return sdk.SquareSets{}, fmt.Errorf("reachable: %w: %d bytes for %d positions of %d squares", sdk.ErrBadAnswer, len(sets.Bits), states.Len(), h.squares)
	}
	return sets, nil
}

func (h *hostClient) Deadlocked(ctx context.Context, states sdk.States, out []bool) error {
	if len(out) != states.Len() {
		return fmt.Errorf("deadlocked: %d results for %d positions", len(out), states.Len())
	}
	resp, err := h.c.Deadlocked(ctx, &pb.DeadlockedRequest{States: wire.StatesToProto(states)})
	if err != nil {
		return wire.FromStatus("deadlocked", err)
	}
	if len(resp.GetDeadlocked()) != len(out) {
		return fmt.Errorf("deadlocked: %w: %d answers for %d positions", sdk.ErrBadAnswer, len(resp.GetDeadlocked()), len(out))
	}
	copy(out, resp.GetDeadlocked())
	return nil
}

func (h *hostClient) SubSearch(ctx context.Context, start sdk.States, goal sdk.SubGoal, budget sdk.Budget) (*sdk.SubSearchResult, error) {
	g := &pb.SubGoal{Targets: wire.IntsToProto(goal.Targets)}
	for _, r := range goal.Regions {
		g.Regions = append(g.Regions, wire.RegionLimitToProto(r))
	}
	resp, err := h.c.SubSearch(ctx, &pb.SubSearchRequest{Start: wire.StatesToProto(start), Goal: g, Budget: wire.BudgetToProto(budget)})
	if err != nil {
		return nil, wire.FromStatus("sub-search", err)
	}
	res := &sdk.SubSearchResult{Status: sdk.SubSearchStatus(resp.GetStatus()), Nodes: resp.GetNodes(), Moves: resp.GetMoves()}
	if res.Status < sdk.SubGoalReached || res.Status > sdk.SubSearchGaveUp {
		return nil, fmt.Errorf("sub-search: %w: status %d", sdk.ErrBadAnswer, resp.GetStatus())
	}
	if res.Pushes, err = wire.UnpackPushes(resp.GetPushes(), h.squares, sdk.ErrBadAnswer); err != nil {
		return nil, fmt.Errorf("sub-search: %w", err)
	}
	if res.Status == sdk.SubGoalReached {
		if res.End, err = wire.StatesFromProto(resp.GetEnd(), h.squares, sdk.ErrBadAnswer); err != nil {
			return nil, fmt.Errorf("sub-search: %w", err)
		}
	}
	return res, nil
}

func (h *hostClient) Verify(ctx context.Context, solution string) (*sdk.Verification, error) {
	resp, err := h.c.Verify(ctx, &pb.VerifyRequest{Solution: solution})
	if err != nil {
		return nil, wire.FromStatus("verify", err)
	}
	return &sdk.Verification{
		Solved: resp.GetSolved(), Error: resp.GetError(),
		Moves: int(resp.GetMoves()), Pushes: int(resp.GetPushes()), BoxLines: int(resp.GetBoxLines()), BoxChanges: int(resp.GetBoxChanges()),
	}, nil
}
