package server

import (
	"context"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/testing/protocmp"
	"google.golang.org/protobuf/types/known/durationpb"

	sokodv1 "github.com/sokod/sokod/proto/sokod/v1"
)

// waitWorking reads stream until the search has reported work, and
// returns the job's id.
func waitWorking(t *testing.T, stream interface {
	Recv() (*sokodv1.SolveResponse, error)
}) string {
	t.Helper()
	id := ""
	for {
		resp, err := stream.Recv()
		if err != nil {
			t.Fatalf("before the search reported work: %v", err)
		}
		switch e := resp.Event.(type) {
		case *sokodv1.SolveResponse_Accepted:
			id = e.Accepted.JobId
		case *sokodv1.SolveResponse_Progress:
			if e.Progress.Nodes > 0 {
				return id
			}
		case *sokodv1.SolveResponse_Result:
			t.Fatalf("result before any work: %v", e.Result)
		}
	}
}

func TestWatchADetachedJobAfterItsClientLeft(t *testing.T) {
	ts := startServer(t, Options{})
	ctx := testContext(t)
	req := longRequest(t)
	req.Options.Detach = true
	sctx, leave := context.WithCancel(ctx)
	stream, err := ts.client.Solve(sctx, req)
	if err != nil {
		t.Fatal(err)
	}
	id := waitWorking(t, stream)
	leave()

	// The job goes on without its client; a watcher sees it running.
	watch, err := ts.client.Watch(ctx, &sokodv1.WatchRequest{JobId: id})
	if err != nil {
		t.Fatal(err)
	}
	first, err := watch.Recv()
	if err != nil || first.GetAccepted().GetJobId() != id || first.GetAccepted().GetQueuePosition() != 0 {
		t.Fatalf("first event %v, %v: want Accepted of job %s", first, err, id)
	}
	if got := waitWorking(t, watch); got != "" {
		t.Errorf("a second Accepted (%s)", got)
	}
	if _, err := ts.client.Cancel(ctx, &sokodv1.CancelRequest{JobId: id}); err != nil {
		t.Fatal(err)
	}
	ev, err := recvAll(watch)
	if err != nil {
		t.Fatal(err)
	}
	r := ev.result
	if r.GetStatus() != sokodv1.Status_STATUS_CANCELLED || r.GetGiveUpReason() != sokodv1.GiveUpReason_GIVE_UP_REASON_CANCELLED || r.GetJobId() != id {
		t.Fatalf("result %v: want job %s CANCELLED", r, id)
	}

	// Once ended, Watch gives Accepted and the same result.
	again, err := ts.client.Watch(ctx, &sokodv1.WatchRequest{JobId: id})
	if err != nil {
		t.Fatal(err)
	}
	ev, err = recvAll(again)
	if err != nil {
		t.Fatal(err)
	}
	if ev.accepted.GetJobId() != id || len(ev.progress) != 0 {
		t.Errorf("watch of an ended job: accepted %v, %d progress events", ev.accepted, len(ev.progress))
	}
	if diff := cmp.Diff(r, ev.result, protocmp.Transform()); diff != "" {
		t.Errorf("result fetched again (-first +again):\n%s", diff)
	}
	waitIdle(t, ctx, ts.client)
}

func TestWatchUnknownJob(t *testing.T) {
	ts := startServer(t, Options{})
	ctx := testContext(t)
	stream, err := ts.client.Watch(ctx, &sokodv1.WatchRequest{JobId: "nope"})
	if err != nil {
		t.Fatal(err)
	}
	_, err = recvAll(stream)
	if status.Code(err) != codes.NotFound || errorReason(err) != reasonNoSuchJob {
		t.Errorf("error %v (reason %q), want NotFound with %s", err, errorReason(err), reasonNoSuchJob)
	}
}

// errorReason is the ErrorInfo reason of a status error.
func errorReason(err error) string {
	for _, d := range status.Convert(err).Details() {
		if info, ok := d.(*errdetails.ErrorInfo); ok {
			return info.GetReason()
		}
	}
	return ""
}

func TestOptionErrorsCarryTheirToken(t *testing.T) {
	ts := startServer(t, Options{})
	ctx := testContext(t)
	stream, err := ts.client.Solve(ctx, &sokodv1.SolveRequest{Level: readFile(t, "testdata/small.xsb"),
		Options: &sokodv1.SolveOptions{Heuristic: "magic"}})
	if err != nil {
		t.Fatal(err)
	}
	_, err = recvAll(stream)
	var info *errdetails.ErrorInfo
	for _, d := range status.Convert(err).Details() {
		info, _ = d.(*errdetails.ErrorInfo)
	}
	want := &errdetails.ErrorInfo{Reason: reasonInvalidOption, Domain: errorDomain, Metadata: map[string]string{"option": "heuristic"}}
	if diff := cmp.Diff(want, info, protocmp.Transform()); diff != "" || status.Code(err) != codes.InvalidArgument {
		t.Errorf("error %v; ErrorInfo (-want +got):\n%s", err, diff)
	}
}

func TestAlreadySolvedLevel(t *testing.T) {
	ts := startServer(t, Options{})
	ctx := testContext(t)
	stream, err := ts.client.Solve(ctx, &sokodv1.SolveRequest{Level: "#####\n#@*.#\n#####\n"})
	if err == nil {
		_, err = recvAll(stream)
	}
	if status.Code(err) != codes.OK {
		t.Fatalf("a level with more goals than boxes: %v", err)
	}
	stream, err = ts.client.Solve(ctx, &sokodv1.SolveRequest{Level: "; done\n#####\n#@**#\n#####\n",
		Options: &sokodv1.SolveOptions{Objective: sokodv1.Objective_OBJECTIVE_PUSHES}})
	if err != nil {
		t.Fatal(err)
	}
	ev, err := recvAll(stream)
	if err != nil {
		t.Fatal(err)
	}
	if ev.accepted != nil {
		t.Errorf("accepted %v: an already solved level needs no job", ev.accepted)
	}
	want := &sokodv1.Result{Status: sokodv1.Status_STATUS_SOLVED, Title: "done", Optimal: true, Heuristic: "matching",
		Objective: sokodv1.Objective_OBJECTIVE_PUSHES, Metrics: &sokodv1.Metrics{Solved: true}}
	if diff := cmp.Diff(want, ev.result, protocmp.Transform(), protocmp.IgnoreFields(&sokodv1.Result{}, "elapsed")); diff != "" {
		t.Errorf("result (-want +got):\n%s", diff)
	}
}

func TestGiveUpReasons(t *testing.T) {
	ts := startServer(t, Options{})
	ctx := testContext(t)
	warehouse := readFile(t, "testdata/warehouse.xsb")
	none := false
	tests := []struct {
		name string
		opts *sokodv1.SolveOptions
		want sokodv1.GiveUpReason
	}{
		{"nodes", &sokodv1.SolveOptions{Objective: sokodv1.Objective_OBJECTIVE_PUSHES, Heuristic: "simple", NodeLimit: 100, UsePlanners: &none},
			sokodv1.GiveUpReason_GIVE_UP_REASON_NODES},
		{"time", &sokodv1.SolveOptions{Objective: sokodv1.Objective_OBJECTIVE_PUSHES, Heuristic: "simple", TimeLimit: durationpb.New(50 * time.Millisecond), UsePlanners: &none},
			sokodv1.GiveUpReason_GIVE_UP_REASON_TIME},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			stream, err := ts.client.Solve(ctx, &sokodv1.SolveRequest{Level: warehouse, Options: tc.opts})
			if err != nil {
				t.Fatal(err)
			}
			ev, err := recvAll(stream)
			if err != nil {
				t.Fatal(err)
			}
			r := ev.result
			if r.GetStatus() != sokodv1.Status_STATUS_GAVE_UP || r.GetGiveUpReason() != tc.want {
				t.Errorf("result %v (%s): want GAVE_UP for %v", r.GetStatus(), r.GetGiveUpReason(), tc.want)
			}
			if len(r.GetRuns()) != 1 || r.Runs[0].Status != sokodv1.RunStatus_RUN_STATUS_GAVE_UP || r.Runs[0].GiveUpReason != tc.want {
				t.Errorf("runs %v: want one search run that gave up for %v", r.GetRuns(), tc.want)
			}
		})
	}
}

func TestGiveUpReasonText(t *testing.T) {
	tests := map[string]sokodv1.GiveUpReason{
		"time limit": sokodv1.GiveUpReason_GIVE_UP_REASON_TIME,
		"time limit; planners did not solve it either": sokodv1.GiveUpReason_GIVE_UP_REASON_TIME,
		"time budget spent":                            sokodv1.GiveUpReason_GIVE_UP_REASON_TIME,
		"memory budget":                                sokodv1.GiveUpReason_GIVE_UP_REASON_MEMORY,
		"node limit":                                   sokodv1.GiveUpReason_GIVE_UP_REASON_NODES,
		"cancelled":                                    sokodv1.GiveUpReason_GIVE_UP_REASON_CANCELLED,
		"every reachable position was searched, but detector x pruned": sokodv1.GiveUpReason_GIVE_UP_REASON_UNTRUSTED_PRUNING,
		"planner says unsolvable: no":                                  sokodv1.GiveUpReason_GIVE_UP_REASON_OTHER,
	}
	for text, want := range tests {
		if got := giveUpReason(text); got != want {
			t.Errorf("giveUpReason(%q) = %v, want %v", text, got, want)
		}
	}
}

func TestGetServerInfo(t *testing.T) {
	ts := startServer(t, Options{Version: "1.2.3", MaxJobs: 3, Queue: 5, Planners: []string{"good"}})
	ctx := testContext(t)
	info, err := ts.client.GetServerInfo(ctx, &sokodv1.GetServerInfoRequest{})
	if err != nil {
		t.Fatal(err)
	}
	want := &sokodv1.ServerLimits{TimeLimit: durationpb.New(time.Minute), MemoryLimitBytes: 256 << 20, MaxJobs: 3, QueueCapacity: 5,
		MaxWidth: 128, MaxHeight: 128, MaxRequestBytes: DefaultMaxRequestBytes}
	if diff := cmp.Diff(want, info.GetLimits(), protocmp.Transform()); diff != "" {
		t.Errorf("limits (-want +got):\n%s", diff)
	}
	if info.Name != "sokod" || info.Version != "1.2.3" || info.DefaultHeuristic != "matching" || !cmp.Equal(info.DefaultPlanners, []string{"good"}) ||
		info.GoVersion == "" || info.GetStarted() == nil {
		t.Errorf("info %v", info)
	}
	comps, err := ts.client.ListComponents(ctx, &sokodv1.ListComponentsRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(comps.Components, info.Components, protocmp.Transform()); diff != "" || len(comps.Components) == 0 {
		t.Errorf("components (-ListComponents +GetServerInfo):\n%s", diff)
	}
}

func TestParseLevels(t *testing.T) {
	ts := startServer(t, Options{})
	ctx := testContext(t)
	resp, err := ts.client.ParseLevels(ctx, &sokodv1.ParseLevelsRequest{Text: "; one\n  ####\n###@ #\n#.$  #\n######\n\n; two\n4#|#@*#|4#\n"})
	if err != nil {
		t.Fatal(err)
	}
	want := &sokodv1.ParseLevelsResponse{Levels: []*sokodv1.LevelSummary{
		{Number: 1, Title: "one", Width: 6, Height: 4, Boxes: 1, Rows: []string{"  ####", "###@ #", "#.$  #", "######"}},
		{Number: 2, Title: "two", Width: 4, Height: 3, Boxes: 1, Rows: []string{"####", "#@*#", "####"}, Solved: true},
	}}
	if diff := cmp.Diff(want, resp, protocmp.Transform()); diff != "" {
		t.Errorf("levels (-want +got):\n%s", diff)
	}
	bad, err := ts.client.ParseLevels(ctx, &sokodv1.ParseLevelsRequest{Text: "#####\n#@X.#\n#####\n"})
	if err != nil {
		t.Fatal(err)
	}
	if bad.GetLevelError().GetKind() != sokodv1.LevelErrorKind_LEVEL_ERROR_KIND_UNKNOWN_CHARACTER || len(bad.Levels) != 0 {
		t.Errorf("bad text: %v", bad)
	}
}

func TestVerifyMessageUsesXY(t *testing.T) {
	ts := startServer(t, Options{})
	ctx := testContext(t)
	v, err := ts.client.Verify(ctx, &sokodv1.VerifyRequest{Level: "#####\n#@$.#\n#####\n", Solution: "l"})
	if err != nil {
		t.Fatal(err)
	}
	want := &sokodv1.StepError{Step: 1, Move: "l", Kind: sokodv1.StepErrorKind_STEP_ERROR_KIND_INTO_WALL, X: 1, Y: 1,
		Message: `step 1 'l' left from x 1, y 1: the player walks into a wall`}
	if diff := cmp.Diff(want, v.GetStepError(), protocmp.Transform()); diff != "" {
		t.Errorf("step error (-want +got):\n%s", diff)
	}
}

func TestLoopbackHost(t *testing.T) {
	for host, want := range map[string]bool{
		"127.0.0.1:7701": true, "localhost:80": true, "[::1]:7701": true, "127.0.0.2": true, "LOCALHOST": true,
		"evil.example:7701": false, "10.0.0.1:7701": false, "": false, "[::2]:1": false,
	} {
		if got := loopbackHost(host); got != want {
			t.Errorf("loopbackHost(%q) = %v, want %v", host, got, want)
		}
	}
}
