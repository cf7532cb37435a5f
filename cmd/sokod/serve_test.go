package main

// The daemon end to end: the real sokod binary, built once in TestMain,
// serving on a temporary socket, driven through gRPC and through the CLI
// as a client.

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/status"

	"github.com/sokod/sokod/sokoban"

	sokodv1 "github.com/sokod/sokod/proto/sokod/v1"
)

// Levels of the daemon's own tests: small ones solved in milliseconds, and
// the warehouse, which takes seconds, many with the simple bound under
// objective pushes.
const (
	daemonSmall     = "../../internal/server/testdata/small.xsb"
	daemonWarehouse = "../../internal/server/testdata/warehouse.xsb"
)

// daemonDeadline bounds every wait of these tests so that a bug hangs
// nothing; none is a speed assertion.
const daemonDeadline = 90 * time.Second

// sokodBin is the binary TestMain builds.
var sokodBin string

func TestMain(m *testing.M) {
	if os.Getenv(rssProbeEnv) != "" {
		os.Exit(rssProbe(os.Args[1:]))
	}
	dir, err := os.MkdirTemp("", "sokodbin")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	sokodBin = filepath.Join(dir, "sokod")
	if out, err := exec.Command("go", "build", "-o", sokodBin, ".").CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "go build: %v\n%s", err, out)
		os.RemoveAll(dir)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// lockedBuffer is a bytes.Buffer written by a process's output copier and
// read by the test.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// binEnv is the environment of the binary: the caller's without SOKOD_*,
// plus extra.
func binEnv(extra ...string) []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "SOKOD_") {
			env = append(env, kv)
		}
	}
	return append(env, extra...)
}

// daemon is a running `sokod serve`.
type daemon struct {
	cmd    *exec.Cmd
	sock   string
	log    *lockedBuffer
	conn   *grpc.ClientConn
	client sokodv1.SolverServiceClient
	exited chan struct{}
	err    error // Wait's, once exited is closed
}

// shortDir is a temporary directory short enough for socket paths.
func shortDir(t *testing.T) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "skd")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	return dir
}

// startDaemon runs `sokod serve` on the socket sock with the extra
// environment and waits until its health service says SERVING. The daemon
// is killed at the end of the test if it is still running.
func startDaemon(t *testing.T, sock string, extra ...string) *daemon {
	t.Helper()
	d := &daemon{sock: sock, log: &lockedBuffer{}, exited: make(chan struct{})}
	d.cmd = exec.Command(sokodBin, "serve")
	d.cmd.Env = binEnv(append([]string{"SOKOD_LISTEN_UNIX=" + sock, "SOKOD_LOG_LEVEL=debug"}, extra...)...)
	d.cmd.Stdout, d.cmd.Stderr = d.log, d.log
	if err := d.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		d.err = d.cmd.Wait()
		close(d.exited)
	}()
	t.Cleanup(func() {
		select {
		case <-d.exited:
		default:
			_ = d.cmd.Process.Kill()
			<-d.exited
		}
		if t.Failed() {
			t.Logf("daemon log:\n%s", d.log.String())
		}
	})
	conn, err := grpc.NewClient("unix://"+sock, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	d.conn, d.client = conn, sokodv1.NewSolverServiceClient(conn)
	ctx := deadlineContext(t)
	for {
		h, err := healthpb.NewHealthClient(conn).Check(ctx, &healthpb.HealthCheckRequest{})
		if err == nil && h.Status == healthpb.HealthCheckResponse_SERVING {
			return d
		}
		select {
		case <-d.exited:
			t.Fatalf("the daemon exited: %v\n%s", d.err, d.log.String())
		case <-ctx.Done():
			t.Fatalf("the daemon never served: %v\n%s", err, d.log.String())
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// wait waits for the daemon to exit and returns its exit code.
func (d *daemon) wait(t *testing.T) int {
	t.Helper()
	select {
	case <-d.exited:
	case <-time.After(daemonDeadline):
		t.Fatalf("the daemon did not exit\n%s", d.log.String())
	}
	var ee *exec.ExitError
	if errors.As(d.err, &ee) {
		return ee.ExitCode()
	}
	if d.err != nil {
		t.Fatalf("wait: %v", d.err)
	}
	return 0
}

func deadlineContext(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), daemonDeadline)
	t.Cleanup(cancel)
	return ctx
}

// runBin runs the binary to completion (bounded by the deadline).
func runBin(t *testing.T, env []string, args ...string) result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), daemonDeadline)
	defer cancel()
	cmd := exec.CommandContext(ctx, sokodBin, args...)
	cmd.Env = binEnv(env...)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	code := 0
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		code = ee.ExitCode()
	case err != nil:
		t.Fatalf("run %v: %v", args, err)
	}
	return result{code, out.String(), errOut.String()}
}

// longSolve starts a job that runs for many seconds and returns once its
// search has reported work.
func longSolve(t *testing.T, ctx context.Context, c sokodv1.SolverServiceClient, heuristic string) (string, sokodv1.SolverService_SolveClient) {
	t.Helper()
	stream, err := c.Solve(ctx, &sokodv1.SolveRequest{Level: mustRead(t, daemonWarehouse), Options: &sokodv1.SolveOptions{
		Objective: sokodv1.Objective_OBJECTIVE_PUSHES, Heuristic: heuristic, MemoryLimitBytes: 64 << 20}})
	if err != nil {
		t.Fatal(err)
	}
	id := ""
	for {
		resp, err := stream.Recv()
		if err != nil {
			t.Fatalf("before the search reported work: %v", err)
		}
		if a := resp.GetAccepted(); a != nil {
			id = a.JobId
		}
		if p := resp.GetProgress(); p != nil && p.Nodes > 0 {
			return id, stream
		}
		if r := resp.GetResult(); r != nil {
			t.Fatalf("result before any work: %v", r)
		}
	}
}

// finalResult reads a Solve stream to its end and returns its result.
func finalResult(stream sokodv1.SolverService_SolveClient) (*sokodv1.Result, int, error) {
	progress := 0
	var res *sokodv1.Result
	for {
		resp, err := stream.Recv()
		if errors.Is(err, io.EOF) {
			return res, progress, nil
		}
		if err != nil {
			return res, progress, err
		}
		if resp.GetProgress() != nil {
			progress++
		}
		if r := resp.GetResult(); r != nil {
			res = r
		}
	}
}

func TestDaemon(t *testing.T) {
	dir := shortDir(t)
	sock := filepath.Join(dir, "s.sock")
	d := startDaemon(t, sock, "SOKOD_SERVER_MAX_JOBS=2", "SOKOD_SERVER_QUEUE=4")
	remote := "unix://" + sock

	t.Run("solve streams progress and returns a verified solution", func(t *testing.T) {
		ctx := deadlineContext(t)
		text := mustRead(t, daemonWarehouse)
		// Under objective any the warehouse falls in milliseconds, before a
		// second progress event; push-optimal takes seconds.
		stream, err := d.client.Solve(ctx, &sokodv1.SolveRequest{Level: text, Options: &sokodv1.SolveOptions{
			Objective: sokodv1.Objective_OBJECTIVE_PUSHES}})
		if err != nil {
			t.Fatal(err)
		}
		res, progress, err := finalResult(stream)
		if err != nil {
			t.Fatal(err)
		}
		if progress < 2 {
			t.Errorf("%d progress events, want the first and the search's", progress)
		}
		if res.GetStatus() != sokodv1.Status_STATUS_SOLVED {
			t.Fatalf("result %v", res)
		}
		l, err := sokoban.Parse(text)
		if err != nil {
			t.Fatal(err)
		}
		sol, err := sokoban.ParseSolution(res.Solution)
		if err != nil {
			t.Fatal(err)
		}
		if m, err := sokoban.Replay(l, sol); err != nil || !m.Solved || m.Pushes != int(res.Metrics.GetPushes()) || m.Moves != int(res.Metrics.GetMoves()) {
			t.Errorf("replay: %+v, %v; sent metrics %v", m, err, res.Metrics)
		}
	})

	t.Run("verify and analyze answer", func(t *testing.T) {
		ctx := deadlineContext(t)
		level := mustRead(t, example)
		v, err := d.client.Verify(ctx, &sokodv1.VerifyRequest{Level: level, Solution: "dlUdlluurDldR"})
		if err != nil || !v.Valid || v.Metrics.GetPushes() != 3 || v.Metrics.GetMoves() != 13 {
			t.Errorf("verify valid: %v, %v", v, err)
		}
		v, err = d.client.Verify(ctx, &sokodv1.VerifyRequest{Level: level, Solution: "dlUdR"})
		if err != nil || v.Legal || v.StepError.GetStep() != 5 || v.StepError.GetKind() != sokodv1.StepErrorKind_STEP_ERROR_KIND_MOVE_WRITTEN_AS_PUSH {
			t.Errorf("verify illegal: %v, %v", v, err)
		}
		a, err := d.client.Analyze(ctx, &sokodv1.AnalyzeRequest{Level: level})
		if err != nil || a.LevelError != nil || a.Width != 7 || a.Height != 5 || a.LowerBound <= 0 || len(a.DeadSquares) == 0 || a.Deadlock != nil {
			t.Errorf("analyze: %v, %v", a, err)
		}
	})

	t.Run("malformed level", func(t *testing.T) {
		ctx := deadlineContext(t)
		stream, err := d.client.Solve(ctx, &sokodv1.SolveRequest{Level: mustRead(t, "testdata/bad.xsb"), LevelNumber: 1})
		if err != nil {
			t.Fatal(err)
		}
		res, _, err := finalResult(stream)
		if err != nil {
			t.Fatal(err)
		}
		le := res.GetLevelError()
		if res.GetStatus() != sokodv1.Status_STATUS_INVALID_LEVEL || le.GetLevel() != 2 || le.GetLine() != 8 || le.GetColumn() != 4 || le.GetReason() == "" {
			t.Errorf("result %v, want INVALID_LEVEL at level 2, line 8, column 4", res)
		}
	})

	t.Run("cancelled mid-search, memory released", func(t *testing.T) {
		ctx := deadlineContext(t)
		id, stream := longSolve(t, ctx, d.client, "simple")
		jobs, err := d.client.ListJobs(ctx, &sokodv1.ListJobsRequest{})
		if err != nil || len(jobs.Jobs) != 1 || jobs.MemoryReservedBytes != 64<<20 {
			t.Fatalf("while running: %v, %v", jobs, err)
		}
		if _, err := d.client.Cancel(ctx, &sokodv1.CancelRequest{JobId: id}); err != nil {
			t.Fatal(err)
		}
		res, _, err := finalResult(stream)
		if err != nil || res.GetStatus() != sokodv1.Status_STATUS_CANCELLED {
			t.Fatalf("result %v, %v; want CANCELLED", res, err)
		}
		jobs, err = d.client.ListJobs(ctx, &sokodv1.ListJobsRequest{})
		if err != nil || len(jobs.Jobs) != 0 || jobs.MemoryReservedBytes != 0 {
			t.Errorf("after cancelling: %v, %v; want no job and no memory accounted", jobs, err)
		}
	})

	t.Run("status lists running and queued jobs", func(t *testing.T) {
		ctx, cancel := context.WithCancel(deadlineContext(t))
		defer cancel()
		longSolve(t, ctx, d.client, "simple")
		longSolve(t, ctx, d.client, "simple")
		queued, err := d.client.Solve(ctx, &sokodv1.SolveRequest{Level: mustRead(t, daemonWarehouse)})
		if err != nil {
			t.Fatal(err)
		}
		if resp, err := queued.Recv(); err != nil || resp.GetAccepted().GetQueuePosition() != 1 {
			t.Fatalf("third job: %v, %v; want queued", resp, err)
		}
		r := runBin(t, nil, "status", "--remote", remote, "--json")
		if r.code != exitOK {
			t.Fatalf("status: exit %d: %s", r.code, r.stderr)
		}
		var got statusOutput
		if err := json.Unmarshal([]byte(r.stdout), &got); err != nil {
			t.Fatalf("%v\n%s", err, r.stdout)
		}
		var states []string
		for _, j := range got.Jobs {
			states = append(states, j.State+" "+j.Title+" "+j.Objective)
		}
		want := []string{"running warehouse pushes", "running warehouse pushes", "queued warehouse any"}
		if diff := cmp.Diff(want, states); diff != "" {
			t.Errorf("jobs (-want +got):\n%s", diff)
		}
		if got.MaxJobs != 2 || got.QueueCapacity != 4 || got.MemoryReserved != 128<<20 || got.Jobs[0].Nodes == 0 {
			t.Errorf("status %+v", got)
		}
		// The default address is the configured socket; the text lists
		// the jobs.
		r = runBin(t, []string{"SOKOD_LISTEN_UNIX=" + sock}, "status")
		if r.code != exitOK || !strings.Contains(r.stdout, "2 running (at most 2), 1 queued (at most 4)") || strings.Count(r.stdout, "warehouse") != 3 {
			t.Errorf("status text: exit %d\n%s%s", r.code, r.stdout, r.stderr)
		}
		cancel()
		waitNoJobs(t, d.client)
	})

	t.Run("fifty clients at once", func(t *testing.T) {
		ctx := deadlineContext(t)
		small := mustRead(t, daemonSmall)
		const clients = 50
		var (
			mu                sync.Mutex
			served, exhausted int
			other             []string
			wg                sync.WaitGroup
			start             = make(chan struct{})
		)
		for range clients {
			conn, err := grpc.NewClient(remote, grpc.WithTransportCredentials(insecure.NewCredentials()))
			if err != nil {
				t.Fatal(err)
			}
			wg.Go(func() {
				defer conn.Close()
				<-start
				var res *sokodv1.Result
				stream, err := sokodv1.NewSolverServiceClient(conn).Solve(ctx, &sokodv1.SolveRequest{Level: small})
				if err == nil {
					res, _, err = finalResult(stream)
				}
				mu.Lock()
				defer mu.Unlock()
				switch {
				case err == nil && res.GetStatus() == sokodv1.Status_STATUS_SOLVED:
					served++
				case status.Code(err) == codes.ResourceExhausted:
					exhausted++
				default:
					other = append(other, fmt.Sprint(err, res))
				}
			})
		}
		close(start)
		wg.Wait()
		if served+exhausted != clients || served == 0 {
			t.Errorf("%d served, %d told RESOURCE_EXHAUSTED, others: %q", served, exhausted, other)
		}
		t.Logf("%d served, %d told RESOURCE_EXHAUSTED", served, exhausted)
		waitNoJobs(t, d.client)
	})

	t.Run("garbage bytes do not hurt", func(t *testing.T) {
		for _, garbage := range []string{"GET / HTTP/1.1\r\n\r\n", "\x00\xff\x13\x37garbage\x00\x00\x00\x00", "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n\xff\xff\xff\xff\xff"} {
			c, err := net.Dial("unix", sock)
			if err != nil {
				t.Fatal(err)
			}
			_, _ = c.Write([]byte(garbage))
			_ = c.(*net.UnixConn).CloseWrite()
			// The daemon drops the connection: reading ends before the
			// deadline, which only guards against a hang.
			_ = c.SetReadDeadline(time.Now().Add(daemonDeadline))
			if _, err := io.Copy(io.Discard, c); errors.Is(err, os.ErrDeadlineExceeded) {
				t.Errorf("garbage %q: the connection stayed open", garbage)
			}
			c.Close()
		}
		r := runBin(t, nil, "solve", daemonSmall, "--remote", remote)
		if r.code != exitOK || !strings.HasPrefix(r.stdout, "solved level 1") {
			t.Errorf("after garbage: exit %d\n%s%s", r.code, r.stdout, r.stderr)
		}
	})

	t.Run("a second daemon is refused", func(t *testing.T) {
		r := runBin(t, []string{"SOKOD_LISTEN_UNIX=" + sock}, "serve")
		if r.code != exitFailure || !strings.Contains(r.stderr, "another sokod daemon is already listening") {
			t.Errorf("exit %d, stderr %q", r.code, r.stderr)
		}
	})

	t.Run("remote solve prints as the local solve", func(t *testing.T) {
		seconds := regexp.MustCompile(`[0-9.]+s  heuristic`)
		tests := []struct {
			name     string
			args     []string
			wantCode int // -1: whatever the local solve exits with
		}{
			{"solved", []string{"solve", smallLevels, "--level", "3"}, exitOK},
			{"solved optimal", []string{"solve", smallLevels, "--level", "7", "--objective", "pushes"}, exitOK},
			{"ida", []string{"solve", smallLevels, "--level", "3", "--objective", "pushes", "--strategy", "ida"}, exitOK},
			{"unsolvable", []string{"solve", unsolvableLevels, "--level", "1"}, exitUnsolvable},
			{"gave up", []string{"solve", benchLevels, "--objective", "pushes", "--heuristic", "simple", "--nodes", "50", "--planners", "none"}, exitGaveUp},
			{"planners", []string{"solve", benchLevels, "--objective", "pushes", "--heuristic", "simple", "--nodes", "50"}, -1},
			{"no such level", []string{"solve", smallLevels, "--level", "99"}, exitBadInput},
			{"bad file", []string{"solve", "testdata/bad.xsb"}, exitBadInput},
			{"unknown heuristic", []string{"solve", smallLevels, "--heuristic", "magic"}, exitUsage},
			{"unknown objective", []string{"solve", smallLevels, "--objective", "moves"}, exitUsage},
		}
		for _, tc := range tests {
			t.Run(tc.name, func(t *testing.T) {
				for _, asJSON := range []bool{false, true} {
					args := append(tc.args, "--memory", "16MiB")
					if asJSON {
						args = append(args, "--json")
					}
					local := runBin(t, nil, args...)
					rem := runBin(t, nil, append(args, "--remote", remote)...)
					want := tc.wantCode
					if want < 0 {
						want = local.code
					}
					if local.code != want || rem.code != want {
						t.Errorf("exit codes: local %d, remote %d, want %d\nremote stderr: %s", local.code, rem.code, want, rem.stderr)
					}
					if asJSON && local.stdout != "" {
						var lo, ro solveOutput
						if err := json.Unmarshal([]byte(local.stdout), &lo); err != nil {
							t.Fatal(err)
						}
						if err := json.Unmarshal([]byte(rem.stdout), &ro); err != nil {
							t.Fatalf("%v\n%s", err, rem.stdout)
						}
						lo.Seconds, ro.Seconds = 0, 0
						if diff := cmp.Diff(lo, ro); diff != "" {
							t.Errorf("JSON (-local +remote):\n%s", diff)
						}
						continue
					}
					if diff := cmp.Diff(seconds.ReplaceAllString(local.stdout, "Xs  heuristic"), seconds.ReplaceAllString(rem.stdout, "Xs  heuristic")); diff != "" {
						t.Errorf("stdout (-local +remote):\n%s", diff)
					}
					if tc.wantCode == exitUsage || tc.wantCode == exitBadInput {
						if local.stderr == "" || rem.stderr == "" || firstLine(local.stderr) != firstLine(rem.stderr) {
							t.Errorf("stderr: local %q, remote %q", local.stderr, rem.stderr)
						}
					}
				}
			})
		}
	})

	t.Run("no daemon", func(t *testing.T) {
		r := runBin(t, nil, "status", "--remote", filepath.Join(dir, "none.sock"))
		if r.code != exitFailure || !strings.Contains(r.stderr, "no daemon answers") {
			t.Errorf("exit %d, stderr %q", r.code, r.stderr)
		}
	})
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}

// waitNoJobs polls ListJobs until no job is left and no memory is
// accounted.
func waitNoJobs(t *testing.T, c sokodv1.SolverServiceClient) {
	t.Helper()
	ctx := deadlineContext(t)
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
			t.Fatalf("jobs left: %v", jobs)
		case <-time.After(20 * time.Millisecond):
		}
	}
}

func TestDaemonStaleSocket(t *testing.T) {
	sock := filepath.Join(shortDir(t), "s.sock")
	l, err := net.ListenUnix("unix", &net.UnixAddr{Name: sock, Net: "unix"})
	if err != nil {
		t.Fatal(err)
	}
	l.SetUnlinkOnClose(false)
	l.Close()
	d := startDaemon(t, sock)
	fi, err := os.Stat(sock)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o600 {
		t.Errorf("socket mode %v, want 0600", fi.Mode().Perm())
	}
	if err := d.cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	if code := d.wait(t); code != 0 {
		t.Errorf("exit code %d after SIGINT, want 0", code)
	}
	if _, err := os.Stat(sock); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("socket left behind: %v", err)
	}
}

// pluginPIDs returns the processes whose parent is ppid and whose
// executable is bin.
func pluginPIDs(t *testing.T, ppid int, bin string) []int {
	t.Helper()
	entries, err := os.ReadDir("/proc")
	if err != nil {
		t.Skipf("no /proc: %v", err)
	}
	var pids []int
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if exe, err := os.Readlink(filepath.Join("/proc", e.Name(), "exe")); err != nil || exe != bin {
			continue
		}
		if ppid == 0 || parentOf(pid) == ppid {
			pids = append(pids, pid)
		}
	}
	return pids
}

// parentOf reads a process's parent pid from /proc, 0 if it is gone.
func parentOf(pid int) int {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0
	}
	for line := range strings.SplitSeq(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "PPid:"); ok {
			n, _ := strconv.Atoi(strings.TrimSpace(v))
			return n
		}
	}
	return 0
}

// running reports whether pid is a live process (not gone, not a zombie).
func running(pid int) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	// The state follows the parenthesised command name.
	s := string(b)
	if i := strings.LastIndexByte(s, ')'); i >= 0 && i+2 < len(s) {
		return s[i+2] != 'Z' && s[i+2] != 'X'
	}
	return true
}

func TestDaemonSIGTERM(t *testing.T) {
	dir := shortDir(t)
	plugins := filepath.Join(dir, "plugins")
	bin := filepath.Join(plugins, "sokod-plugin-simple")
	if out, err := exec.Command("go", "build", "-o", bin, "../../plugins/heuristics/simple").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	d := startDaemon(t, filepath.Join(dir, "s.sock"), "SOKOD_PLUGINS_DIRS="+plugins, "SOKOD_SERVER_MAX_JOBS=1", "SOKOD_SERVER_QUEUE=2")
	ctx := deadlineContext(t)
	// One job on the plugin's heuristic runs, one waits in the queue.
	_, runningJob := longSolve(t, ctx, d.client, "plugin:simple")
	queued, err := d.client.Solve(ctx, &sokodv1.SolveRequest{Level: mustRead(t, daemonWarehouse)})
	if err != nil {
		t.Fatal(err)
	}
	if resp, err := queued.Recv(); err != nil || resp.GetAccepted().GetQueuePosition() != 1 {
		t.Fatalf("second job: %v, %v; want queued", resp, err)
	}
	pids := pluginPIDs(t, d.cmd.Process.Pid, bin)
	if len(pids) != 1 {
		t.Fatalf("plugin processes of the daemon: %v, want one", pids)
	}

	if err := d.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	for name, stream := range map[string]sokodv1.SolverService_SolveClient{"running": runningJob, "queued": queued} {
		res, _, err := finalResult(stream)
		if err != nil || res.GetStatus() != sokodv1.Status_STATUS_CANCELLED {
			t.Errorf("%s job: %v, %v; want CANCELLED", name, res, err)
		}
	}
	if code := d.wait(t); code != 0 {
		t.Errorf("exit code %d after SIGTERM, want 0", code)
	}
	// The daemon reaps its plugin before it exits; the kernel's
	// Pdeathsig would end it otherwise. Either way it must be gone.
	deadline := time.Now().Add(daemonDeadline)
	for running(pids[0]) {
		if time.Now().After(deadline) {
			t.Fatalf("plugin %d outlived the daemon", pids[0])
		}
		time.Sleep(20 * time.Millisecond)
	}
	if !strings.Contains(d.log.String(), "daemon stopped") {
		t.Errorf("log lacks the stop:\n%s", d.log.String())
	}
}
