package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/types/known/durationpb"

	sokodv1 "github.com/sokod/sokod/proto/sokod/v1"
)

// chaos runs TestChaos, the reliability suite's load and fault test: it
// takes minutes and both cores, so it is not part of `go test ./...` or
// CI. Run it with
//
//	go test ./cmd/sokod -run TestChaos -sokod.chaos -v -timeout 30m
var chaos = flag.Bool("sokod.chaos", false, "run TestChaos, the load and fault test (minutes, both cores)")

// chaosLevels are the levels the clients solve: small and quick, the
// example of the README, one that takes seconds, and one of 200 boxes whose
// tables and expansions are large.
func chaosLevels(t *testing.T) []string {
	var rows strings.Builder
	rows.WriteString(strings.Repeat("#", 50) + "\n#@" + strings.Repeat(" ", 47) + "#\n")
	for range 10 {
		rows.WriteString("# " + strings.Repeat("$", 20) + strings.Repeat(" ", 7) + strings.Repeat(".", 20) + "#\n")
		rows.WriteString("#" + strings.Repeat(" ", 48) + "#\n")
	}
	rows.WriteString(strings.Repeat("#", 50) + "\n")
	return []string{mustRead(t, daemonSmall), mustRead(t, example), mustRead(t, daemonWarehouse), rows.String()}
}

// outcome is what one client saw.
type outcome struct {
	what string // "solved", "gave_up", ... or an RPC code
	took time.Duration
}

// chaosClient runs one random request against the daemon.
func chaosClient(ctx context.Context, d *daemon, levels []string, rng *rand.Rand) outcome {
	start := time.Now()
	level := levels[rng.IntN(len(levels))]
	switch r := rng.IntN(20); {
	case r == 0:
		_, err := d.client.Analyze(ctx, &sokodv1.AnalyzeRequest{Level: level})
		return outcome{"analyze " + status.Code(err).String(), time.Since(start)}
	case r == 1:
		_, err := d.client.Verify(ctx, &sokodv1.VerifyRequest{Level: level, Solution: "1000(999(lr))"})
		return outcome{"verify " + status.Code(err).String(), time.Since(start)}
	}
	opts := &sokodv1.SolveOptions{TimeLimit: durationpb.New(time.Duration(1+rng.IntN(4)) * time.Second)}
	switch rng.IntN(4) {
	case 0:
		opts.Heuristic = "plugin:matching"
	case 1:
		opts.UsePlanners, opts.Planners = new(true), []string{"plugin:fess"}
		opts.SearchShare = 10
	}
	cctx, cancel := context.WithCancel(ctx)
	defer cancel()
	if rng.IntN(8) == 0 {
		time.AfterFunc(time.Duration(rng.IntN(2000))*time.Millisecond, cancel)
	}
	stream, err := d.client.Solve(cctx, &sokodv1.SolveRequest{Level: level, Options: opts})
	if err != nil {
		return outcome{"solve " + status.Code(err).String(), time.Since(start)}
	}
	for {
		resp, err := stream.Recv()
		switch {
		case err != nil && status.Code(err) == codes.Canceled && cctx.Err() != nil:
			return outcome{"client cancelled", time.Since(start)}
		case err != nil:
			return outcome{"solve " + status.Code(err).String(), time.Since(start)}
		case resp.GetResult() != nil:
			return outcome{strings.ToLower(strings.TrimPrefix(resp.GetResult().GetStatus().String(), "STATUS_")), time.Since(start)}
		}
	}
}

// procStatus reads one field (in kB) of /proc/PID/status.
func procStatus(pid int, field string) int64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0
	}
	for line := range strings.SplitSeq(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, field+":"); ok {
			n, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			return n << 10
		}
	}
	return 0
}

// TestChaos is the reliability suite's load and fault test, behind
// -sokod.chaos: a daemon with plugins, within a memory cap, takes waves of
// 200 concurrent clients solving, cancelling, analysing and verifying;
// meanwhile its heuristic plugin is SIGKILLed and its planner plugin
// SIGSTOPped; then it is SIGTERMed under load. It reports how the load was
// held, the faults survived, the peak memory against the cap, and checks
// that every client got an answer, the daemon stopped cleanly and no
// plugin process was left.
func TestChaos(t *testing.T) {
	if !*chaos {
		t.Skip("the load and fault test runs with -sokod.chaos")
	}
	dir := shortDir(t)
	plugins := filepath.Join(dir, "plugins")
	for name, pkg := range map[string]string{"matching": "../../plugins/heuristics/matching", "fess": "../../plugins/planners/fess"} {
		if out, err := exec.Command("go", "build", "-o", filepath.Join(plugins, "sokod-plugin-"+name), pkg).CombinedOutput(); err != nil {
			t.Fatalf("go build %s: %v\n%s", pkg, err, out)
		}
	}
	const memoryCap, perJob = 768 << 20, 256 << 20
	metrics := freePort(t)
	d := startDaemon(t, filepath.Join(dir, "s.sock"), "SOKOD_PLUGINS_DIRS="+plugins, "SOKOD_SERVER_MAX_JOBS=2", "SOKOD_SERVER_QUEUE=64",
		"SOKOD_SERVER_MEMORY_CAP="+strconv.Itoa(memoryCap), "SOKOD_LIMITS_MEMORY="+strconv.Itoa(perJob), "SOKOD_LIMITS_TIME=5s",
		"SOKOD_LISTEN_METRICS="+metrics, "SOKOD_LOG_LEVEL=info")
	daemonPID := d.cmd.Process.Pid
	levels := chaosLevels(t)
	ctx := deadlineContext(t)

	wave := func(clients int, fault func()) map[string]int {
		var mu sync.Mutex
		counts := map[string]int{}
		var took []time.Duration
		var wg sync.WaitGroup
		for i := range clients {
			wg.Go(func() {
				o := chaosClient(ctx, d, levels, rand.New(rand.NewPCG(uint64(i), 29)))
				mu.Lock()
				counts[o.what]++
				took = append(took, o.took)
				mu.Unlock()
			})
		}
		if fault != nil {
			fault()
		}
		wg.Wait()
		sort.Slice(took, func(a, b int) bool { return took[a] < took[b] })
		t.Logf("%d clients: %v; answer times median %v, max %v", clients, counts, took[len(took)/2].Round(time.Millisecond), took[len(took)-1].Round(time.Millisecond))
		return counts
	}
	pluginPID := func(name string) int {
		pids := pluginPIDs(t, daemonPID, filepath.Join(plugins, "sokod-plugin-"+name))
		if len(pids) == 0 {
			return 0
		}
		return pids[0]
	}

	// Wave 1: load, and the heuristic plugin killed mid-way.
	start := time.Now()
	wave(200, func() {
		time.Sleep(2 * time.Second)
		if pid := pluginPID("matching"); pid != 0 {
			t.Logf("SIGKILL sokod-plugin-matching (pid %d)", pid)
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
	})
	// Wave 2: load, and the planner plugin stopped mid-way.
	wave(200, func() {
		time.Sleep(2 * time.Second)
		if pid := pluginPID("fess"); pid != 0 {
			t.Logf("SIGSTOP sokod-plugin-fess (pid %d)", pid)
			_ = syscall.Kill(pid, syscall.SIGSTOP)
		}
	})
	t.Logf("two waves of 200 clients in %v", time.Since(start).Round(time.Second))
	peak, rss := procStatus(daemonPID, "VmHWM"), procStatus(daemonPID, "VmRSS")
	t.Logf("daemon memory: peak %d MiB (VmHWM), now %d MiB, cap %d MiB plus %d MiB slack", peak>>20, rss>>20, memoryCap>>20, MemorySlack>>20)
	if peak > memoryCap+MemorySlack {
		t.Errorf("peak resident memory %d MiB, over the cap plus slack", peak>>20)
	}
	if resp, err := http.Get("http://" + metrics + "/metrics"); err == nil {
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		for line := range strings.SplitSeq(string(b), "\n") {
			if strings.HasPrefix(line, "sokod_plugin_") || strings.HasPrefix(line, "sokod_jobs_refused_total") || strings.HasPrefix(line, "sokod_solves_total") {
				t.Logf("metric %s", line)
			}
		}
	}
	time.Sleep(time.Second) // idle: memory given back
	t.Logf("daemon memory 1 s after the last job: %d MiB", procStatus(daemonPID, "VmRSS")>>20)

	// Wave 3: SIGTERM under load.
	pids := append(pluginPIDs(t, daemonPID, filepath.Join(plugins, "sokod-plugin-matching")),
		pluginPIDs(t, daemonPID, filepath.Join(plugins, "sokod-plugin-fess"))...)
	counts := wave(100, func() {
		time.Sleep(time.Second)
		t.Log("SIGTERM the daemon")
		_ = d.cmd.Process.Signal(syscall.SIGTERM)
	})
	if code := d.wait(t); code != 0 {
		t.Errorf("the daemon exited %d after SIGTERM", code)
	}
	for what, n := range counts {
		if strings.HasPrefix(what, "solve Internal") || strings.HasPrefix(what, "solve Unknown") {
			t.Errorf("%d clients failed with %s", n, what)
		}
	}
	for _, pid := range pids {
		if running(pid) {
			t.Errorf("plugin %d outlived the daemon", pid)
		}
	}
	t.Logf("after SIGTERM: daemon exited, %d plugin processes checked, none left", len(pids))
}
