package registry

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/sokod/sokod/board"
	"github.com/sokod/sokod/internal/engine"
	"github.com/sokod/sokod/internal/planners"
	"github.com/sokod/sokod/internal/supervisor"
	"github.com/sokod/sokod/sdk"
	"github.com/sokod/sokod/sokoban"
)

func TestRegistryList(t *testing.T) {
	dir := pluginDir(t, "matching", "good", "estimator", "chatty")
	h := supervisor.New(supervisor.Options{Dirs: []string{dir}, MinBackoff: time.Hour})
	t.Cleanup(h.Close)
	if err := h.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	type row struct {
		Name, Kind, Source, State string
		Caps                      []sdk.Capability
	}
	var got []row
	for _, c := range New(h, nil).List() {
		got = append(got, row{c.Name, string(c.Kind), filepath.Base(c.Source), string(c.State), c.Capabilities})
	}
	tables, adm, est := sdk.CapHeuristicTables, sdk.CapAdmissible, sdk.CapHeuristicEstimate
	want := []row{
		// The plugin that never started is listed by its binary alone.
		{"chatty", "", "sokod-plugin-chatty", "restarting", nil},
		{"estimator", "heuristic", "sokod-plugin-estimator", "ready", []sdk.Capability{est}},
		{"good", "heuristic", "sokod-plugin-good", "ready", []sdk.Capability{tables, adm}},
		{"greedy", "heuristic", "built-in", "ready", []sdk.Capability{tables}},
		{"matching", "heuristic", "built-in", "ready", []sdk.Capability{tables, adm}},
		{"plugin:matching", "heuristic", "sokod-plugin-matching", "ready", []sdk.Capability{tables, adm}},
		{"simple", "heuristic", "built-in", "ready", []sdk.Capability{tables, adm}},
	}
	for _, p := range planners.All() {
		want = append(want, row{p.Name, "planner", "built-in", "ready", []sdk.Capability{}})
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("List (-want +got):\n%s", diff)
	}
}

func TestRegistryPlanner(t *testing.T) {
	r := New(nil, nil)
	for _, spec := range planners.All() {
		p, err := r.Planner(context.Background(), spec.Name)
		if err != nil || p.Name != spec.Name || p.Source != SourceBuiltin || p.Planner == nil {
			t.Errorf("%s: %+v, %v", spec.Name, p, err)
		}
	}
	if _, err := r.Planner(context.Background(), "nothing"); err == nil || !strings.Contains(err.Error(), `unknown planner "nothing"`) {
		t.Errorf("unknown planner: %v", err)
	}
}

func TestRegistryResolve(t *testing.T) {
	h := newSupervisor(t, supervisor.Options{Dirs: []string{pluginDir(t, "greedy", "good", "estimator")}})
	r := New(h, nil)
	tests := []struct {
		name       string
		want       string // resolved name; "" for an error
		source     string
		admissible bool
		errText    string
	}{
		{name: "", want: "matching", source: SourceBuiltin, admissible: true},
		{name: "greedy", want: "greedy", source: SourceBuiltin},
		{name: "plugin:greedy", want: "plugin:greedy", source: "sokod-plugin-greedy"},
		{name: "good", want: "good", source: "sokod-plugin-good", admissible: true},
		{name: "plugin:good", want: "good", source: "sokod-plugin-good", admissible: true},
		{name: "plugin:simple", errText: `unknown heuristic "plugin:simple"`},
		{name: "nope", errText: "available: estimator, good, greedy, plugin:greedy, matching, simple"},
		{name: "estimator", want: "estimator", source: "sokod-plugin-estimator"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			hs, err := r.Heuristic(context.Background(), tt.name)
			if tt.errText != "" {
				if err == nil || !strings.Contains(err.Error(), tt.errText) {
					t.Fatalf("got %v, want an error containing %q", err, tt.errText)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			got := []any{hs.Name, filepath.Base(hs.Source), hs.Admissible}
			if diff := cmp.Diff([]any{tt.want, filepath.Base(tt.source), tt.admissible}, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

// TestPluginEqualsBuiltin checks that every built-in served as a plugin
// compiles to exactly the built-in's tables, and so that the search through
// it expands the same nodes and finds the same solutions.
// TestLazyStart checks that resolving a name starts that plugin only.
func TestLazyStart(t *testing.T) {
	h := supervisor.New(supervisor.Options{Dirs: []string{pluginDir(t, "good", "estimator")}})
	t.Cleanup(h.Close)
	hs, err := New(h, nil).Heuristic(context.Background(), "good")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := hs.Prepare(context.Background(), testBoard(t)); err != nil {
		t.Fatal(err)
	}
	got := map[string]supervisor.State{}
	for _, p := range h.Plugins() {
		got[p.Name()] = p.Status().State
	}
	if diff := cmp.Diff(map[string]supervisor.State{"good": supervisor.StateReady, "estimator": supervisor.StateStopped}, got); diff != "" {
		t.Errorf("states (-want +got):\n%s", diff)
	}
}

func TestPluginEqualsBuiltin(t *testing.T) {
	h := newSupervisor(t, supervisor.Options{Dirs: []string{pluginDir(t, builtinPlugins...)}})
	r := New(h, nil)
	src, err := os.ReadFile("../engine/testdata/small.xsb")
	if err != nil {
		t.Fatal(err)
	}
	c, err := sokoban.ParseCollection(string(src))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for _, name := range builtinPlugins {
		in, err := r.Heuristic(ctx, name)
		if err != nil {
			t.Fatal(err)
		}
		ext, err := r.Heuristic(ctx, PluginPrefix+name)
		if err != nil {
			t.Fatal(err)
		}
		if in.Admissible != ext.Admissible {
			t.Errorf("%s: admissible %v built-in, %v plugin", name, in.Admissible, ext.Admissible)
		}
		obj := engine.ObjectiveAny
		if in.Admissible {
			obj = engine.ObjectivePushes
		}
		for i, l := range c.Levels {
			t.Run(fmt.Sprintf("%s/level%d", name, i+1), func(t *testing.T) {
				b, err := board.Analyze(l)
				if err != nil {
					t.Fatal(err)
				}
				hi, err := in.Prepare(ctx, b)
				if err != nil {
					t.Fatal(err)
				}
				he, err := ext.Prepare(ctx, b)
				if err != nil {
					t.Fatal(err)
				}
				if diff := cmp.Diff(hi.Costs, he.Costs); diff != "" || hi.Rule != he.Rule || hi.Admissible != he.Admissible {
					t.Fatalf("tables differ (rule %v/%v, admissible %v/%v):\n%s", hi.Rule, he.Rule, hi.Admissible, he.Admissible, diff)
				}
				solve := func(h *engine.Heuristic) *engine.Result {
					res, err := engine.Solve(ctx, b, engine.Options{Objective: obj, Heuristic: h, Budget: engine.Budget{Memory: 1 << 20}})
					if err != nil {
						t.Fatal(err)
					}
					return res
				}
				ri, re := solve(hi), solve(he)
				type outcome struct {
					Status   engine.Status
					Nodes    int64
					Solution string
				}
				if diff := cmp.Diff(outcome{ri.Status, ri.Stats.Nodes, ri.Solution.String()}, outcome{re.Status, re.Stats.Nodes, re.Solution.String()}); diff != "" {
					t.Errorf("search differs (-built-in +plugin):\n%s", diff)
				}
			})
		}
	}
}

// TestSolveSurvivesPluginKill compiles a heuristic through its plugin,
// SIGKILLs the plugin, and solves: the search runs on the compiled tables
// and does not need the process, and the host restarts the plugin without
// waiting for a call.
func TestSolveSurvivesPluginKill(t *testing.T) {
	h := newSupervisor(t, supervisor.Options{Dirs: []string{pluginDir(t, "matching")}, MinBackoff: 50 * time.Millisecond})
	ctx := context.Background()
	hs, err := New(h, nil).Heuristic(ctx, "plugin:matching")
	if err != nil {
		t.Fatal(err)
	}
	b := testBoard(t)
	eh, err := hs.Prepare(ctx, b)
	if err != nil {
		t.Fatal(err)
	}
	p := h.Lookup("matching")
	pid := p.Status().PID
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	res, err := engine.Solve(ctx, b, engine.Options{Objective: engine.ObjectivePushes, Heuristic: eh, Budget: engine.Budget{Memory: 1 << 20}})
	if err != nil || res.Status != engine.Solved {
		t.Fatalf("solve after the plugin died: %v, %v", res, err)
	}
	st := waitReady(t, p, 2)
	if st.PID == pid {
		t.Errorf("pid %d unchanged", pid)
	}
	if _, err := hs.Prepare(ctx, b); err != nil {
		t.Errorf("prepare after the restart: %v", err)
	}
}

// TestBatchComponents solves through plugins that answer only in batches:
// a heuristic (Estimate) and a deadlock detector (Check) that is wrong on
// purpose. The search counts their batches, and claims no proof on the
// detector's verdicts.
func TestBatchComponents(t *testing.T) {
	h := newSupervisor(t, supervisor.Options{Dirs: []string{pluginDir(t, "estimator", "checker")}})
	r := New(h, nil)
	ctx := context.Background()
	hs, err := r.Heuristic(ctx, "estimator")
	if err != nil {
		t.Fatal(err)
	}
	ds, err := r.Deadlocks(ctx, "checker")
	if err != nil {
		t.Fatal(err)
	}
	l, err := sokoban.Parse("#######\n#@ $ .#\n# $ . #\n#     #\n#######\n")
	if err != nil {
		t.Fatal(err)
	}
	b, err := board.Analyze(l)
	if err != nil {
		t.Fatal(err)
	}
	eh, err := hs.Prepare(ctx, b)
	if err != nil {
		t.Fatal(err)
	}
	if eh.Estimator == nil || len(eh.Costs) != 0 {
		t.Fatalf("prepared %+v, want an estimator and no tables", eh)
	}
	ed, err := ds.Prepare(ctx, b)
	if err != nil {
		t.Fatal(err)
	}
	if ed.Checker == nil || ed.Trusted {
		t.Fatalf("prepared %+v, want an untrusted checker", ed)
	}
	res, err := engine.Solve(ctx, b, engine.Options{Objective: engine.ObjectiveAny, Heuristic: eh, Deadlocks: []*engine.Deadlocks{ed},
		BatchSize: 8, Budget: engine.Budget{Memory: 1 << 20}})
	if err != nil {
		t.Fatal(err)
	}
	if res.Status == engine.Unsolvable || res.Optimal {
		t.Errorf("%v (optimal %v): %s", res.Status, res.Optimal, res.Reason)
	}
	if res.Stats.Batches < 2 || res.Stats.BatchStates == 0 || res.Stats.BatchPruned == 0 {
		t.Errorf("%d batches of %d positions, %d pruned: want both components called, and the checker to prune", res.Stats.Batches, res.Stats.BatchStates, res.Stats.BatchPruned)
	}
	// Under objective pushes with the built-in bound, a solution found is
	// not claimed optimal, and no failure to find one is called a proof.
	mh, err := r.Heuristic(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	m, err := mh.Prepare(ctx, b)
	if err != nil {
		t.Fatal(err)
	}
	res, err = engine.Solve(ctx, b, engine.Options{Objective: engine.ObjectivePushes, Heuristic: m, Deadlocks: []*engine.Deadlocks{ed},
		BatchSize: 8, Budget: engine.Budget{Memory: 1 << 20}})
	if err != nil {
		t.Fatal(err)
	}
	if res.Status == engine.Unsolvable || res.Optimal || res.Stats.BatchPruned == 0 {
		t.Errorf("%v, optimal %v after %d prunings by the checker: %s", res.Status, res.Optimal, res.Stats.BatchPruned, res.Reason)
	}
	t.Logf("objective pushes: %v after %d prunings: %s", res.Status, res.Stats.BatchPruned, res.Reason)
}

// TestBatchPluginDies: a batch heuristic whose process is killed after
// Prepare fails the search with an error naming it, never a result.
func TestBatchPluginDies(t *testing.T) {
	h := newSupervisor(t, supervisor.Options{Dirs: []string{pluginDir(t, "estimator")}, MinBackoff: 50 * time.Millisecond})
	ctx := context.Background()
	hs, err := New(h, nil).Heuristic(ctx, "estimator")
	if err != nil {
		t.Fatal(err)
	}
	b := testBoard(t)
	eh, err := hs.Prepare(ctx, b)
	if err != nil {
		t.Fatal(err)
	}
	if err := syscall.Kill(h.Lookup("estimator").Status().PID, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	res, err := engine.Solve(ctx, b, engine.Options{Objective: engine.ObjectiveAny, Heuristic: eh, Budget: engine.Budget{Memory: 1 << 20}})
	var be *engine.BatchError
	if !errors.As(err, &be) || be.Component != "estimator" || be.Op != engine.OpEstimate {
		t.Fatalf("solve after the plugin died: %v, %v; want a BatchError from the estimator", res, err)
	}
}

// BenchmarkEstimate measures the batch path: one Estimate call through
// gRPC to a plugin process, per state, at several batch sizes.
func BenchmarkEstimate(b *testing.B) {
	h := newSupervisor(b, supervisor.Options{Dirs: []string{pluginDir(b, "estimator")}})
	bd := testBoard(b)
	ctx := context.Background()
	prep, err := h.Lookup("estimator").Heuristic().Prepare(ctx, sdk.LevelFromBoard(bd))
	if err != nil {
		b.Fatal(err)
	}
	for _, n := range []int{1, 64, 1024} {
		b.Run(fmt.Sprintf("batch=%d", n), func(b *testing.B) {
			states := sdk.NewStates(len(bd.StartBoxes), n)
			for range n {
				states.Append(bd.StartPlayer, bd.StartBoxes)
			}
			out := make([]uint32, n)
			b.ResetTimer()
			for b.Loop() {
				if err := prep.Estimator.Estimate(ctx, states, out); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N*n), "µs/state")
		})
	}
}

// BenchmarkPrepare compares compiling the matching heuristic in-process and
// through its plugin, on the engine's benchmark level.
func BenchmarkPrepare(b *testing.B) {
	h := newSupervisor(b, supervisor.Options{Dirs: []string{pluginDir(b, "matching")}})
	r := New(h, nil)
	src, err := os.ReadFile("../engine/testdata/bench.xsb")
	if err != nil {
		b.Fatal(err)
	}
	c, err := sokoban.ParseCollection(string(src))
	if err != nil {
		b.Fatal(err)
	}
	bd, err := board.Analyze(c.Levels[0])
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	for _, name := range []string{"matching", "plugin:matching"} {
		hs, err := r.Heuristic(ctx, name)
		if err != nil {
			b.Fatal(err)
		}
		b.Run(name, func(b *testing.B) {
			for b.Loop() {
				if _, err := hs.Prepare(context.Background(), bd); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
