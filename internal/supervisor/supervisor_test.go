package supervisor

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/hashicorp/go-hclog"

	"github.com/sokod/sokod/board"
	"github.com/sokod/sokod/internal/engine"
	"github.com/sokod/sokod/internal/supervisor/supervisortest"
	"github.com/sokod/sokod/sdk"
	"github.com/sokod/sokod/sokoban"
)

// bins holds the binaries TestMain built: the test plugin, under each of
// its mode names. Set once before
// the tests run, then only read.
var bins *supervisortest.Binaries

func TestMain(m *testing.M) {
	if dir := os.Getenv(helperEnv); dir != "" {
		helperHost(dir)
		return
	}
	os.Exit(runTests(m))
}

func runTests(m *testing.M) int {
	b, err := supervisortest.Build()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer b.Remove()
	bins = b
	return m.Run()
}

// pluginDir returns a fresh directory holding the named plugins.
func pluginDir(t testing.TB, names ...string) string {
	t.Helper()
	return bins.PluginDir(t, names...)
}

// newHost starts a host over dirs with quick timeouts, closed at the end of
// the test. Its log goes to the returned buffer.
func newHost(t testing.TB, opts Options) (*Supervisor, *syncBuffer) {
	t.Helper()
	buf := &syncBuffer{}
	if opts.Logger == nil {
		opts.Logger = hclog.New(&hclog.LoggerOptions{Name: "sokod", Output: buf, Level: hclog.Info})
	}
	if opts.StartTimeout == 0 {
		opts.StartTimeout = 20 * time.Second
	}
	if opts.MinBackoff == 0 {
		opts.MinBackoff = 20 * time.Millisecond
	}
	h := New(opts)
	t.Cleanup(h.Close)
	if err := h.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	return h, buf
}

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// testBoard is a small level analysed by the engine.
func testBoard(t testing.TB) *engine.Board {
	t.Helper()
	l, err := sokoban.Parse("#######\n#@ $ .#\n# $ . #\n#######\n")
	if err != nil {
		t.Fatal(err)
	}
	b, err := board.Analyze(l)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// waitState polls until p reaches state or the deadline passes.
func waitState(t *testing.T, p *Plugin, want State, starts int) Status {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		st := p.Status()
		if st.State == want && st.Starts >= starts {
			return st
		}
		if time.Now().After(deadline) {
			t.Fatalf("plugin %s: state %s after %d starts, want %s after %d (last error %v)", p.Name(), st.State, st.Starts, want, starts, st.LastError)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// processGone reports whether pid has exited (or is a zombie waiting to be
// reaped, which is as dead as a process gets).
func processGone(pid int) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return syscall.Kill(pid, 0) != nil
	}
	// The state follows the command name in parentheses.
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	return i >= 0 && i+2 < len(s) && s[i+2] == 'Z'
}

func waitGone(t *testing.T, pid int) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !processGone(pid) {
		if time.Now().After(deadline) {
			t.Fatalf("process %d is still running", pid)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func TestDiscover(t *testing.T) {
	a, b := t.TempDir(), t.TempDir()
	write := func(dir, name string, mode os.FileMode) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte("#!/bin/sh\n"), mode); err != nil {
			t.Fatal(err)
		}
	}
	write(a, "sokod-plugin-one", 0o755)
	write(a, "sokod-plugin-two", 0o644)                                           // not executable
	write(a, "sokod-plugin-Bad_Name", 0o755)                                      // not a plugin name
	write(a, "unrelated", 0o755)                                                  // not a plugin
	write(b, "sokod-plugin-one", 0o755)                                           // shadowed by a's
	write(b, "sokod-plugin-three", 0o755)                                         // found
	if err := os.Mkdir(filepath.Join(b, "sokod-plugin-dir"), 0o755); err != nil { // a directory
		t.Fatal(err)
	}
	missing := filepath.Join(a, "missing")

	got, warnings := Discover([]string{a, missing, b})
	want := []Candidate{
		{Name: "one", Path: filepath.Join(a, "sokod-plugin-one")},
		{Name: "one", Path: filepath.Join(b, "sokod-plugin-one"), ShadowedBy: filepath.Join(a, "sokod-plugin-one")},
		{Name: "three", Path: filepath.Join(b, "sokod-plugin-three")},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Discover (-want +got):\n%s", diff)
	}
	var text []string
	for _, w := range warnings {
		text = append(text, w.Error())
	}
	wantWarnings := []string{"Bad_Name", "sokod-plugin-two is not an executable", "missing", "sokod-plugin-dir is not an executable"}
	if len(text) != len(wantWarnings) {
		t.Fatalf("warnings %q, want %d", text, len(wantWarnings))
	}
	for i, w := range wantWarnings {
		if !strings.Contains(text[i], w) {
			t.Errorf("warning %d = %q, want it to mention %q", i, text[i], w)
		}
	}
}

func TestStartCallAndClose(t *testing.T) {
	dir := pluginDir(t, "good")
	h, logs := newHost(t, Options{Dirs: []string{dir}})
	p := h.Lookup("good")
	st := p.Status()
	if st.State != StateReady || st.PID == 0 {
		t.Fatalf("status %+v", st)
	}
	want := &sdk.Info{Name: "good", Version: "0.0.1-test", Summary: "test plugin: good",
		Kinds: []sdk.Kind{sdk.KindHeuristic}, Capabilities: []sdk.Capability{sdk.CapHeuristicTables, sdk.CapAdmissible}}
	if diff := cmp.Diff(want, st.Info); diff != "" {
		t.Errorf("Info (-want +got):\n%s", diff)
	}
	b := testBoard(t)
	hp, err := p.Heuristic().Prepare(context.Background(), sdk.LevelFromBoard(b))
	if err != nil {
		t.Fatal(err)
	}
	if len(hp.Tables.Costs) != b.Squares*len(b.Goals) {
		t.Errorf("%d costs", len(hp.Tables.Costs))
	}
	// The plugin logs every level it prepares, in JSON on its stderr; the
	// host re-emits the line under its own logger and the plugin's name.
	deadline := time.Now().Add(5 * time.Second)
	for !strings.Contains(logs.String(), "preparing level") && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if out := logs.String(); !strings.Contains(out, "sokod.plugin.good") || !strings.Contains(out, "preparing level") || !strings.Contains(out, "width=7") {
		t.Errorf("plugin log line not re-emitted; host log:\n%s", out)
	}

	h.Close()
	waitGone(t, st.PID)
	if _, err := p.Heuristic().Prepare(context.Background(), sdk.LevelFromBoard(b)); !errors.Is(err, ErrClosed) {
		t.Errorf("after Close: %v, want ErrClosed", err)
	}
}

func TestAlwaysMTLS(t *testing.T) {
	h, _ := newHost(t, Options{Dirs: []string{pluginDir(t, "good")}, AlwaysMTLS: true})
	if _, err := h.Lookup("good").Heuristic().Prepare(context.Background(), sdk.LevelFromBoard(testBoard(t))); err != nil {
		t.Fatal(err)
	}
}

func TestStartFailures(t *testing.T) {
	good := bins.TestPlugin()
	sum, err := fileSHA256(good)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name      string
		plugin    string
		checksums map[string]string
		remove    bool // delete the binary between discovery and start
		wantKind  error
		wantState State
	}{
		{name: "pinned", plugin: "good", checksums: map[string]string{"good": sum}, wantState: StateReady},
		{name: "pinned upper-case", plugin: "good", checksums: map[string]string{"good": strings.ToUpper(sum)}, wantState: StateReady},
		{name: "checksum mismatch", plugin: "good", checksums: map[string]string{"good": strings.Repeat("0", 64)}, wantKind: ErrChecksum, wantState: StateDisabled},
		{name: "missing binary", plugin: "good", remove: true, wantKind: ErrNotFound, wantState: StateDisabled},
		{name: "stdout before handshake", plugin: "chatty", wantKind: ErrStart, wantState: StateRestarting},
		{name: "wrong name", plugin: "misnamed", wantKind: ErrStart, wantState: StateRestarting},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := pluginDir(t, tt.plugin)
			h := New(Options{Dirs: []string{dir}, Checksums: tt.checksums, StartTimeout: 20 * time.Second, MinBackoff: time.Hour})
			t.Cleanup(h.Close)
			if tt.remove {
				if err := os.Remove(filepath.Join(dir, BinaryPrefix+tt.plugin)); err != nil {
					t.Fatal(err)
				}
			}
			if err := h.Start(context.Background()); err != nil {
				t.Fatal(err)
			}
			p := h.Lookup(tt.plugin)
			st := p.Status()
			if st.State != tt.wantState {
				t.Errorf("state %s, want %s (error %v)", st.State, tt.wantState, st.LastError)
			}
			if tt.wantKind == nil {
				if st.LastError != nil {
					t.Errorf("error %v", st.LastError)
				}
				return
			}
			if !errors.Is(st.LastError, tt.wantKind) {
				t.Errorf("error %v, want %v", st.LastError, tt.wantKind)
			}
			// Calls fail at once, saying why.
			_, err := p.Heuristic().Prepare(context.Background(), sdk.LevelFromBoard(testBoard(t)))
			wantCall := ErrUnavailable
			if tt.wantState == StateDisabled {
				wantCall = ErrDisabled
			}
			if !errors.Is(err, wantCall) || !errors.Is(err, tt.wantKind) {
				t.Errorf("call: %v, want %v wrapping %v", err, wantCall, tt.wantKind)
			}
		})
	}
}

func TestCrashThenRestart(t *testing.T) {
	h, _ := newHost(t, Options{Dirs: []string{pluginDir(t, "crashonce")}, MinBackoff: 100 * time.Millisecond})
	p := h.Lookup("crashonce")
	first := p.Status()
	l := sdk.LevelFromBoard(testBoard(t))

	_, err := p.Heuristic().Prepare(context.Background(), l)
	if !errors.Is(err, ErrCrashed) {
		t.Fatalf("first call: %v, want ErrCrashed", err)
	}
	var perr *Error
	if !errors.As(err, &perr) || perr.Plugin != "crashonce" || perr.Op != "prepare heuristic" {
		t.Errorf("error %#v", err)
	}
	// While the plugin waits to restart, calls fail at once with the cause.
	if _, err := p.Heuristic().Prepare(context.Background(), l); !errors.Is(err, ErrUnavailable) || !errors.Is(err, ErrCrashed) {
		t.Errorf("during backoff: %v, want ErrUnavailable wrapping ErrCrashed", err)
	}
	waitGone(t, first.PID)
	st := waitState(t, p, StateReady, 2)
	if st.PID == first.PID {
		t.Errorf("same pid %d after restart", st.PID)
	}
	if _, err := p.Heuristic().Prepare(context.Background(), l); err != nil {
		t.Fatalf("after restart: %v", err)
	}
	if st := p.Status(); st.Failures != 0 {
		t.Errorf("failures %d after a successful call, want 0", st.Failures)
	}
}

func TestRepeatedFailuresDisable(t *testing.T) {
	h, _ := newHost(t, Options{Dirs: []string{pluginDir(t, "crashy")}, MaxFailures: 3})
	p := h.Lookup("crashy")
	l := sdk.LevelFromBoard(testBoard(t))
	for i := 1; i <= 3; i++ {
		waitState(t, p, StateReady, i)
		if _, err := p.Heuristic().Prepare(context.Background(), l); !errors.Is(err, ErrCrashed) {
			t.Fatalf("call %d: %v, want ErrCrashed", i, err)
		}
	}
	if st := p.Status(); st.State != StateDisabled || st.Failures != 3 {
		t.Fatalf("status %+v, want disabled after 3 failures", st)
	}
	if _, err := p.Heuristic().Prepare(context.Background(), l); !errors.Is(err, ErrDisabled) || !errors.Is(err, ErrCrashed) {
		t.Errorf("after disabling: %v, want ErrDisabled wrapping ErrCrashed", err)
	}
}

func TestHang(t *testing.T) {
	h, _ := newHost(t, Options{Dirs: []string{pluginDir(t, "hangs")}, CallTimeout: 300 * time.Millisecond, MinBackoff: time.Hour})
	p := h.Lookup("hangs")
	pid := p.Status().PID
	_, err := p.Heuristic().Prepare(context.Background(), sdk.LevelFromBoard(testBoard(t)))
	if !errors.Is(err, ErrHung) {
		t.Fatalf("got %v, want ErrHung", err)
	}
	waitGone(t, pid)
	if st := p.Status(); st.State != StateRestarting {
		t.Errorf("state %s, want restarting", st.State)
	}
}

func TestCallerCancelIsNotAFailure(t *testing.T) {
	h, _ := newHost(t, Options{Dirs: []string{pluginDir(t, "hangs")}, CallTimeout: time.Hour})
	p := h.Lookup("hangs")
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	_, err := p.Heuristic().Prepare(ctx, sdk.LevelFromBoard(testBoard(t)))
	if !errors.Is(err, context.DeadlineExceeded) || errors.Is(err, ErrHung) {
		t.Errorf("got %v, want the caller's deadline and no ErrHung", err)
	}
	if st := p.Status(); st.State != StateReady || st.Failures != 0 {
		t.Errorf("status %+v, want ready", st)
	}
}

func TestGarbage(t *testing.T) {
	h, _ := newHost(t, Options{Dirs: []string{pluginDir(t, "garbage")}, MinBackoff: time.Hour})
	p := h.Lookup("garbage")
	pid := p.Status().PID
	_, err := p.Heuristic().Prepare(context.Background(), sdk.LevelFromBoard(testBoard(t)))
	if !errors.Is(err, ErrGarbage) || !errors.Is(err, sdk.ErrBadAnswer) {
		t.Fatalf("got %v, want ErrGarbage wrapping sdk.ErrBadAnswer", err)
	}
	waitGone(t, pid)
}

func TestSessionLostInRestart(t *testing.T) {
	h, _ := newHost(t, Options{Dirs: []string{pluginDir(t, "estimator")}})
	p := h.Lookup("estimator")
	ctx := context.Background()
	b := testBoard(t)
	prep, err := p.Heuristic().Prepare(ctx, sdk.LevelFromBoard(b))
	if err != nil {
		t.Fatal(err)
	}
	states := sdk.NewStates(len(b.StartBoxes), 1)
	states.Append(b.StartPlayer, b.StartBoxes)
	out := make([]uint32, 1)
	if err := prep.Estimator.Estimate(ctx, states, out); err != nil || out[0] != 2 {
		t.Fatalf("Estimate = %v, %v; want 2", out, err)
	}

	pid := p.Status().PID
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	waitGone(t, pid)
	if err := prep.Estimator.Estimate(ctx, states, out); !errors.Is(err, ErrCrashed) {
		t.Fatalf("after SIGKILL: %v, want ErrCrashed", err)
	}
	waitState(t, p, StateReady, 2)
	if err := prep.Estimator.Estimate(ctx, states, out); !errors.Is(err, ErrStale) {
		t.Errorf("old session after restart: %v, want ErrStale", err)
	}
	if err := prep.Estimator.Release(ctx); err != nil {
		t.Errorf("releasing a lost session: %v", err)
	}
}

// helperEnv makes the test binary a helper host (see helperHost).
const helperEnv = "SOKOD_PLUGINHOST_TEST_HELPER"

// helperHost starts the plugins in dir, prints each process id on stdout,
// and waits to be killed.
func helperHost(dir string) {
	h := New(Options{Dirs: []string{dir}})
	if err := h.Start(context.Background()); err != nil {
		fmt.Println("error", err)
		os.Exit(1)
	}
	for _, p := range h.Plugins() {
		fmt.Println(p.Status().PID)
	}
	select {}
}
