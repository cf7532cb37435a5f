package sdk

import (
	"context"
	"fmt"

	pb "github.com/sokod/sokod/proto/sokod/plugin/v1"
)

// This file carries the Host interface across the broker: hostServer runs
// in the host and serves HostService over the host's Host; hostClient runs
// in the plugin and implements Host by calling it.

// hostServer serves HostService for one Plan call.
type hostServer struct {
	pb.UnimplementedHostServiceServer
	impl    Host
	squares int
	boxes   int
}

// states unpacks a batch from the planner and checks it against the level.
func (s *hostServer) states(p *pb.StateBatch) (States, error) {
	st, err := statesFromProto(p, s.squares, ErrBadRequest)
	if err != nil {
		return st, err
	}
	if st.Boxes != s.boxes {
		return States{}, fmt.Errorf("%w: positions with %d boxes on a level with %d", ErrBadRequest, st.Boxes, s.boxes)
	}
	return st, nil
}

func (s *hostServer) LegalPushes(ctx context.Context, req *pb.LegalPushesRequest) (*pb.LegalPushesResponse, error) {
	st, err := s.states(req.GetStates())
	if err != nil {
		return nil, toStatus(ctx, err)
	}
	pl, err := s.impl.LegalPushes(ctx, st)
	if err != nil {
		return nil, toStatus(ctx, err)
	}
	return &pb.LegalPushesResponse{Counts: intsToProto(pl.Counts), Pushes: packPushes(pl.Pushes), Results: statesToProto(pl.Results)}, nil
}

func (s *hostServer) Reachable(ctx context.Context, req *pb.ReachableRequest) (*pb.ReachableResponse, error) {
	st, err := s.states(req.GetStates())
	if err != nil {
		return nil, toStatus(ctx, err)
	}
	sets, err := s.impl.Reachable(ctx, st)
	if err != nil {
		return nil, toStatus(ctx, err)
	}
	return &pb.ReachableResponse{Reachable: sets.Bits}, nil
}

func (s *hostServer) Deadlocked(ctx context.Context, req *pb.DeadlockedRequest) (*pb.DeadlockedResponse, error) {
	st, err := s.states(req.GetStates())
	if err != nil {
		return nil, toStatus(ctx, err)
	}
	out := make([]bool, st.Len())
	if err := s.impl.Deadlocked(ctx, st, out); err != nil {
		return nil, toStatus(ctx, err)
	}
	return &pb.DeadlockedResponse{Deadlocked: out}, nil
}

func (s *hostServer) SubSearch(ctx context.Context, req *pb.SubSearchRequest) (*pb.SubSearchResponse, error) {
	st, err := s.states(req.GetStart())
	if err != nil {
		return nil, toStatus(ctx, err)
	}
	if st.Len() != 1 {
		return nil, toStatus(ctx, fmt.Errorf("%w: a sub-search starts from 1 position, not %d", ErrBadRequest, st.Len()))
	}
	goal := SubGoal{Targets: intsFromProto(req.GetGoal().GetTargets())}
	for _, r := range req.GetGoal().GetRegions() {
		goal.Regions = append(goal.Regions, regionLimitFromProto(r))
	}
	if err := squaresIn(goal.Targets, s.squares); err != nil {
		return nil, toStatus(ctx, fmt.Errorf("%w: targets: %w", ErrBadRequest, err))
	}
	if err := (&DeadlockTables{Limits: goal.Regions}).Validate(s.squares); err != nil {
		return nil, toStatus(ctx, fmt.Errorf("%w: %w", ErrBadRequest, err))
	}
	res, err := s.impl.SubSearch(ctx, st, goal, budgetFromProto(req.GetBudget()))
	if err != nil {
		return nil, toStatus(ctx, err)
	}
	return &pb.SubSearchResponse{
		Status: pb.SubSearchStatus(res.Status),
		Pushes: packPushes(res.Pushes),
		End:    statesToProto(res.End),
		Nodes:  res.Nodes,
		Moves:  res.Moves,
	}, nil
}

func (s *hostServer) Verify(ctx context.Context, req *pb.VerifyRequest) (*pb.VerifyResponse, error) {
	v, err := s.impl.Verify(ctx, req.GetSolution())
	if err != nil {
		return nil, toStatus(ctx, err)
	}
	return &pb.VerifyResponse{
		Solved: v.Solved, Error: v.Error,
		Moves: uint32(v.Moves), Pushes: uint32(v.Pushes), BoxLines: uint32(v.BoxLines), BoxChanges: uint32(v.BoxChanges),
	}, nil
}

// hostClient implements Host in the plugin by calling HostService.
type hostClient struct {
	c       pb.HostServiceClient
	squares int
}

func (h *hostClient) LegalPushes(ctx context.Context, states States) (*PushList, error) {
	resp, err := h.c.LegalPushes(ctx, &pb.LegalPushesRequest{States: statesToProto(states)})
	if err != nil {
		return nil, fromStatus("legal pushes", err)
	}
	pl := &PushList{Counts: intsFromProto(resp.GetCounts())}
	if len(pl.Counts) != states.Len() {
		return nil, fmt.Errorf("legal pushes: %w: %d counts for %d positions", ErrBadAnswer, len(pl.Counts), states.Len())
	}
	if pl.Pushes, err = unpackPushes(resp.GetPushes(), h.squares, ErrBadAnswer); err != nil {
		return nil, fmt.Errorf("legal pushes: %w", err)
	}
	if pl.Results, err = statesFromProto(resp.GetResults(), h.squares, ErrBadAnswer); err != nil {
		return nil, fmt.Errorf("legal pushes: %w", err)
	}
	total := 0
	for _, n := range pl.Counts {
		total += n
	}
	if total != len(pl.Pushes) || pl.Results.Len() != total || (total > 0 && pl.Results.Boxes != states.Boxes) {
		return nil, fmt.Errorf("legal pushes: %w: counts sum to %d, with %d pushes and %d results", ErrBadAnswer, total, len(pl.Pushes), pl.Results.Len())
	}
	return pl, nil
}

func (h *hostClient) Reachable(ctx context.Context, states States) (SquareSets, error) {
	resp, err := h.c.Reachable(ctx, &pb.ReachableRequest{States: statesToProto(states)})
	if err != nil {
		return SquareSets{}, fromStatus("reachable", err)
	}
	sets := SquareSets{Squares: h.squares, Bits: resp.GetReachable()}
	if len(sets.Bits) != states.Len()*sets.Stride() {
		return SquareSets{}, fmt.Errorf("reachable: %w: %d bytes for %d positions of %d squares", ErrBadAnswer, len(sets.Bits), states.Len(), h.squares)
	}
	return sets, nil
}

func (h *hostClient) Deadlocked(ctx context.Context, states States, out []bool) error {
	if len(out) != states.Len() {
		return fmt.Errorf("deadlocked: %d results for %d positions", len(out), states.Len())
	}
	resp, err := h.c.Deadlocked(ctx, &pb.DeadlockedRequest{States: statesToProto(states)})
	if err != nil {
		return fromStatus("deadlocked", err)
	}
	if len(resp.GetDeadlocked()) != len(out) {
		return fmt.Errorf("deadlocked: %w: %d answers for %d positions", ErrBadAnswer, len(resp.GetDeadlocked()), len(out))
	}
	copy(out, resp.GetDeadlocked())
	return nil
}

func (h *hostClient) SubSearch(ctx context.Context, start States, goal SubGoal, budget Budget) (*SubSearchResult, error) {
	g := &pb.SubGoal{Targets: intsToProto(goal.Targets)}
	for _, r := range goal.Regions {
		g.Regions = append(g.Regions, regionLimitToProto(r))
	}
	resp, err := h.c.SubSearch(ctx, &pb.SubSearchRequest{Start: statesToProto(start), Goal: g, Budget: budgetToProto(budget)})
	if err != nil {
		return nil, fromStatus("sub-search", err)
	}
	res := &SubSearchResult{Status: SubSearchStatus(resp.GetStatus()), Nodes: resp.GetNodes(), Moves: resp.GetMoves()}
	if res.Status < SubGoalReached || res.Status > SubSearchGaveUp {
		return nil, fmt.Errorf("sub-search: %w: status %d", ErrBadAnswer, resp.GetStatus())
	}
	if res.Pushes, err = unpackPushes(resp.GetPushes(), h.squares, ErrBadAnswer); err != nil {
		return nil, fmt.Errorf("sub-search: %w", err)
	}
	if res.Status == SubGoalReached {
		if res.End, err = statesFromProto(resp.GetEnd(), h.squares, ErrBadAnswer); err != nil {
			return nil, fmt.Errorf("sub-search: %w", err)
		}
	}
	return res, nil
}

func (h *hostClient) Verify(ctx context.Context, solution string) (*Verification, error) {
	resp, err := h.c.Verify(ctx, &pb.VerifyRequest{Solution: solution})
	if err != nil {
		return nil, fromStatus("verify", err)
	}
	return &Verification{
		Solved: resp.GetSolved(), Error: resp.GetError(),
		Moves: int(resp.GetMoves()), Pushes: int(resp.GetPushes()), BoxLines: int(resp.GetBoxLines()), BoxChanges: int(resp.GetBoxChanges()),
	}, nil
}
