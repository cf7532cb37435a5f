package server

import (
	"context"
	"errors"
	"fmt"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/types/known/timestamppb"

	"github.com/sokod/sokod/board"
	"github.com/sokod/sokod/internal/engine"
	"github.com/sokod/sokod/internal/heuristics"
	"github.com/sokod/sokod/sokoban"

	sokodv1 "github.com/sokod/sokod/proto/sokod/v1"
)

// stepErrorKinds maps the verifier's step error kinds to the API's.
var stepErrorKinds = map[sokoban.StepErrorKind]sokodv1.StepErrorKind{
	sokoban.StepIntoWall:      sokodv1.StepErrorKind_STEP_ERROR_KIND_INTO_WALL,
	sokoban.BoxBlocked:        sokodv1.StepErrorKind_STEP_ERROR_KIND_BOX_BLOCKED,
	sokoban.PushWrittenAsMove: sokodv1.StepErrorKind_STEP_ERROR_KIND_PUSH_WRITTEN_AS_MOVE,
	sokoban.MoveWrittenAsPush: sokodv1.StepErrorKind_STEP_ERROR_KIND_MOVE_WRITTEN_AS_PUSH,
}

// Verify replays a solution with the sokoban verifier. It is answered at
// once, outside the job queue: a replay is linear in the solution's length.
func (v *service) Verify(_ context.Context, req *sokodv1.VerifyRequest) (*sokodv1.VerifyResponse, error) {
	level, lerr := parseLevel(req.GetLevel(), req.GetLevelNumber())
	if lerr != nil {
		return &sokodv1.VerifyResponse{LevelError: lerr}, nil
	}
	// The steps are played as they are read: a short text that counts
	// millions of steps costs no memory for them.
	m, err := sokoban.ReplayText(level, req.GetSolution())
	var se *sokoban.SolutionError
	if errors.As(err, &se) {
		return &sokodv1.VerifyResponse{SolutionError: &sokodv1.SolutionError{Offset: int32(se.Offset), Reason: se.Reason, Message: se.Error()}}, nil
	}
	resp := &sokodv1.VerifyResponse{Legal: err == nil, Metrics: metricsProto(m)}
	var step *sokoban.StepError
	switch {
	case errors.As(err, &step):
		// The message places the step as every message of the API does,
		// 0-based x and y, not as the CLI's 1-based column and row.
		resp.StepError = &sokodv1.StepError{Step: int32(step.Index), Move: string(step.Step.Byte()), Kind: stepErrorKinds[step.Kind],
			X: int32(step.X), Y: int32(step.Y),
			Message: fmt.Sprintf("step %d %q %s from x %d, y %d: %s", step.Index, step.Step.Byte(), step.Step.Dir, step.X, step.Y, step.Why())}
	case err != nil:
		return nil, fmt.Errorf("replay: %w", err)
	}
	resp.Valid = resp.Legal && m.Solved
	return resp, nil
}

// Analyze analyses a level for drawing. The analysis is a solve's
// preparation, seconds and hundreds of megabytes on the largest boards, so
// it is admitted as a solve is (a slot, its tables' memory against the
// cap, the queue), bounded by limits.time, and stops when its client goes.
func (v *service) Analyze(ctx context.Context, req *sokodv1.AnalyzeRequest) (*sokodv1.AnalyzeResponse, error) {
	level, lerr := parseLevel(req.GetLevel(), req.GetLevelNumber())
	if lerr != nil {
		return &sokodv1.AnalyzeResponse{LevelError: lerr}, nil
	}
	ctx, release, err := v.s.admitAnalysis(ctx, level)
	if err != nil {
		return nil, err
	}
	defer release()
	resp, err := v.analyze(ctx, req, level)
	if err != nil && ctx.Err() != nil {
		if errors.Is(context.Cause(ctx), errAnalysisTime) {
			return nil, status.Errorf(codes.DeadlineExceeded, "the analysis took longer than limits.time (%v)", v.s.opts.Limits.Time)
		}
		return nil, status.FromContextError(ctx.Err()).Err()
	}
	return resp, err
}

// errAnalysisTime ends an analysis that outlives limits.time.
var errAnalysisTime = errors.New("the analysis ran out of time")

// admitAnalysis admits an analysis of level as a job that no listing shows:
// it waits for a slot and its memory, or is refused as a solve is. The
// context returned ends with ctx, at limits.time, or at shutdown; release
// frees the slot.
func (s *Server) admitAnalysis(ctx context.Context, level *sokoban.Level) (context.Context, func(), error) {
	need := engine.SolveBytes(level)
	if need > s.opts.Limits.Memory {
		s.metrics.refused.WithLabelValues("memory_budget").Inc()
		return nil, nil, rpcError(codes.ResourceExhausted, reasonMemoryBudget, nil,
			fmt.Sprintf("the level's tables need about %d MiB, more than the %d MiB of limits.memory", need>>20, s.opts.Limits.Memory>>20))
	}
	actx, cancel := context.WithCancelCause(ctx)
	j := &job{owner: principalOf(ctx), title: level.Title, memory: need, cancel: cancel, analysis: true}
	if _, err := s.jobs.admit(j); err != nil {
		cancel(nil)
		return nil, nil, s.admissionError(err)
	}
	release := func() {
		cancel(nil)
		s.jobs.done(j, nil)
		s.releaseMemory()
	}
	if err := s.jobs.wait(actx, j); err != nil {
		release()
		return nil, nil, status.FromContextError(actx.Err()).Err()
	}
	timer := time.AfterFunc(s.opts.Limits.Time, func() { cancel(errAnalysisTime) })
	return actx, func() { timer.Stop(); release() }, nil
}

// analyze is Analyze once admitted.
func (v *service) analyze(ctx context.Context, req *sokodv1.AnalyzeRequest, level *sokoban.Level) (*sokodv1.AnalyzeResponse, error) {
	b, err := board.AnalyzeContext(ctx, level)
	if err != nil {
		if ctx.Err() != nil {
			return nil, err
		}
		return &sokodv1.AnalyzeResponse{LevelError: levelError(err)}, nil
	}
	resp := &sokodv1.AnalyzeResponse{Width: int32(b.Width), Height: int32(b.Height), Title: level.Title, Impossible: b.Impossible}
	sq := func(s uint16) *sokodv1.Square {
		x, y := b.XY(s)
		return &sokodv1.Square{X: int32(x), Y: int32(y)}
	}
	squares := func(ss []uint16) []*sokodv1.Square {
		out := make([]*sokodv1.Square, len(ss))
		for i, s := range ss {
			out[i] = sq(s)
		}
		return out
	}

	boxes, player := b.StartBoxes, b.StartPlayer
	if p := req.GetPosition(); p != nil {
		if boxes, player, err = position(b, p); err != nil {
			return &sokodv1.AnalyzeResponse{LevelError: &sokodv1.LevelError{Kind: sokodv1.LevelErrorKind_LEVEL_ERROR_KIND_POSITION, Reason: err.Error(), Message: "position: " + err.Error()}}, nil
		}
	}
	for s := uint16(0); int(s) < b.Squares; s++ {
		if b.Dead[s] {
			resp.DeadSquares = append(resp.DeadSquares, sq(s))
		}
		if b.Gate(s) {
			resp.GateSquares = append(resp.GateSquares, sq(s))
		}
	}
	for _, t := range b.Tunnels() {
		resp.Tunnels = append(resp.Tunnels, &sokodv1.Tunnel{Squares: squares(t)})
	}
	for _, r := range b.GoalRooms() {
		resp.GoalRooms = append(resp.GoalRooms, &sokodv1.GoalRoom{Squares: squares(r.Squares), Goals: squares(r.Goals), Entrances: squares(r.Entrances)})
	}
	if len(boxes) != len(b.Goals) {
		// The engine's analysis already says why (Impossible); there is
		// no matching to bound.
		resp.LowerBound = -1
		return resp, nil
	}
	h := heuristics.Matching(b)
	bound, ok, err := engine.LowerBoundContext(ctx, b, h, boxes, player)
	if err != nil {
		return nil, fmt.Errorf("lower bound: %w", err)
	}
	resp.LowerBound = int32(bound)
	if !ok {
		resp.LowerBound = -1
	}
	d, err := engine.FindDeadlockContext(ctx, b, h, boxes, player)
	if err != nil {
		return nil, fmt.Errorf("deadlock: %w", err)
	}
	switch d.Kind {
	case engine.DeadSquare:
		x, y := b.XY(d.Boxes[0])
		resp.Deadlock = &sokodv1.Deadlock{Kind: sokodv1.DeadlockKind_DEADLOCK_KIND_DEAD_SQUARE, Boxes: squares(d.Boxes),
			Reason: fmt.Sprintf("the box at x %d, y %d can never reach a goal", x, y)}
	case engine.Freeze:
		resp.Deadlock = &sokodv1.Deadlock{Kind: sokodv1.DeadlockKind_DEADLOCK_KIND_FREEZE, Boxes: squares(d.Boxes),
			Reason: fmt.Sprintf("%d box(es) can never move again, and not all of them are on goals", len(d.Boxes))}
	case engine.Bipartite:
		resp.Deadlock = &sokodv1.Deadlock{Kind: sokodv1.DeadlockKind_DEADLOCK_KIND_BIPARTITE,
			Reason: "the boxes cannot all reach distinct goals"}
	}
	return resp, nil
}

// position converts p to square numbers of b.
func position(b *engine.Board, p *sokodv1.Position) ([]uint16, uint16, error) {
	at := func(s *sokodv1.Square, what string) (uint16, error) {
		x, y := int(s.GetX()), int(s.GetY())
		if x < 0 || y < 0 || x >= b.Width || y >= b.Height || b.SquareOf[y*b.Width+x] < 0 {
			return 0, fmt.Errorf("%s at x %d, y %d is not on the level's floor", what, x, y)
		}
		return uint16(b.SquareOf[y*b.Width+x]), nil
	}
	if p.GetPlayer() == nil {
		return nil, 0, errors.New("no player")
	}
	player, err := at(p.GetPlayer(), "the player")
	if err != nil {
		return nil, 0, err
	}
	if len(p.GetBoxes()) != len(b.Goals) {
		return nil, 0, fmt.Errorf("%d boxes, but the level has %d goals", len(p.GetBoxes()), len(b.Goals))
	}
	boxes := make([]uint16, len(p.GetBoxes()))
	seen := make(map[uint16]bool, len(boxes))
	for i, s := range p.GetBoxes() {
		if boxes[i], err = at(s, "a box"); err != nil {
			return nil, 0, err
		}
		if seen[boxes[i]] || boxes[i] == player {
			return nil, 0, fmt.Errorf("two pieces at x %d, y %d", s.GetX(), s.GetY())
		}
		seen[boxes[i]] = true
	}
	return boxes, player, nil
}

// ListComponents lists the components of the daemon's registry.
func (v *service) ListComponents(context.Context, *sokodv1.ListComponentsRequest) (*sokodv1.ListComponentsResponse, error) {
	resp := &sokodv1.ListComponentsResponse{}
	for _, c := range v.s.opts.Components.List() {
		caps := make([]string, len(c.Capabilities))
		for i, cp := range c.Capabilities {
			caps[i] = string(cp)
		}
		resp.Components = append(resp.Components, &sokodv1.Component{Name: c.Name, Kind: string(c.Kind), Version: c.Version,
			Source: c.Source, Summary: c.Summary, Capabilities: caps, State: string(c.State), Error: c.Error})
	}
	return resp, nil
}

// ListJobs lists the queued and running jobs and the admission limits.
func (v *service) ListJobs(context.Context, *sokodv1.ListJobsRequest) (*sokodv1.ListJobsResponse, error) {
	snap := v.s.jobs.snapshot()
	resp := &sokodv1.ListJobsResponse{MaxJobs: int32(snap.maxJobs), QueueCapacity: int32(snap.queueCap),
		MemoryReservedBytes: snap.reserved, MemoryCapBytes: snap.memCap}
	for _, j := range snap.jobs {
		pj := &sokodv1.Job{Id: j.id, State: sokodv1.JobState_JOB_STATE_QUEUED, Title: j.title, Objective: objectiveProto(j.objective),
			Heuristic: j.heuristic, MemoryBytes: j.memory, Submitted: timestamppb.New(j.submitted)}
		if j.running {
			pj.State = sokodv1.JobState_JOB_STATE_RUNNING
			pj.Started = timestamppb.New(j.started)
			if j.progress != nil {
				pj.Progress = progressProto(*j.progress)
			}
		}
		resp.Jobs = append(resp.Jobs, pj)
	}
	return resp, nil
}
