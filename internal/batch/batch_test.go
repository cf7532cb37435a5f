package batch

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/sokod/sokod/internal/registry"
	"github.com/sokod/sokod/sokoban"
)

// testAckWait is short so that a dead worker's job comes back within a
// test's seconds.
const testAckWait = 2 * time.Second

// hall is a room with one box, n pushes to the left of its goal.
func hall(n int) string {
	wall := strings.Repeat("#", n+4) + "\n"
	floor := "#" + strings.Repeat(" ", n+2) + "#\n"
	return wall + floor + "#@$" + strings.Repeat(" ", n-1) + ".#\n" + floor + wall
}

// jobs returns one job per hall of 1 to n pushes.
func jobs(n int) []*Job {
	var out []*Job
	for k := 1; k <= n; k++ {
		out = append(out, &Job{Ref: Ref{File: "halls.xsb", Level: k, Title: fmt.Sprint("hall ", k), Text: hall(k)},
			Options: SolveOptions{Objective: "pushes", TimeMillis: 20_000}})
	}
	return out
}

func testContext(t *testing.T) context.Context {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	t.Cleanup(cancel)
	return ctx
}

func startServer(t *testing.T, dir string, port int) *Server {
	t.Helper()
	s, err := StartServer(ServerOptions{Dir: dir, Port: port})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Shutdown)
	return s
}

func connect(t *testing.T, url string, opts Options) *Queue {
	t.Helper()
	if opts.AckWait == 0 {
		opts.AckWait = testAckWait
	}
	q, err := Connect(testContext(t), url, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(q.Close)
	return q
}

// levelSolver is the workers' real solver on the built-in components.
func levelSolver() *LevelSolver {
	return &LevelSolver{Components: registry.New(nil, nil), Limits: Limits{Time: time.Minute, Memory: 64 << 20}, Planners: []string{"none"}}
}

// runWorkers starts n workers of one slot each on q and returns the
// function that stops them and waits.
func runWorkers(t *testing.T, q *Queue, n int, s Solver) func() {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	for k := range n {
		w := NewWorker(q, s, WorkerOptions{Name: fmt.Sprint("w", k+1)})
		wg.Go(func() {
			if err := w.Run(ctx); err != nil {
				t.Error(err)
			}
		})
	}
	stop := func() { cancel(); wg.Wait() }
	t.Cleanup(stop)
	return stop
}

// waitAll waits for every result of batch id and returns them in job
// order, as a collector reads them afterwards.
func waitAll(t *testing.T, q *Queue, id string) []*Result {
	t.Helper()
	ctx := testContext(t)
	if err := q.Wait(ctx, id, func(*Result) {}); err != nil {
		t.Fatalf("waiting for batch %s: %v", id, err)
	}
	rs, err := q.Results(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	return rs
}

// checkSolved checks that results hold each of the levels jobs once, in
// order, solved with a solution that replays on the job's level.
func checkSolved(t *testing.T, rs []*Result, levels int) {
	t.Helper()
	var ids, want []int
	for _, r := range rs {
		ids = append(ids, r.Index)
		if r.Status != StatusSolved {
			t.Errorf("%s: %s (%s), want solved", r.ID, r.Status, r.Reason)
			continue
		}
		l, err := sokoban.Parse(r.Text)
		if err != nil {
			t.Fatalf("%s: result's level: %v", r.ID, err)
		}
		sol, err := sokoban.ParseSolution(r.Solution)
		if err != nil {
			t.Fatalf("%s: %v", r.ID, err)
		}
		if m, err := sokoban.Replay(l, sol); err != nil || !m.Solved || m.Pushes != r.Pushes {
			t.Errorf("%s: solution %q does not replay to %d pushes: %+v %v", r.ID, r.Solution, r.Pushes, m, err)
		}
	}
	for k := 1; k <= levels; k++ {
		want = append(want, k)
	}
	if diff := cmp.Diff(want, ids); diff != "" {
		t.Errorf("result indexes (-want +got):\n%s", diff)
	}
}

func TestThreeWorkersSolveABatchOnce(t *testing.T) {
	s := startServer(t, t.TempDir(), 0)
	q := connect(t, s.URL(), Options{})
	ctx := testContext(t)
	b := &Batch{ID: "halls", Files: []string{"halls.xsb"}}
	if err := q.Submit(ctx, b, jobs(6)); err != nil {
		t.Fatal(err)
	}
	// A message that is not a job, on the batch's subject.
	if _, err := q.js.Publish(ctx, jobsPrefix+"halls", []byte("{not json")); err != nil {
		t.Fatal(err)
	}
	runWorkers(t, q, 3, levelSolver())
	rs := waitAll(t, q, "halls")
	// The malformed message's result may come after the last job's.
	for len(rs) == 6 && ctx.Err() == nil {
		sleep(ctx, 50*time.Millisecond)
		var err error
		if rs, err = q.Results(ctx, "halls"); err != nil {
			t.Fatal(err)
		}
	}
	if len(rs) != 7 || rs[0].Index != 0 || rs[0].Status != StatusInvalidJob {
		t.Fatalf("want the malformed message's invalid_job result first, then 6: got %d results, the first %+v", len(rs), rs[0])
	}
	checkSolved(t, rs[1:], 6)
	workers := map[string]bool{}
	for _, r := range rs[1:] {
		workers[r.Worker] = true
		if !r.Optimal || r.Pushes != r.Level {
			t.Errorf("%s: %d pushes, optimal %v; want %d, proved", r.ID, r.Pushes, r.Optimal, r.Level)
		}
	}
	t.Logf("workers that solved: %v", workers)

	st, err := q.Status(ctx, "halls")
	if err != nil {
		t.Fatal(err)
	}
	want := &Status{Batch: st.Batch, Done: 6, Queued: 0, Statuses: map[string]int{StatusSolved: 6}, Invalid: 1}
	if diff := cmp.Diff(want, st); diff != "" {
		t.Errorf("status (-want +got):\n%s", diff)
	}
	if !st.Batch.Complete || st.Batch.Levels != 6 {
		t.Errorf("batch record %+v, want complete with 6 levels", st.Batch)
	}
}

// TestHelperWorker is not a test: TestKilledWorkersJobIsRedelivered runs
// the test binary with SOKOD_TEST_WORKER set to a NATS URL, and this runs
// a real worker in that process whose solves never end, so it can be
// killed mid-solve.
func TestHelperWorker(t *testing.T) {
	url := os.Getenv("SOKOD_TEST_WORKER")
	if url == "" {
		t.Skip("runs only as TestKilledWorkersJobIsRedelivered's subprocess")
	}
	q, err := Connect(context.Background(), url, Options{AckWait: testAckWait})
	if err != nil {
		fmt.Println("connect:", err)
		os.Exit(1)
	}
	_ = NewWorker(q, stuck{}, WorkerOptions{Name: "doomed"}).Run(context.Background())
}

// stuck says which job it started on standard output, then solves forever.
type stuck struct{}

func (stuck) Solve(ctx context.Context, job *Job) *Result {
	fmt.Printf("solving %s\n", job.ID)
	<-ctx.Done()
	return &Result{Status: StatusGaveUp, Reason: "cancelled"}
}

func TestKilledWorkersJobIsRedelivered(t *testing.T) {
	s := startServer(t, t.TempDir(), 0)
	q := connect(t, s.URL(), Options{})
	ctx := testContext(t)
	if err := q.Submit(ctx, &Batch{ID: "doomed"}, jobs(4)); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestHelperWorker$")
	cmd.Env = append(os.Environ(), "SOKOD_TEST_WORKER="+s.URL())
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		t.Fatalf("the worker subprocess said nothing: %v", err)
	}
	taken, ok := strings.CutPrefix(strings.TrimSpace(line), "solving ")
	if !ok {
		t.Fatalf("the worker subprocess said %q", line)
	}
	// Mid-solve, past one and a half ack waits: the in-progress acks hold the
	// job, which has been delivered once.
	time.Sleep(3 * testAckWait / 2)
	cons, err := q.js.Consumer(ctx, JobsStream, WorkersName)
	if err != nil {
		t.Fatal(err)
	}
	info, err := cons.Info(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if info.NumAckPending != 1 || info.NumRedelivered != 0 {
		t.Errorf("before the kill: %d jobs held, %d redelivered; want 1 held by the worker, none redelivered", info.NumAckPending, info.NumRedelivered)
	}
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()

	runWorkers(t, q, 3, levelSolver())
	rs := waitAll(t, q, "doomed")
	checkSolved(t, rs, 4)
	for _, r := range rs {
		if r.ID == taken && (r.Delivery != 2 || r.Worker == "doomed") {
			t.Errorf("%s, taken by the killed worker: delivery %d by %s, want delivery 2 by another worker", r.ID, r.Delivery, r.Worker)
		}
	}
}

// slow solves after a pause, so that a batch of quick levels lasts
// through a server restart.
type slow struct{ Solver }

func (s slow) Solve(ctx context.Context, job *Job) *Result {
	sleep(ctx, 200*time.Millisecond)
	return s.Solver.Solve(ctx, job)
}

// TestRestartedServerLosesNoJob stops the server mid-batch, with jobs
// waiting and being solved, and starts it again on the same directory:
// workers and collectors reconnect, and every job has its one result.
func TestRestartedServerLosesNoJob(t *testing.T) {
	dir := t.TempDir()
	s, err := StartServer(ServerOptions{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	port := s.Port()
	q := connect(t, s.URL(), Options{})
	ctx := testContext(t)
	const levels = 8
	if err := q.Submit(ctx, &Batch{ID: "restart"}, jobs(levels)); err != nil {
		t.Fatal(err)
	}
	runWorkers(t, q, 2, slow{levelSolver()})
	first := make(chan struct{})
	wctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go func() {
		defer close(first)
		_ = q.readResults(wctx, "restart", false, func(*Result) bool { return true })
	}()
	<-first
	before, err := q.Results(ctx, "restart")
	if err != nil {
		t.Fatal(err)
	}
	if len(before) == levels {
		t.Fatal("the batch was done before the restart: make the solves slower")
	}
	s.Shutdown()
	startServer(t, dir, port)
	rs := waitAll(t, q, "restart")
	checkSolved(t, rs, levels)
	st, err := q.Status(ctx, "restart")
	if err != nil {
		t.Fatal(err)
	}
	if st.Queued != 0 || st.Done != levels || !st.Batch.Complete {
		t.Errorf("after the batch: %d queued, %d done, complete %v; want 0, %d, true", st.Queued, st.Done, st.Batch.Complete, levels)
	}
}

func TestUnreachableServer(t *testing.T) {
	_, err := Connect(testContext(t), "nats://127.0.0.1:1", Options{})
	var unavailable *UnavailableError
	if !errors.As(err, &unavailable) {
		t.Fatalf("Connect to a closed port: %v, want an UnavailableError", err)
	}
	if !strings.Contains(err.Error(), "cannot reach NATS at nats://127.0.0.1:1") {
		t.Errorf("error %q does not name the URL", err)
	}
}

// TestJobDeliveredTooOften answers a job whose workers kept dying as
// failed instead of delivering it again.
func TestJobDeliveredTooOften(t *testing.T) {
	s := startServer(t, t.TempDir(), 0)
	q := connect(t, s.URL(), Options{MaxDeliveries: 2})
	ctx := testContext(t)
	if err := q.Submit(ctx, &Batch{ID: "cursed"}, jobs(1)); err != nil {
		t.Fatal(err)
	}
	// Two deliveries handed back, as by workers that stop mid-solve.
	cons, err := q.js.CreateOrUpdateConsumer(ctx, JobsStream, jetstream.ConsumerConfig{Durable: WorkersName,
		FilterSubject: jobsPrefix + "*", AckPolicy: jetstream.AckExplicitPolicy, AckWait: testAckWait, MaxDeliver: -1, MaxAckPending: -1})
	if err != nil {
		t.Fatal(err)
	}
	for range 2 {
		msg, err := cons.Next(jetstream.FetchMaxWait(5 * time.Second))
		if err != nil {
			t.Fatal(err)
		}
		if err := msg.Nak(); err != nil {
			t.Fatal(err)
		}
	}
	runWorkers(t, q, 1, levelSolver())
	rs := waitAll(t, q, "cursed")
	if len(rs) != 1 || rs[0].Status != StatusFailed || rs[0].Delivery != 3 {
		t.Fatalf("results %+v, want one failed at delivery 3", rs)
	}
	if !strings.Contains(rs[0].Reason, "delivered 3 times") {
		t.Errorf("reason %q", rs[0].Reason)
	}
}
