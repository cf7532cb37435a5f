package server

import (
	"context"
	"errors"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"go.uber.org/goleak"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	reflectionpb "google.golang.org/grpc/reflection/grpc_reflection_v1"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/testing/protocmp"

	"github.com/sokod/sokod/internal/registry"
	"github.com/sokod/sokod/sdk"
	"github.com/sokod/sokod/sokoban"

	sokodv1 "github.com/sokod/sokod/proto/sokod/v1"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

// warehouseSolution is a push-optimal solution of testdata/warehouse.xsb,
// which the fake planners return.
const warehouseSolution = "rrrrruulDrdLLuLDDrdLLruullluurrDullddrRurDDrdLuullluulDrdLulDDldRRlluulluurDldRRurDDldRuuururrruurrrDDDrdLulDDuuruulLulDDDullddrRurDDullluuuulDDDrdLulDDlulluuuurDDDldRurDD"

// testDeadline bounds every test's calls so that a bug hangs nothing.
const testDeadline = 120 * time.Second

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// fakeComponents are the built-ins plus planners defined by the test.
type fakeComponents struct {
	*registry.Registry
	planners map[string]sdk.Planner
}

func (f fakeComponents) Planner(ctx context.Context, name string) (*registry.Planner, error) {
	if p, ok := f.planners[name]; ok {
		return &registry.Planner{Name: name, Source: "test", Planner: p}, nil
	}
	return f.Registry.Planner(ctx, name)
}

// fixedPlanner answers every plan with one solution.
type fixedPlanner struct{ solution string }

func (p fixedPlanner) Plan(ctx context.Context, req *sdk.PlanRequest, host sdk.Host, progress func(sdk.PlanProgress)) (*sdk.PlanResult, error) {
	return &sdk.PlanResult{Status: sdk.PlanSolved, Solution: p.solution}, nil
}

// testComponents are the built-ins and the planners "good" and "bad".
func testComponents() Components {
	return fakeComponents{Registry: registry.New(nil, nil), planners: map[string]sdk.Planner{
		"good": fixedPlanner{warehouseSolution}, "bad": fixedPlanner{"r"}}}
}

// testServer is a Server serving on a temporary Unix socket.
type testServer struct {
	srv    *Server
	path   string
	conn   *grpc.ClientConn
	client sokodv1.SolverServiceClient
	cancel context.CancelFunc
	errc   chan error
}

// startServer serves opts (filled with test defaults) on a new socket; the
// server is stopped at the end of the test.
func startServer(t *testing.T, opts Options) *testServer {
	t.Helper()
	if opts.Components == nil {
		opts.Components = testComponents()
	}
	if opts.Limits.Time == 0 {
		opts.Limits = Limits{Time: time.Minute, Memory: 256 << 20}
	}
	if opts.MaxJobs == 0 {
		opts.MaxJobs = 2
	}
	srv, err := New(opts)
	if err != nil {
		t.Fatal(err)
	}
	// t.TempDir can exceed the socket path limit with long test names.
	dir, err := os.MkdirTemp("", "sokod")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	path := filepath.Join(dir, "s.sock")
	l, err := ListenUnix(path, "")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	ts := &testServer{srv: srv, path: path, cancel: cancel, errc: make(chan error, 1)}
	go func() { ts.errc <- srv.Serve(ctx, l) }()
	ts.conn = dial(t, path)
	ts.client = sokodv1.NewSolverServiceClient(ts.conn)
	t.Cleanup(func() {
		ts.conn.Close()
		if err := ts.stop(t); err != nil {
			t.Errorf("Serve: %v", err)
		}
	})
	return ts
}

// stop stops the server (once) and returns Serve's error.
func (ts *testServer) stop(t *testing.T) error {
	t.Helper()
	ts.cancel()
	select {
	case err, ok := <-ts.errc:
		if ok {
			close(ts.errc)
		}
		return err
	case <-time.After(testDeadline):
		t.Fatal("Serve did not return")
	}
	return nil
}

func dial(t *testing.T, path string) *grpc.ClientConn {
	t.Helper()
	conn, err := grpc.NewClient("unix://"+path, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	return conn
}

func testContext(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), testDeadline)
	t.Cleanup(cancel)
	return ctx
}

// solveEvents collects a Solve stream.
type solveEvents struct {
	accepted *sokodv1.Accepted
	started  *sokodv1.Started
	progress []*sokodv1.Progress
	result   *sokodv1.Result
}

// recvAll reads a Solve stream to its end.
func recvAll(stream sokodv1.SolverService_SolveClient) (solveEvents, error) {
	var ev solveEvents
	for {
		resp, err := stream.Recv()
		if errors.Is(err, io.EOF) {
			return ev, nil
		}
		if err != nil {
			return ev, err
		}
		switch e := resp.Event.(type) {
		case *sokodv1.SolveResponse_Accepted:
			ev.accepted = e.Accepted
		case *sokodv1.SolveResponse_Started:
			ev.started = e.Started
		case *sokodv1.SolveResponse_Progress:
			ev.progress = append(ev.progress, e.Progress)
		case *sokodv1.SolveResponse_Result:
			ev.result = e.Result
		}
	}
}

// longRequest keeps a job busy for many seconds: the simple bound cannot
// prove the warehouse push-optimal quickly.
func longRequest(t *testing.T) *sokodv1.SolveRequest {
	return &sokodv1.SolveRequest{Level: readFile(t, "testdata/warehouse.xsb"), Options: &sokodv1.SolveOptions{
		Objective: sokodv1.Objective_OBJECTIVE_PUSHES, Heuristic: "simple", MemoryLimitBytes: 64 << 20}}
}

// startLong starts a long job and waits until it runs and its search has
// reported work.
func startLong(t *testing.T, ctx context.Context, c sokodv1.SolverServiceClient) (string, sokodv1.SolverService_SolveClient) {
	t.Helper()
	stream, err := c.Solve(ctx, longRequest(t))
	if err != nil {
		t.Fatal(err)
	}
	return waitWorking(t, stream), stream
}

// checkSolution replays a result's solution on level n of text.
func checkSolution(t *testing.T, text string, n int, r *sokodv1.Result) {
	t.Helper()
	if r.GetStatus() != sokodv1.Status_STATUS_SOLVED {
		t.Fatalf("status %v (%s), want solved", r.GetStatus(), r.GetReason())
	}
	c, err := sokoban.ParseCollection(text)
	if err != nil {
		t.Fatal(err)
	}
	sol, err := sokoban.ParseSolution(r.GetSolution())
	if err != nil {
		t.Fatal(err)
	}
	m, err := sokoban.Replay(c.Levels[n-1], sol)
	if err != nil || !m.Solved {
		t.Fatalf("the solution does not solve the level: %v", err)
	}
	if diff := cmp.Diff(metricsProto(m), r.GetMetrics(), protocmp.Transform()); diff != "" {
		t.Errorf("metrics (-replayed +sent):\n%s", diff)
	}
}

func TestSolveStreamsProgressAndAVerifiedSolution(t *testing.T) {
	ts := startServer(t, Options{})
	ctx := testContext(t)
	text := readFile(t, "testdata/warehouse.xsb")
	// The simple bound solves the warehouse in about half a second (more
	// under the race detector): long enough for the search's own progress
	// events, short enough for a unit test.
	stream, err := ts.client.Solve(ctx, &sokodv1.SolveRequest{Level: text, Options: &sokodv1.SolveOptions{Heuristic: "simple"}})
	if err != nil {
		t.Fatal(err)
	}
	ev, err := recvAll(stream)
	if err != nil {
		t.Fatal(err)
	}
	if ev.accepted == nil || ev.accepted.JobId == "" || ev.accepted.QueuePosition != 0 {
		t.Errorf("accepted %v, want a job id, running at once", ev.accepted)
	}
	if ev.started == nil {
		t.Error("no Started event")
	}
	level, err := sokoban.Parse(text)
	if err != nil {
		t.Fatal(err)
	}
	working := 0
	for _, p := range ev.progress {
		if p.Phase != sokodv1.Phase_PHASE_SEARCH || p.Component != "simple" {
			t.Errorf("progress %v: want the search with the simple bound", p)
		}
		// No placeholder: every event reports work, and the position
		// searched, on the level's floor.
		if p.Nodes == 0 || p.Generated < p.Nodes {
			t.Errorf("progress %v: want work done, generated at least nodes", p)
		}
		working++
		pos := p.GetPosition()
		if len(pos.GetBoxes()) != level.Boxes() || pos.GetPlayer() == nil {
			t.Errorf("progress position %v: want %d boxes and the player", pos, level.Boxes())
		}
		for _, sq := range append([]*sokodv1.Square{pos.GetPlayer()}, pos.GetBoxes()...) {
			if level.At(int(sq.GetX()), int(sq.GetY())).Has(sokoban.Wall) {
				t.Errorf("progress position %v: a piece on a wall at x %d, y %d", pos, sq.GetX(), sq.GetY())
			}
		}
	}
	// The solver reports every 250ms of solving, so a solve that took well
	// over that has some.
	if el := ev.result.GetElapsed().AsDuration(); el > time.Second && working == 0 {
		t.Errorf("%d progress events in %v, none with work done", len(ev.progress), el)
	}
	checkSolution(t, text, 1, ev.result)
	r := ev.result
	if r.JobId != ev.accepted.GetJobId() || r.Title != "warehouse" || r.FoundBy != "simple" || r.FoundIn != sokodv1.Phase_PHASE_SEARCH ||
		r.Heuristic != "simple" || r.Objective != sokodv1.Objective_OBJECTIVE_ANY || r.Stats.GetNodes() == 0 || len(r.Runs) != 1 {
		t.Errorf("result %v", r)
	}
	jobs, err := ts.client.ListJobs(ctx, &sokodv1.ListJobsRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if len(jobs.Jobs) != 0 || jobs.MemoryReservedBytes != 0 {
		t.Errorf("after the solve: %v", jobs)
	}
}

func TestSolveResults(t *testing.T) {
	ts := startServer(t, Options{})
	ctx := testContext(t)
	warehouse := readFile(t, "testdata/warehouse.xsb")
	tests := []struct {
		name    string
		req     *sokodv1.SolveRequest
		want    sokodv1.Status
		foundBy string
		reason  string // a part
	}{
		{name: "small, proved optimal", req: &sokodv1.SolveRequest{Level: readFile(t, "testdata/small.xsb"),
			Options: &sokodv1.SolveOptions{Objective: sokodv1.Objective_OBJECTIVE_PUSHES}}, want: sokodv1.Status_STATUS_SOLVED, foundBy: "matching"},
		{name: "small, iterative deepening", req: &sokodv1.SolveRequest{Level: readFile(t, "testdata/small.xsb"),
			Options: &sokodv1.SolveOptions{Objective: sokodv1.Objective_OBJECTIVE_PUSHES, Strategy: "ida"}}, want: sokodv1.Status_STATUS_SOLVED, foundBy: "matching"},
		{name: "unsolvable", req: &sokodv1.SolveRequest{Level: "#######\n#.$ $ #\n#     #\n#@   .#\n#######\n"},
			want: sokodv1.Status_STATUS_UNSOLVABLE, foundBy: "matching", reason: "no assignment"},
		{name: "node limit", req: &sokodv1.SolveRequest{Level: warehouse, Options: &sokodv1.SolveOptions{NodeLimit: 10}},
			want: sokodv1.Status_STATUS_GAVE_UP, reason: "node limit"},
		{name: "a planner's verified solution", req: &sokodv1.SolveRequest{Level: warehouse,
			Options: &sokodv1.SolveOptions{NodeLimit: 10, UsePlanners: new(true), Planners: []string{"good"}}},
			want: sokodv1.Status_STATUS_SOLVED, foundBy: "good"},
		{name: "a planner's wrong solution is refused", req: &sokodv1.SolveRequest{Level: warehouse,
			Options: &sokodv1.SolveOptions{NodeLimit: 10, UsePlanners: new(true), Planners: []string{"bad", "none"}}},
			want: sokodv1.Status_STATUS_GAVE_UP, reason: "planners did not solve it either"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			stream, err := ts.client.Solve(ctx, tc.req)
			if err != nil {
				t.Fatal(err)
			}
			ev, err := recvAll(stream)
			if err != nil {
				t.Fatal(err)
			}
			r := ev.result
			if r.GetStatus() != tc.want || r.GetFoundBy() != tc.foundBy || !strings.Contains(r.GetReason(), tc.reason) {
				t.Fatalf("result %v: want %v found by %q, reason with %q", r, tc.want, tc.foundBy, tc.reason)
			}
			if tc.want == sokodv1.Status_STATUS_SOLVED {
				checkSolution(t, tc.req.Level, 1, r)
			} else if r.Solution != "" || r.Metrics != nil {
				t.Errorf("a solution with status %v", r.Status)
			}
		})
	}
}

func TestInvalidLevel(t *testing.T) {
	ts := startServer(t, Options{})
	ctx := testContext(t)
	tests := []struct {
		name  string
		text  string
		level int32
		want  *sokodv1.LevelError
	}{
		{name: "unknown character", text: "; first\n#####\n#@$.#\n#####\n\n; second\n#####\n#@$.#\n##X##\n#####\n", level: 1,
			want: &sokodv1.LevelError{Kind: sokodv1.LevelErrorKind_LEVEL_ERROR_KIND_UNKNOWN_CHARACTER, Level: 2, Line: 9, Column: 3, Reason: "unknown character 'X' in a board row",
				Message: "level 2: line 9, column 3: unknown character 'X' in a board row"}},
		{name: "boxes and goals differ", text: "#####\n#@$ #\n#$. #\n#####\n",
			want: &sokodv1.LevelError{Kind: sokodv1.LevelErrorKind_LEVEL_ERROR_KIND_BOXES_GOALS_DIFFER, Level: 1}},
		{name: "empty", text: "just text\n", want: &sokodv1.LevelError{Kind: sokodv1.LevelErrorKind_LEVEL_ERROR_KIND_EMPTY}},
		{name: "no such level", text: "#####\n#@$.#\n#####\n", level: 3,
			want: &sokodv1.LevelError{Kind: sokodv1.LevelErrorKind_LEVEL_ERROR_KIND_NO_SUCH_LEVEL, Level: 3, Levels: 1, Reason: "the text has 1 level(s); there is no level 3",
				Message: "the text has 1 level(s); there is no level 3"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			stream, err := ts.client.Solve(ctx, &sokodv1.SolveRequest{Level: tc.text, LevelNumber: tc.level})
			if err != nil {
				t.Fatal(err)
			}
			ev, err := recvAll(stream)
			if err != nil {
				t.Fatal(err)
			}
			if ev.accepted != nil || len(ev.progress) != 0 {
				t.Errorf("an invalid level was admitted: %v, %d progress events", ev.accepted, len(ev.progress))
			}
			if ev.result.GetStatus() != sokodv1.Status_STATUS_INVALID_LEVEL {
				t.Fatalf("status %v, want INVALID_LEVEL", ev.result.GetStatus())
			}
			got := ev.result.LevelError
			ignore := protocmp.IgnoreFields(&sokodv1.LevelError{}, "reason", "message", "line", "column")
			if tc.want.Line != 0 {
				ignore = protocmp.IgnoreFields(&sokodv1.LevelError{})
			}
			if diff := cmp.Diff(tc.want, got, protocmp.Transform(), ignore); diff != "" {
				t.Errorf("level error (-want +got):\n%s", diff)
			}
			if got.GetReason() == "" || ev.result.Reason != got.GetMessage() {
				t.Errorf("reason %q, message %q, result reason %q", got.GetReason(), got.GetMessage(), ev.result.Reason)
			}
		})
	}
}

func TestInvalidOptions(t *testing.T) {
	ts := startServer(t, Options{})
	ctx := testContext(t)
	small := readFile(t, "testdata/small.xsb")
	tests := []struct {
		name string
		opts *sokodv1.SolveOptions
		want string // message prefix
	}{
		{"unknown heuristic", &sokodv1.SolveOptions{Heuristic: "magic"}, `heuristic: unknown heuristic "magic"`},
		{"inadmissible for pushes", &sokodv1.SolveOptions{Heuristic: "greedy", Objective: sokodv1.Objective_OBJECTIVE_PUSHES}, "heuristic: greedy is not admissible"},
		{"unknown planner", &sokodv1.SolveOptions{UsePlanners: new(true), Planners: []string{"magic"}}, `planners: unknown planner "magic"`},
		{"tiny memory", &sokodv1.SolveOptions{MemoryLimitBytes: 1000}, "memory_limit_bytes: must be at least 16MiB"},
		{"search share", &sokodv1.SolveOptions{SearchShare: 101}, "search_share: must be a percentage"},
		{"objective", &sokodv1.SolveOptions{Objective: 7}, "objective: unknown objective 7"},
		{"unknown strategy", &sokodv1.SolveOptions{Strategy: "dfs"}, `strategy: unknown strategy "dfs"`},
		{"greedy for pushes", &sokodv1.SolveOptions{Strategy: "greedy", Objective: sokodv1.Objective_OBJECTIVE_PUSHES}, "strategy: greedy cannot prove"},
		{"unknown deadlock detector", &sokodv1.SolveOptions{Deadlocks: []string{"magic"}}, `deadlocks: `},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			stream, err := ts.client.Solve(ctx, &sokodv1.SolveRequest{Level: small, Options: tc.opts})
			if err != nil {
				t.Fatal(err)
			}
			_, err = recvAll(stream)
			if status.Code(err) != codes.InvalidArgument || !strings.HasPrefix(status.Convert(err).Message(), tc.want) {
				t.Errorf("error %v, want InvalidArgument %q", err, tc.want)
			}
		})
	}
}

// waitIdle polls ListJobs until no job is listed and no memory is
// accounted.
func waitIdle(t *testing.T, ctx context.Context, c sokodv1.SolverServiceClient) {
	t.Helper()
	for {
		jobs, err := c.ListJobs(ctx, &sokodv1.ListJobsRequest{})
		if err != nil {
			t.Fatal(err)
		}
		if len(jobs.Jobs) == 0 && jobs.MemoryReservedBytes == 0 {
			return
		}
		select {
		case <-ctx.Done():
			t.Fatalf("jobs still listed: %v", jobs)
		case <-time.After(20 * time.Millisecond):
		}
	}
}

func TestCancel(t *testing.T) {
	ts := startServer(t, Options{})
	ctx := testContext(t)
	id, stream := startLong(t, ctx, ts.client)

	jobs, err := ts.client.ListJobs(ctx, &sokodv1.ListJobsRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if len(jobs.Jobs) != 1 || jobs.Jobs[0].Id != id || jobs.Jobs[0].State != sokodv1.JobState_JOB_STATE_RUNNING ||
		jobs.Jobs[0].MemoryBytes != 64<<20 || jobs.MemoryReservedBytes != 64<<20 || jobs.Jobs[0].Progress.GetNodes() == 0 {
		t.Fatalf("while running: %v", jobs)
	}

	if _, err := ts.client.Cancel(ctx, &sokodv1.CancelRequest{JobId: id}); err != nil {
		t.Fatal(err)
	}
	ev, err := recvAll(stream)
	if err != nil {
		t.Fatal(err)
	}
	if ev.result.GetStatus() != sokodv1.Status_STATUS_CANCELLED || ev.result.Reason != "cancelled" || ev.result.Stats.GetNodes() == 0 {
		t.Errorf("result %v, want CANCELLED with the search's statistics", ev.result)
	}
	// The call ends after the solver has returned, so the job is gone and
	// its memory released by the time the result arrives.
	jobs, err = ts.client.ListJobs(ctx, &sokodv1.ListJobsRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if len(jobs.Jobs) != 0 || jobs.MemoryReservedBytes != 0 {
		t.Errorf("after the cancelled job: %v", jobs)
	}

	_, err = ts.client.Cancel(ctx, &sokodv1.CancelRequest{JobId: id})
	if status.Code(err) != codes.NotFound {
		t.Errorf("cancelling an ended job: %v, want NotFound", err)
	}
}

func TestClosingTheStreamCancels(t *testing.T) {
	ts := startServer(t, Options{})
	ctx := testContext(t)
	sctx, cancel := context.WithCancel(ctx)
	startLong(t, sctx, ts.client)
	cancel()
	waitIdle(t, ctx, ts.client)
}

func TestAdmission(t *testing.T) {
	ts := startServer(t, Options{MaxJobs: 1, Queue: 1})
	ctx := testContext(t)
	first, firstStream := startLong(t, ctx, ts.client)

	second, err := ts.client.Solve(ctx, longRequest(t))
	if err != nil {
		t.Fatal(err)
	}
	resp, err := second.Recv()
	if err != nil {
		t.Fatal(err)
	}
	acc := resp.GetAccepted()
	if acc == nil || acc.QueuePosition != 1 {
		t.Fatalf("second job: %v, want queued first", resp)
	}

	third, err := ts.client.Solve(ctx, longRequest(t))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := recvAll(third); status.Code(err) != codes.ResourceExhausted {
		t.Errorf("third job: %v, want ResourceExhausted", err)
	}

	jobs, err := ts.client.ListJobs(ctx, &sokodv1.ListJobsRequest{})
	if err != nil {
		t.Fatal(err)
	}
	type row struct {
		ID    string
		State sokodv1.JobState
	}
	var rows []row
	for _, j := range jobs.Jobs {
		rows = append(rows, row{j.Id, j.State})
	}
	want := []row{{first, sokodv1.JobState_JOB_STATE_RUNNING}, {acc.JobId, sokodv1.JobState_JOB_STATE_QUEUED}}
	if diff := cmp.Diff(want, rows); diff != "" {
		t.Errorf("jobs (-want +got):\n%s", diff)
	}
	if jobs.MaxJobs != 1 || jobs.QueueCapacity != 1 || jobs.MemoryReservedBytes != 64<<20 {
		t.Errorf("limits %v", jobs)
	}

	// A queued job cancelled leaves the queue with a CANCELLED result.
	if _, err := ts.client.Cancel(ctx, &sokodv1.CancelRequest{JobId: acc.JobId}); err != nil {
		t.Fatal(err)
	}
	ev, err := recvAll(second)
	if err != nil {
		t.Fatal(err)
	}
	if ev.result.GetStatus() != sokodv1.Status_STATUS_CANCELLED || len(ev.progress) != 0 {
		t.Errorf("queued job: %v after %d progress events, want CANCELLED before running", ev.result, len(ev.progress))
	}
	if _, err := ts.client.Cancel(ctx, &sokodv1.CancelRequest{JobId: first}); err != nil {
		t.Fatal(err)
	}
	if ev, err := recvAll(firstStream); err != nil || ev.result.GetStatus() != sokodv1.Status_STATUS_CANCELLED {
		t.Errorf("first job: %v, %v", ev.result, err)
	}
	waitIdle(t, ctx, ts.client)
}

func TestMemoryCapQueues(t *testing.T) {
	// Two slots, but memory for one 64MiB job only.
	ts := startServer(t, Options{MaxJobs: 2, Queue: 4, MemoryCap: 64 << 20, Limits: Limits{Time: time.Minute, Memory: 64 << 20}})
	ctx := testContext(t)
	first, firstStream := startLong(t, ctx, ts.client)
	second, err := ts.client.Solve(ctx, longRequest(t))
	if err != nil {
		t.Fatal(err)
	}
	resp, err := second.Recv()
	if err != nil {
		t.Fatal(err)
	}
	if acc := resp.GetAccepted(); acc == nil || acc.QueuePosition != 1 {
		t.Fatalf("second job: %v, want queued for memory", resp)
	}
	// Cancelling the first frees its memory, and the second starts.
	if _, err := ts.client.Cancel(ctx, &sokodv1.CancelRequest{JobId: first}); err != nil {
		t.Fatal(err)
	}
	if _, err := recvAll(firstStream); err != nil {
		t.Fatal(err)
	}
	resp, err = second.Recv()
	if err != nil || resp.GetStarted() == nil {
		t.Fatalf("second job after the first ended: %v, %v; want it running", resp, err)
	}
	jobs, err := ts.client.ListJobs(ctx, &sokodv1.ListJobsRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if len(jobs.Jobs) != 1 || jobs.Jobs[0].State != sokodv1.JobState_JOB_STATE_RUNNING || jobs.MemoryReservedBytes != 64<<20 {
		t.Errorf("jobs %v", jobs)
	}
}

func TestFiftyClients(t *testing.T) {
	ts := startServer(t, Options{MaxJobs: 2, Queue: 8})
	ctx := testContext(t)
	small := readFile(t, "testdata/small.xsb")
	const clients = 50
	var (
		mu                sync.Mutex
		served, exhausted int
		other             []string
		wg                sync.WaitGroup
		start             = make(chan struct{})
	)
	for range clients {
		// Each client has a connection of its own, as separate GUIs do.
		conn := dial(t, ts.path)
		wg.Go(func() {
			defer conn.Close()
			<-start
			stream, err := sokodv1.NewSolverServiceClient(conn).Solve(ctx, &sokodv1.SolveRequest{Level: small})
			var ev solveEvents
			if err == nil {
				ev, err = recvAll(stream)
			}
			mu.Lock()
			defer mu.Unlock()
			switch {
			case err == nil && ev.result.GetStatus() == sokodv1.Status_STATUS_SOLVED:
				served++
			case status.Code(err) == codes.ResourceExhausted:
				exhausted++
			default:
				other = append(other, status.Convert(err).String()+" "+ev.result.String())
			}
		})
	}
	close(start)
	wg.Wait()
	if served+exhausted != clients || served == 0 {
		t.Errorf("%d served, %d told RESOURCE_EXHAUSTED, others: %q", served, exhausted, other)
	}
	t.Logf("%d served, %d told RESOURCE_EXHAUSTED", served, exhausted)
	waitIdle(t, ctx, ts.client)
}

func TestVerify(t *testing.T) {
	ts := startServer(t, Options{})
	ctx := testContext(t)
	const level = "#######\n#     #\n# $$  #\n#@ ..##\n#######\n"
	tests := []struct {
		name     string
		level    string
		solution string
		want     *sokodv1.VerifyResponse
	}{
		{name: "valid", level: level, solution: "uurrDullddrRuulDldR", want: &sokodv1.VerifyResponse{Valid: true, Legal: true,
			Metrics: &sokodv1.Metrics{Moves: 19, Pushes: 4, BoxLines: 4, BoxChanges: 2, PushingSessions: 4, PlayerLines: 13, Solved: true}}},
		{name: "legal, unsolved", level: level, solution: "uurrD", want: &sokodv1.VerifyResponse{Legal: true,
			Metrics: &sokodv1.Metrics{Moves: 5, Pushes: 1, BoxLines: 1, BoxChanges: 1, PushingSessions: 1, PlayerLines: 3}}},
		{name: "illegal step", level: level, solution: "uurrd", want: &sokodv1.VerifyResponse{
			Metrics:   &sokodv1.Metrics{Moves: 4, PlayerLines: 2},
			StepError: &sokodv1.StepError{Step: 5, Move: "d", Kind: sokodv1.StepErrorKind_STEP_ERROR_KIND_PUSH_WRITTEN_AS_MOVE, X: 3, Y: 1}}},
		{name: "not LURD", level: level, solution: "uux", want: &sokodv1.VerifyResponse{
			SolutionError: &sokodv1.SolutionError{Offset: 2}}},
		{name: "bad level", level: "#####\n#@$.#\n", want: &sokodv1.VerifyResponse{
			LevelError: &sokodv1.LevelError{Kind: sokodv1.LevelErrorKind_LEVEL_ERROR_KIND_OPEN_BORDER, Level: 1}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ts.client.Verify(ctx, &sokodv1.VerifyRequest{Level: tc.level, Solution: tc.solution})
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, got, protocmp.Transform(),
				protocmp.IgnoreFields(&sokodv1.StepError{}, "message"), protocmp.IgnoreFields(&sokodv1.SolutionError{}, "reason", "message"),
				protocmp.IgnoreFields(&sokodv1.LevelError{}, "reason", "message", "line", "column")); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestAnalyze(t *testing.T) {
	ts := startServer(t, Options{})
	ctx := testContext(t)
	// A start room joined by a three-square corridor to a goal room.
	const level = "" +
		"##########\n" +
		"#@  ###  #\n" +
		"# $  $ ..#\n" +
		"#   ######\n" +
		"##########\n"
	sq := func(x, y int32) *sokodv1.Square { return &sokodv1.Square{X: x, Y: y} }
	dead := []*sokodv1.Square{sq(1, 1), sq(2, 1), sq(3, 1), sq(7, 1), sq(8, 1), sq(1, 2), sq(1, 3), sq(2, 3), sq(3, 3)}
	base := func() *sokodv1.AnalyzeResponse {
		return &sokodv1.AnalyzeResponse{Width: 10, Height: 5, DeadSquares: dead,
			Tunnels:     []*sokodv1.Tunnel{{Squares: []*sokodv1.Square{sq(4, 2), sq(5, 2), sq(6, 2)}}},
			GateSquares: []*sokodv1.Square{sq(3, 2), sq(4, 2), sq(5, 2), sq(6, 2), sq(7, 2)},
			GoalRooms: []*sokodv1.GoalRoom{{Squares: []*sokodv1.Square{sq(7, 1), sq(8, 1), sq(7, 2), sq(8, 2)},
				Goals: []*sokodv1.Square{sq(7, 2), sq(8, 2)}, Entrances: []*sokodv1.Square{sq(6, 2)}}},
			LowerBound: 8}
	}
	deadSquare := base()
	deadSquare.LowerBound = -1
	deadSquare.Deadlock = &sokodv1.Deadlock{Kind: sokodv1.DeadlockKind_DEADLOCK_KIND_DEAD_SQUARE, Boxes: []*sokodv1.Square{sq(1, 2)}}
	moved := base()
	moved.LowerBound = 7
	tests := []struct {
		name     string
		level    string
		position *sokodv1.Position
		want     *sokodv1.AnalyzeResponse
	}{
		{name: "start", level: level, want: base()},
		{name: "one push later", level: level, position: &sokodv1.Position{Boxes: []*sokodv1.Square{sq(2, 2), sq(6, 2)}, Player: sq(5, 2)}, want: moved},
		{name: "box on a dead square", level: level, position: &sokodv1.Position{Boxes: []*sokodv1.Square{sq(1, 2), sq(5, 2)}, Player: sq(2, 2)}, want: deadSquare},
		{name: "box in a wall", level: level, position: &sokodv1.Position{Boxes: []*sokodv1.Square{sq(0, 0), sq(5, 2)}, Player: sq(2, 2)},
			want: &sokodv1.AnalyzeResponse{LevelError: &sokodv1.LevelError{Kind: sokodv1.LevelErrorKind_LEVEL_ERROR_KIND_POSITION}}},
		{name: "unparsable", level: "#####\n#@$.#\n##X##\n#####\n",
			want: &sokodv1.AnalyzeResponse{LevelError: &sokodv1.LevelError{Kind: sokodv1.LevelErrorKind_LEVEL_ERROR_KIND_UNKNOWN_CHARACTER, Level: 1, Line: 3, Column: 3}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ts.client.Analyze(ctx, &sokodv1.AnalyzeRequest{Level: tc.level, Position: tc.position})
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, got, protocmp.Transform(), protocmp.IgnoreFields(&sokodv1.Deadlock{}, "reason"),
				protocmp.IgnoreFields(&sokodv1.LevelError{}, "reason", "message")); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestListComponents(t *testing.T) {
	ts := startServer(t, Options{Components: registry.New(nil, nil)})
	got, err := ts.client.ListComponents(testContext(t), &sokodv1.ListComponentsRequest{})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, c := range got.Components {
		names = append(names, c.Kind+" "+c.Name+" "+c.Source)
	}
	for _, want := range []string{"heuristic greedy built-in", "heuristic matching built-in", "heuristic simple built-in"} {
		if !strings.Contains(strings.Join(names, "\n"), want) {
			t.Errorf("components %q lack %q", names, want)
		}
	}
}

func TestHealthAndReflection(t *testing.T) {
	ts := startServer(t, Options{})
	ctx := testContext(t)
	h, err := healthpb.NewHealthClient(ts.conn).Check(ctx, &healthpb.HealthCheckRequest{Service: "sokod.v1.SolverService"})
	if err != nil || h.Status != healthpb.HealthCheckResponse_SERVING {
		t.Errorf("health: %v, %v", h, err)
	}
	rs, err := reflectionpb.NewServerReflectionClient(ts.conn).ServerReflectionInfo(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := rs.Send(&reflectionpb.ServerReflectionRequest{MessageRequest: &reflectionpb.ServerReflectionRequest_ListServices{}}); err != nil {
		t.Fatal(err)
	}
	resp, err := rs.Recv()
	if err != nil {
		t.Fatal(err)
	}
	_ = rs.CloseSend()
	var services []string
	for _, s := range resp.GetListServicesResponse().GetService() {
		services = append(services, s.Name)
	}
	for _, want := range []string{"sokod.v1.SolverService", "grpc.health.v1.Health"} {
		if !strings.Contains(strings.Join(services, " "), want) {
			t.Errorf("reflection lists %q, not %s", services, want)
		}
	}
}

func TestGarbageDoesNotHurt(t *testing.T) {
	ts := startServer(t, Options{})
	ctx := testContext(t)
	for _, garbage := range [][]byte{
		[]byte("GET / HTTP/1.1\r\nHost: x\r\n\r\n"),
		{0, 1, 2, 3, 255, 254, 253, 0, 0, 0, 0, 0, 0, 0},
		[]byte("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n\x00\x00\x04\x08\x00\x00\x00\x00\x00garbage frames"),
	} {
		dropsGarbage(t, ts.path, garbage)
	}
	resp, err := ts.client.Verify(ctx, &sokodv1.VerifyRequest{Level: "#####\n#@$.#\n#####\n", Solution: "R"})
	if err != nil || !resp.Valid {
		t.Errorf("after garbage: %v, %v", resp, err)
	}
}

// dropsGarbage writes garbage to the socket at path, ends its side, and
// checks that the server drops the connection.
func dropsGarbage(t *testing.T, path string, garbage []byte) {
	t.Helper()
	c, err := net.Dial("unix", path)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	_, _ = c.Write(garbage)
	_ = c.(*net.UnixConn).CloseWrite()
	// The deadline only guards against a hang.
	_ = c.SetReadDeadline(time.Now().Add(testDeadline))
	if _, err := io.Copy(io.Discard, c); errors.Is(err, os.ErrDeadlineExceeded) {
		t.Errorf("garbage %q: the connection stayed open", garbage)
	}
}

// TestSilentConnectionDropped: a client that connects and says nothing is
// dropped after the handshake timeout.
func TestSilentConnectionDropped(t *testing.T) {
	ts := startServer(t, Options{})
	c, err := net.Dial("unix", ts.path)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	_ = c.SetReadDeadline(time.Now().Add(testDeadline))
	if _, err := io.Copy(io.Discard, c); errors.Is(err, os.ErrDeadlineExceeded) {
		t.Error("the silent connection stayed open")
	}
}

func TestShutdownCancelsJobs(t *testing.T) {
	ts := startServer(t, Options{MaxJobs: 1, Queue: 1})
	ctx := testContext(t)
	wctx, stopWatch := context.WithCancel(ctx)
	defer stopWatch()
	watch, err := healthpb.NewHealthClient(ts.conn).Watch(wctx, &healthpb.HealthCheckRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if h, err := watch.Recv(); err != nil || h.Status != healthpb.HealthCheckResponse_SERVING {
		t.Fatalf("health before: %v, %v", h, err)
	}
	_, running := startLong(t, ctx, ts.client)
	queued, err := ts.client.Solve(ctx, longRequest(t))
	if err != nil {
		t.Fatal(err)
	}
	if resp, err := queued.Recv(); err != nil || resp.GetAccepted().GetQueuePosition() != 1 {
		t.Fatalf("second job: %v, %v", resp, err)
	}

	errc := make(chan error, 1)
	go func() { errc <- ts.stop(t) }()
	if h, err := watch.Recv(); err != nil || h.Status != healthpb.HealthCheckResponse_NOT_SERVING {
		t.Errorf("health during the stop: %v, %v", h, err)
	}
	// An open watch would hold the graceful stop until its bound.
	stopWatch()
	for name, stream := range map[string]sokodv1.SolverService_SolveClient{"running": running, "queued": queued} {
		ev, err := recvAll(stream)
		if err != nil || ev.result.GetStatus() != sokodv1.Status_STATUS_CANCELLED || !strings.Contains(ev.result.Reason, "shutting down") {
			t.Errorf("%s job: %v, %v; want CANCELLED at shutdown", name, ev.result, err)
		}
	}
	if err := <-errc; err != nil {
		t.Errorf("Serve: %v", err)
	}
}

// TestServesUnixAndTCP: one server answers on both listeners.
func TestServesUnixAndTCP(t *testing.T) {
	srv, err := New(Options{Components: registry.New(nil, nil), Limits: Limits{Time: time.Minute, Memory: 64 << 20}, Token: "secret"})
	if err != nil {
		t.Fatal(err)
	}
	ul, err := ListenUnix(filepath.Join(socketDir(t), "s.sock"), "")
	if err != nil {
		t.Fatal(err)
	}
	tl, err := ListenTCP("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(testContext(t))
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ctx, ul, tl) }()
	for _, target := range []string{"unix://" + ul.Addr().String(), tl.Addr().String()} {
		// TCP needs the daemon's token; the socket does not.
		conn, err := grpc.NewClient(target, grpc.WithTransportCredentials(insecure.NewCredentials()), grpc.WithPerRPCCredentials(TokenCredentials("secret")))
		if err != nil {
			t.Fatal(err)
		}
		resp, err := sokodv1.NewSolverServiceClient(conn).Verify(ctx, &sokodv1.VerifyRequest{Level: "#####\n#@$.#\n#####\n", Solution: "R"})
		if err != nil || !resp.Valid {
			t.Errorf("%s: %v, %v", target, resp, err)
		}
		conn.Close()
	}
	cancel()
	if err := <-errc; err != nil {
		t.Errorf("Serve: %v", err)
	}
}

func TestNewRefusesBadOptions(t *testing.T) {
	reg := registry.New(nil, nil)
	for name, opts := range map[string]Options{
		"no components":       {Limits: Limits{Time: time.Second, Memory: 1 << 30}},
		"no time":             {Components: reg, Limits: Limits{Memory: 1 << 30}},
		"no memory":           {Components: reg, Limits: Limits{Time: time.Second}},
		"cap below one solve": {Components: reg, Limits: Limits{Time: time.Second, Memory: 1 << 30}, MemoryCap: 1 << 20},
	} {
		if _, err := New(opts); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}
