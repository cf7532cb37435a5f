package supervisor

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"syscall"
	"testing"
	"time"

	"github.com/sokod/sokod/internal/hostservice"
	"github.com/sokod/sokod/sdk"
)

// stop sends SIGSTOP to pid and returns once the process is stopped (the
// signal is delivered asynchronously); SIGCONT follows when the test ends.
func stop(t *testing.T, pid int) {
	t.Helper()
	if err := syscall.Kill(pid, syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = syscall.Kill(pid, syscall.SIGCONT) })
	deadline := time.Now().Add(10 * time.Second)
	for procState(pid) != 'T' {
		if time.Now().After(deadline) {
			t.Fatalf("process %d did not stop", pid)
		}
		time.Sleep(time.Millisecond)
	}
}

// procState is the state letter of /proc/PID/stat, 0 when unknown.
func procState(pid int) byte {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0
	}
	i := bytes.LastIndexByte(b, ')')
	if i < 0 || i+2 >= len(b) {
		return 0
	}
	return b[i+2]
}

// quickPings are health-check settings for tests: a stopped plugin is
// found within a second.
var quickPings = Options{PingInterval: 200 * time.Millisecond, PingTimeout: 300 * time.Millisecond}

// TestStoppedHeuristicIsCaught: a heuristic plugin stopped (SIGSTOP) in
// the middle of a job's call fails that call within the health check's
// bounds, not after the call timeout, and is restarted: the call timeout
// can be longer than the job's whole budget.
func TestStoppedHeuristicIsCaught(t *testing.T) {
	opts := quickPings
	opts.Dirs, opts.CallTimeout = []string{pluginDir(t, "good")}, time.Hour
	h, _ := newHost(t, opts)
	p := h.Lookup("good")
	stop(t, p.Status().PID)
	start := time.Now()
	_, err := p.Heuristic().Prepare(context.Background(), sdk.LevelFromBoard(testBoard(t)))
	if err == nil {
		t.Fatal("a stopped plugin answered")
	}
	if elapsed := time.Since(start); elapsed > 5*time.Second {
		t.Errorf("the call failed after %v", elapsed)
	}
	waitState(t, p, StateReady, 2)
	if _, err := p.Heuristic().Prepare(context.Background(), sdk.LevelFromBoard(testBoard(t))); err != nil {
		t.Errorf("after the restart: %v", err)
	}
}

// TestStoppedPlannerIsCaught: a planner plugin stopped while idle is
// found by its health check, killed and restarted; the next plan works.
// (It stayed "ready", and every later plan waited out its budget.)
func TestStoppedPlannerIsCaught(t *testing.T) {
	opts := quickPings
	opts.Dirs = []string{pluginDir(t, "planner")}
	h, _ := newHost(t, opts)
	p := h.Lookup("planner")
	stop(t, p.Status().PID)
	st := waitState(t, p, StateReady, 2)
	if !errors.Is(st.LastError, ErrHung) || st.Hangs != 1 {
		t.Errorf("last error %v after %d hangs, want ErrHung after 1", st.LastError, st.Hangs)
	}
	b := testBoard(t)
	res, err := p.Planner().Plan(context.Background(), &sdk.PlanRequest{Level: sdk.LevelFromBoard(b), Budget: sdk.Budget{Time: time.Minute}},
		hostservice.New(b, nil), nil)
	if err != nil || res.Status != sdk.PlanSolved {
		t.Errorf("plan after the restart: %+v, %v", res, err)
	}
}

// TestStartWaitsForALaunch: a call that needs a plugin the host is still
// starting waits for it, rather than failing as unavailable.
func TestStartWaitsForALaunch(t *testing.T) {
	h := New(Options{Dirs: []string{pluginDir(t, "slowstart")}})
	t.Cleanup(h.Close)
	go func() { _ = h.Start(context.Background()) }()
	p := h.Lookup("slowstart")
	for p.Status().State == StateStopped {
		time.Sleep(time.Millisecond)
	}
	if err := p.Start(context.Background()); err != nil {
		t.Errorf("Start during the launch: %v", err)
	}
}
