package sdk

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/hashicorp/go-plugin"
	"google.golang.org/grpc"

	pb "github.com/sokod/sokod/proto/sokod/plugin/v1"
)

// This file is the host side of the protocol: the component interfaces
// implemented by calls to a plugin process. Every answer is validated, and
// one that breaks the protocol is an error wrapping ErrBadAnswer.

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

// NewClient returns a Client over conn. broker serves the host's services
// to planners; it may be nil when no planner is used.
func NewClient(conn grpc.ClientConnInterface, broker *plugin.GRPCBroker) *Client {
	return &Client{
		broker:    broker,
		info:      pb.NewPluginServiceClient(conn),
		heuristic: pb.NewHeuristicServiceClient(conn),
		deadlock:  pb.NewDeadlockServiceClient(conn),
		planner:   pb.NewPlannerServiceClient(conn),
	}
}

// Info asks the plugin to describe itself and validates the answer.
func (c *Client) Info(ctx context.Context) (*Info, error) {
	resp, err := c.info.Info(ctx, &pb.InfoRequest{})
	if err != nil {
		return nil, fromStatus("info", err)
	}
	return infoFromProto(resp)
}

// Heuristic returns the plugin's heuristic. Calls fail unless the plugin
// serves one (Info.Serves(KindHeuristic)).
func (c *Client) Heuristic() Heuristic { return remoteHeuristic{c} }

// Deadlocks returns the plugin's deadlock detector. Calls fail unless the
// plugin serves one.
func (c *Client) Deadlocks() DeadlockDetector { return remoteDeadlocks{c} }

// Planner returns the plugin's planner. Calls fail unless the plugin serves
// one.
func (c *Client) Planner() Planner { return remotePlanner{c} }

type remoteHeuristic struct{ c *Client }

func (r remoteHeuristic) Prepare(ctx context.Context, level *Level) (*PreparedHeuristic, error) {
	resp, err := r.c.heuristic.PrepareHeuristic(ctx, &pb.PrepareHeuristicRequest{Level: levelToProto(level)})
	if err != nil {
		return nil, fromStatus("prepare heuristic", err)
	}
	h := &PreparedHeuristic{Admissible: resp.GetAdmissible()}
	switch {
	case resp.GetTables() != nil && resp.GetSession() == 0:
		h.Tables, err = heuristicTablesFromProto(resp.GetTables(), len(level.Squares), len(level.Goals))
		if err != nil {
			return nil, fmt.Errorf("prepare heuristic: %w", err)
		}
	case resp.GetTables() == nil && resp.GetSession() != 0:
		h.Estimator = &remoteEstimator{c: r.c, session: resp.GetSession(), squares: len(level.Squares)}
	default:
		return nil, fmt.Errorf("prepare heuristic: %w: want exactly one of tables and a session", ErrBadAnswer)
	}
	return h, nil
}

type remoteEstimator struct {
	c       *Client
	session uint64
	squares int
}

func (e *remoteEstimator) Estimate(ctx context.Context, states States, out []uint32) error {
	if len(out) != states.Len() {
		return fmt.Errorf("estimate: %d results for %d positions", len(out), states.Len())
	}
	resp, err := e.c.heuristic.Estimate(ctx, &pb.EstimateRequest{Session: e.session, States: statesToProto(states)})
	if err != nil {
		return fromStatus("estimate", err)
	}
	if len(resp.GetEstimates()) != len(out) {
		return fmt.Errorf("estimate: %w: %d estimates for %d positions", ErrBadAnswer, len(resp.GetEstimates()), len(out))
	}
	copy(out, resp.GetEstimates())
	return nil
}

func (e *remoteEstimator) Release(ctx context.Context) error {
	_, err := e.c.heuristic.ReleaseHeuristic(ctx, &pb.ReleaseHeuristicRequest{Session: e.session})
	return fromStatus("release heuristic", err)
}

type remoteDeadlocks struct{ c *Client }

func (r remoteDeadlocks) Prepare(ctx context.Context, level *Level) (*PreparedDeadlocks, error) {
	resp, err := r.c.deadlock.PrepareDeadlocks(ctx, &pb.PrepareDeadlocksRequest{Level: levelToProto(level)})
	if err != nil {
		return nil, fromStatus("prepare deadlocks", err)
	}
	if resp.GetTables() == nil && resp.GetSession() == 0 {
		return nil, fmt.Errorf("prepare deadlocks: %w: neither tables nor a session", ErrBadAnswer)
	}
	d := &PreparedDeadlocks{}
	if resp.GetTables() != nil {
		d.Tables, err = deadlockTablesFromProto(resp.GetTables(), len(level.Squares))
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

func (k *remoteChecker) Check(ctx context.Context, states States, out []bool) error {
	if len(out) != states.Len() {
		return fmt.Errorf("check: %d results for %d positions", len(out), states.Len())
	}
	resp, err := k.c.deadlock.Check(ctx, &pb.CheckRequest{Session: k.session, States: statesToProto(states)})
	if err != nil {
		return fromStatus("check", err)
	}
	if len(resp.GetDeadlocked()) != len(out) {
		return fmt.Errorf("check: %w: %d answers for %d positions", ErrBadAnswer, len(resp.GetDeadlocked()), len(out))
	}
	copy(out, resp.GetDeadlocked())
	return nil
}

func (k *remoteChecker) Release(ctx context.Context) error {
	_, err := k.c.deadlock.ReleaseDeadlocks(ctx, &pb.ReleaseDeadlocksRequest{Session: k.session})
	return fromStatus("release deadlocks", err)
}

type remotePlanner struct{ c *Client }

// Plan serves host to the plugin through the broker for the length of the
// call, then streams the plan.
func (r remotePlanner) Plan(ctx context.Context, req *PlanRequest, host Host, progress func(PlanProgress)) (*PlanResult, error) {
	var id uint32
	if host != nil {
		if r.c.broker == nil {
			return nil, errors.New("plan: no broker to serve the host's service on")
		}
		id = r.c.broker.NextId()
		stop := serveHost(r.c.broker, id, &hostServer{impl: host, squares: len(req.Level.Squares), boxes: len(req.Level.Boxes)})
		defer stop()
	}
	stream, err := r.c.planner.Plan(ctx, &pb.PlanRequest{Level: levelToProto(req.Level), Budget: budgetToProto(req.Budget), HostBrokerId: id})
	if err != nil {
		return nil, fromStatus("plan", err)
	}
	for {
		msg, err := stream.Recv()
		if err == io.EOF {
			return nil, fmt.Errorf("plan: %w: the stream ended without a result", ErrBadAnswer)
		}
		if err != nil {
			return nil, fromStatus("plan", err)
		}
		if p := msg.GetProgress(); p != nil {
			if progress != nil {
				progress(PlanProgress{Nodes: p.GetNodes(), BoxesOnGoals: int(p.GetBoxesOnGoals()), Message: p.GetMessage()})
			}
			continue
		}
		res := msg.GetResult()
		if res == nil {
			return nil, fmt.Errorf("plan: %w: an empty event", ErrBadAnswer)
		}
		st := PlanStatus(res.GetStatus())
		if st < PlanSolved || st > PlanGaveUp {
			return nil, fmt.Errorf("plan: %w: status %d", ErrBadAnswer, res.GetStatus())
		}
		return &PlanResult{Status: st, Solution: res.GetSolution(), Reason: res.GetReason()}, nil
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
			s := grpc.NewServer(append(opts, ServerOptions()...)...)
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
