package pluginclient

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/hashicorp/go-plugin"
	"google.golang.org/grpc"

	pb "github.com/sokod/sokod/proto/sokod/plugin/v1"
	"github.com/sokod/sokod/sdk"
	"github.com/sokod/sokod/sdk/internal/wire"
)

// Client is the host's connection to one plugin process. Its components
// implement the same interfaces as the plugin's own, so the host uses
// built-in and external components alike.
type Client struct {
	broker    *plugin.GRPCBroker
	info      pb.PluginServiceClient
	heuristic pb.HeuristicServiceClient
	deadlock  pb.DeadlockServiceClient
	planner   pb.PlannerServiceClient
}

// New returns a Client over conn. broker serves the host's services
// to planners; it may be nil when no planner is used.
func New(conn grpc.ClientConnInterface, broker *plugin.GRPCBroker) *Client {
	return &Client{
		broker:    broker,
		info:      pb.NewPluginServiceClient(conn),
		heuristic: pb.NewHeuristicServiceClient(conn),
		deadlock:  pb.NewDeadlockServiceClient(conn),
		planner:   pb.NewPlannerServiceClient(conn),
	}
}

// Info asks the plugin to describe itself and validates the answer.
func (c *Client) Info(ctx context.Context) (*sdk.Info, error) {
	resp, err := c.info.Info(ctx, &pb.InfoRequest{})
	if err != nil {
		return nil, wire.FromStatus("info", err)
	}
	return wire.InfoFromProto(resp)
}

// Heuristic returns the plugin's heuristic. Calls fail unless the plugin
// serves one (Info().Serves(sdk.KindHeuristic)).
func (c *Client) Heuristic() sdk.Heuristic { return remoteHeuristic{c} }

// Deadlocks returns the plugin's deadlock detector. Calls fail unless the
// plugin serves one.
func (c *Client) Deadlocks() sdk.DeadlockDetector { return remoteDeadlocks{c} }

// Planner returns the plugin's planner. Calls fail unless the plugin serves
// one.
func (c *Client) Planner() sdk.Planner { return remotePlanner{c} }

type remoteHeuristic struct{ c *Client }

func (r remoteHeuristic) Prepare(ctx context.Context, level *sdk.Level) (*sdk.PreparedHeuristic, error) {
	resp, err := r.c.heuristic.PrepareHeuristic(ctx, &pb.PrepareHeuristicRequest{Level: wire.LevelToProto(level)})
	if err != nil {
		return nil, wire.FromStatus("prepare heuristic", err)
	}
	h := &sdk.PreparedHeuristic{Admissible: resp.GetAdmissible()}
	switch {
	case resp.GetTables() != nil && resp.GetSession() == 0:
		h.Tables, err = wire.HeuristicTablesFromProto(resp.GetTables(), len(level.Squares), len(level.Goals))
		if err != nil {
			return nil, fmt.Errorf("prepare heuristic: %w", err)
		}
	case resp.GetTables() == nil && resp.GetSession() != 0:
		h.Estimator = &remoteEstimator{c: r.c, session: resp.GetSession(), squares: len(level.Squares)}
	default:
		return nil, fmt.Errorf("prepare heuristic: %w: want exactly one of tables and a session", sdk.ErrBadAnswer)
	}
	return h, nil
}

type remoteEstimator struct {
	c       *Client
	session uint64
	squares int
}

func (e *remoteEstimator) Estimate(ctx context.Context, states sdk.States, out []uint32) error {
	if len(out) != states.Len() {
		return fmt.Errorf("estimate: %d results for %d positions", len(out), states.Len())
	}
	resp, err := e.c.heuristic.Estimate(ctx, &pb.EstimateRequest{Session: e.session, States: wire.StatesToProto(states)})
	if err != nil {
		return wire.FromStatus("estimate", err)
	}
	if len(resp.GetEstimates()) != len(out) {
		return fmt.Errorf("estimate: %w: %d estimates for %d positions", sdk.ErrBadAnswer, len(resp.GetEstimates()), len(out))
	}
	copy(out, resp.GetEstimates())
	return nil
}

func (e *remoteEstimator) Release(ctx context.Context) error {
	_, err := e.c.heuristic.ReleaseHeuristic(ctx, &pb.ReleaseHeuristicRequest{Session: e.session})
	return wire.FromStatus("release heuristic", err)
}

type remoteDeadlocks struct{ c *Client }

func (r remoteDeadlocks) Prepare(ctx context.Context, level *sdk.Level) (*sdk.PreparedDeadlocks, error) {
	resp, err := r.c.deadlock.PrepareDeadlocks(ctx, &pb.PrepareDeadlocksRequest{Level: wire.LevelToProto(level)})
	if err != nil {
		return nil, wire.FromStatus("prepare deadlocks", err)
	}
	if resp.GetTables() == nil && resp.GetSession() == 0 {
		return nil, fmt.Errorf("prepare deadlocks: %w: neither tables nor a session", sdk.ErrBadAnswer)
	}
	d := &sdk.PreparedDeadlocks{}
	if resp.GetTables() != nil {
		d.Tables, err = wire.DeadlockTablesFromProto(resp.GetTables(), len(level.Squares))
		if err != nil {
			return nil, fmt.Errorf("prepare deadlocks: %w", err)
		}
	}
	if resp.GetSession() != 0 {
		d.Checker = &remoteChecker{c: r.c, session: resp.GetSession()}
	}
	return d, nil
}

type remoteChecker struct {
	c       *Client
	session uint64
}

func (k *remoteChecker) Check(ctx context.Context, states sdk.States, out []bool) error {
	if len(out) != states.Len() {
		return fmt.Errorf("check: %d results for %d positions", len(out), states.Len())
	}
	resp, err := k.c.deadlock.Check(ctx, &pb.CheckRequest{Session: k.session, States: wire.StatesToProto(states)})
	if err != nil {
		return wire.FromStatus("check", err)
	}
	if len(resp.GetDeadlocked()) != len(out) {
		return fmt.Errorf("check: %w: %d answers for %d positions", sdk.ErrBadAnswer, len(resp.GetDeadlocked()), len(out))
	}
	copy(out, resp.GetDeadlocked())
	return nil
}

func (k *remoteChecker) Release(ctx context.Context) error {
	_, err := k.c.deadlock.ReleaseDeadlocks(ctx, &pb.ReleaseDeadlocksRequest{Session: k.session})
	return wire.FromStatus("release deadlocks", err)
}

type remotePlanner struct{ c *Client }

// Plan serves host to the plugin through the broker for the length of the
// call, then streams the plan.
func (r remotePlanner) Plan(ctx context.Context, req *sdk.PlanRequest, host sdk.Host, progress func(sdk.PlanProgress)) (*sdk.PlanResult, error) {
	var id uint32
	if host != nil {
		if r.c.broker == nil {
			return nil, errors.New("plan: no broker to serve the host's service on")
		}
		id = r.c.broker.NextId()
		stop := serveHost(r.c.broker, id, &hostServer{impl: host, squares: len(req.Level.Squares), boxes: len(req.Level.Boxes)})
		defer stop()
	}
	stream, err := r.c.planner.Plan(ctx, &pb.PlanRequest{Level: wire.LevelToProto(req.Level), Budget: wire.BudgetToProto(req.Budget), HostBrokerId: id})
	if err != nil {
		return nil, wire.FromStatus("plan", err)
	}
	for {
		msg, err := stream.Recv()
		if err == io.EOF {
			return nil, fmt.Errorf("plan: %w: the stream ended without a result", sdk.ErrBadAnswer)
		}
		if err != nil {
			return nil, wire.FromStatus("plan", err)
		}
		if p := msg.GetProgress(); p != nil {
			if progress != nil {
				progress(sdk.PlanProgress{Nodes: p.GetNodes(), BoxesOnGoals: int(p.GetBoxesOnGoals()), Message: p.GetMessage()})
			}
			continue
		}
		res := msg.GetResult()
		if res == nil {
			return nil, fmt.Errorf("plan: %w: an empty event", sdk.ErrBadAnswer)
		}
		st := sdk.PlanStatus(res.GetStatus())
		if st < sdk.PlanSolved || st > sdk.PlanGaveUp {
			return nil, fmt.Errorf("plan: %w: status %d", sdk.ErrBadAnswer, res.GetStatus())
		}
		return &sdk.PlanResult{Status: st, Solution: res.GetSolution(), Reason: res.GetReason()}, nil
	}
}

// serveHost serves HostService on broker id until the returned function is
// called. AcceptAndServe is used, rather than Accept, because it applies
// the connection's mTLS settings, which the broker does not expose; the
// server it builds is stopped to end it.
func serveHost(broker *plugin.GRPCBroker, id uint32, hs *hostServer) (stop func()) {
	servers := make(chan *grpc.Server, 1)
	done := make(chan struct{})
	go func() {
		defer close(done)
		broker.AcceptAndServe(id, func(opts []grpc.ServerOption) *grpc.Server {
			s := grpc.NewServer(append(opts, wire.ServerOptions()...)...)
			pb.RegisterHostServiceServer(s, hs)
			servers <- s
			return s
		})
	}()
	return func() {
		select {
		case s := <-servers:
			s.Stop()
			<-done
		case <-done:
		}
	}
}

// hostServer serves HostService for one Plan call.
type hostServer struct {
	pb.UnimplementedHostServiceServer
	impl    sdk.Host
	squares int
	boxes   int
}

// states unpacks a batch from the planner and checks it against the level.
func (s *hostServer) states(p *pb.StateBatch) (sdk.States, error) {
	st, err := wire.StatesFromProto(p, s.squares, sdk.ErrBadRequest)
	if err != nil {
		return st, err
	}
	if st.Boxes != s.boxes {
		return sdk.States{}, fmt.Errorf("%w: positions with %d boxes on a level with %d", sdk.ErrBadRequest, st.Boxes, s.boxes)
	}
	return st, nil
}

func (s *hostServer) LegalPushes(ctx context.Context, req *pb.LegalPushesRequest) (*pb.LegalPushesResponse, error) {
	st, err := s.states(req.GetStates())
	if err != nil {
		return nil, wire.ToStatus(ctx, err)
	}
	pl, err := s.impl.LegalPushes(ctx, st)
	if err != nil {
		return nil, wire.ToStatus(ctx, err)
	}
	return &pb.LegalPushesResponse{Counts: wire.IntsToProto(pl.Counts), Pushes: wire.PackPushes(pl.Pushes), Results: wire.StatesToProto(pl.Results)}, nil
}

func (s *hostServer) Reachable(ctx context.Context, req *pb.ReachableRequest) (*pb.ReachableResponse, error) {
	st, err := s.states(req.GetStates())
	if err != nil {
		return nil, wire.ToStatus(ctx, err)
	}
	sets, err := s.impl.Reachable(ctx, st)
	if err != nil {
		return nil, wire.ToStatus(ctx, err)
	}
	return &pb.ReachableResponse{Reachable: sets.Bits}, nil
}

func (s *hostServer) Deadlocked(ctx context.Context, req *pb.DeadlockedRequest) (*pb.DeadlockedResponse, error) {
	st, err := s.states(req.GetStates())
	if err != nil {
		return nil, wire.ToStatus(ctx, err)
	}
	out := make([]bool, st.Len())
	if err := s.impl.Deadlocked(ctx, st, out); err != nil {
		return nil, wire.ToStatus(ctx, err)
	}
	return &pb.DeadlockedResponse{Deadlocked: out}, nil
}

func (s *hostServer) SubSearch(ctx context.Context, req *pb.SubSearchRequest) (*pb.SubSearchResponse, error) {
	st, err := s.states(req.GetStart())
	if err != nil {
		return nil, wire.ToStatus(ctx, err)
	}
	if st.Len() != 1 {
		return nil, wire.ToStatus(ctx, fmt.Errorf("%w: a sub-search starts from 1 position, not %d", sdk.ErrBadRequest, st.Len()))
	}
	goal := sdk.SubGoal{Targets: wire.IntsFromProto(req.GetGoal().GetTargets())}
	for _, r := range req.GetGoal().GetRegions() {
		goal.Regions = append(goal.Regions, wire.RegionLimitFromProto(r))
	}
	if err := goal.Validate(s.squares); err != nil {
		return nil, wire.ToStatus(ctx, fmt.Errorf("%w: %w", sdk.ErrBadRequest, err))
	}
	res, err := s.impl.SubSearch(ctx, st, goal, wire.BudgetFromProto(req.GetBudget()))
	if err != nil {
		return nil, wire.ToStatus(ctx, err)
	}
	return &pb.SubSearchResponse{
		Status: pb.SubSearchStatus(res.Status),
		Pushes: wire.PackPushes(res.Pushes),
		End:    wire.StatesToProto(res.End),
		Nodes:  res.Nodes,
		Moves:  res.Moves,
	}, nil
}

func (s *hostServer) Verify(ctx context.Context, req *pb.VerifyRequest) (*pb.VerifyResponse, error) {
	v, err := s.impl.Verify(ctx, req.GetSolution())
	if err != nil {
		return nil, wire.ToStatus(ctx, err)
	}
	return &pb.VerifyResponse{
		Solved: v.Solved, Error: v.Error,
		Moves: uint32(v.Moves), Pushes: uint32(v.Pushes), BoxLines: uint32(v.BoxLines), BoxChanges: uint32(v.BoxChanges),
	}, nil
}
