package sdk

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/hashicorp/go-plugin"
	"google.golang.org/grpc"

	pb "github.com/sokod/sokod/proto/sokod/plugin/v1"
)

// This file is the plugin side of the protocol: gRPC services that call the
// plugin author's components.

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
		return v, fmt.Errorf("%w %d", ErrUnknownSession, id)
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
func (s *sessions[T]) batch(id uint64, packed *pb.StateBatch) (T, States, error) {
	sess, err := s.get(id)
	if err != nil {
		var zero T
		return zero, States{}, err
	}
	states, err := statesFromProto(packed, sess.squares, ErrBadRequest)
	return sess.v, states, err
}

// release forgets a session and releases what it holds; an unknown
// session is no error, so a repeated release is harmless.
func release[T interface{ Release(context.Context) error }](ctx context.Context, s *sessions[T], id uint64) error {
	if sess, ok := s.remove(id); ok {
		if err := sess.v.Release(ctx); err != nil {
			return toStatus(ctx, fmt.Errorf("release: %w", err))
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

// heuristicServer serves HeuristicService over a Heuristic.
type heuristicServer struct {
	pb.UnimplementedHeuristicServiceServer
	impl     Heuristic
	sessions sessions[Estimator]
}

func (s *heuristicServer) PrepareHeuristic(ctx context.Context, req *pb.PrepareHeuristicRequest) (*pb.PrepareHeuristicResponse, error) {
	l, err := levelFromProto(req.GetLevel())
	if err != nil {
		return nil, toStatus(ctx, err)
	}
	h, err := s.impl.Prepare(ctx, l)
	if err != nil {
		return nil, toStatus(ctx, fmt.Errorf("prepare: %w", err))
	}
	if h == nil || (h.Tables == nil) == (h.Estimator == nil) {
		return nil, toStatus(ctx, errors.New("plugin bug: Prepare must return exactly one of Tables and Estimator"))
	}
	resp := &pb.PrepareHeuristicResponse{Admissible: h.Admissible}
	if h.Tables != nil {
		// Checked here too, so a plugin author sees the mistake in the
		// plugin's own error rather than as the host's refusal.
		if err := h.Tables.Validate(len(l.Squares), len(l.Goals)); err != nil {
			return nil, toStatus(ctx, fmt.Errorf("plugin bug: %w", err))
		}
		resp.Tables = heuristicTablesToProto(h.Tables)
		return resp, nil
	}
	resp.Session = s.sessions.add(h.Estimator, len(l.Squares))
	return resp, nil
}

func (s *heuristicServer) Estimate(ctx context.Context, req *pb.EstimateRequest) (*pb.EstimateResponse, error) {
	est, states, err := s.sessions.batch(req.GetSession(), req.GetStates())
	if err != nil {
		return nil, toStatus(ctx, err)
	}
	out := make([]uint32, states.Len())
	if err := est.Estimate(ctx, states, out); err != nil {
		return nil, toStatus(ctx, fmt.Errorf("estimate: %w", err))
	}
	return &pb.EstimateResponse{Estimates: out}, nil
}

func (s *heuristicServer) ReleaseHeuristic(ctx context.Context, req *pb.ReleaseHeuristicRequest) (*pb.ReleaseHeuristicResponse, error) {
	if err := release(ctx, &s.sessions, req.GetSession()); err != nil {
		return nil, err
	}
	return &pb.ReleaseHeuristicResponse{}, nil
}

// deadlockServer serves DeadlockService over a DeadlockDetector.
type deadlockServer struct {
	pb.UnimplementedDeadlockServiceServer
	impl     DeadlockDetector
	sessions sessions[Checker]
}

func (s *deadlockServer) PrepareDeadlocks(ctx context.Context, req *pb.PrepareDeadlocksRequest) (*pb.PrepareDeadlocksResponse, error) {
	l, err := levelFromProto(req.GetLevel())
	if err != nil {
		return nil, toStatus(ctx, err)
	}
	d, err := s.impl.Prepare(ctx, l)
	if err != nil {
		return nil, toStatus(ctx, fmt.Errorf("prepare: %w", err))
	}
	if d == nil || (d.Tables == nil && d.Checker == nil) {
		return nil, toStatus(ctx, errors.New("plugin bug: Prepare must return Tables, a Checker, or both"))
	}
	resp := &pb.PrepareDeadlocksResponse{}
	if d.Tables != nil {
		if err := d.Tables.Validate(len(l.Squares)); err != nil {
			return nil, toStatus(ctx, fmt.Errorf("plugin bug: %w", err))
		}
		resp.Tables = deadlockTablesToProto(d.Tables)
	}
	if d.Checker != nil {
		resp.Session = s.sessions.add(d.Checker, len(l.Squares))
	}
	return resp, nil
}

func (s *deadlockServer) Check(ctx context.Context, req *pb.CheckRequest) (*pb.CheckResponse, error) {
	chk, states, err := s.sessions.batch(req.GetSession(), req.GetStates())
	if err != nil {
		return nil, toStatus(ctx, err)
	}
	out := make([]bool, states.Len())
	if err := chk.Check(ctx, states, out); err != nil {
		return nil, toStatus(ctx, fmt.Errorf("check: %w", err))
	}
	return &pb.CheckResponse{Deadlocked: out}, nil
}

func (s *deadlockServer) ReleaseDeadlocks(ctx context.Context, req *pb.ReleaseDeadlocksRequest) (*pb.ReleaseDeadlocksResponse, error) {
	if err := release(ctx, &s.sessions, req.GetSession()); err != nil {
		return nil, err
	}
	return &pb.ReleaseDeadlocksResponse{}, nil
}

// plannerServer serves PlannerService over a Planner, dialling the host's
// HostService through the broker for each plan.
type plannerServer struct {
	pb.UnimplementedPlannerServiceServer
	impl   Planner
	broker *plugin.GRPCBroker
}

func (s *plannerServer) Plan(req *pb.PlanRequest, stream grpc.ServerStreamingServer[pb.PlanResponse]) error {
	ctx := stream.Context()
	l, err := levelFromProto(req.GetLevel())
	if err != nil {
		return toStatus(ctx, err)
	}
	var host Host
	if id := req.GetHostBrokerId(); id != 0 {
		conn, err := s.broker.Dial(id)
		if err != nil {
			return toStatus(ctx, fmt.Errorf("dial the host's service %d: %w", id, err))
		}
		defer conn.Close()
		host = &hostClient{c: pb.NewHostServiceClient(conn), squares: len(l.Squares)}
	}
	// progress is called from Plan's goroutine, so sends do not race; a
	// failed send means the host has gone, and Plan sees ctx cancelled.
	progress := func(p PlanProgress) {
		_ = stream.Send(&pb.PlanResponse{Event: &pb.PlanResponse_Progress{Progress: &pb.PlanProgress{
			Nodes: p.Nodes, BoxesOnGoals: uint32(p.BoxesOnGoals), Message: p.Message,
		}}})
	}
	res, err := s.impl.Plan(ctx, &PlanRequest{Level: l, Budget: budgetFromProto(req.GetBudget())}, host, progress)
	if err != nil {
		return toStatus(ctx, fmt.Errorf("plan: %w", err))
	}
	if res == nil || res.Status < PlanSolved || res.Status > PlanGaveUp {
		return toStatus(ctx, errors.New("plugin bug: Plan returned no result or an invalid status"))
	}
	return stream.Send(&pb.PlanResponse{Event: &pb.PlanResponse_Result{Result: &pb.PlanResult{
		Status: pb.PlanStatus(res.Status), Solution: res.Solution, Reason: res.Reason,
	}}})
}
