package planners_test

import (
	"context"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/sokod/sokod/internal/engine"
	"github.com/sokod/sokod/internal/registry"
	"github.com/sokod/sokod/internal/solver"
	"github.com/sokod/sokod/internal/supervisor"
	"github.com/sokod/sokod/sdk"
	"github.com/sokod/sokod/sokoban"
)

// hard keeps a planner busy: the exhaustive search cannot finish it
// quickly and it may have no solution at all.
const hard = `
############
#          #
# $ # $ #  #
#   $   $  #
# # # # #  #
#  $  $    #
#.. ##### ##
#..@      #
#..########
####
`

// recorder is a planner that notes it ran and gives up.
type recorder struct {
	mu  sync.Mutex
	ran bool
}

func (r *recorder) Plan(context.Context, *sdk.PlanRequest, sdk.Host, func(sdk.PlanProgress)) (*sdk.PlanResult, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.ran = true
	return &sdk.PlanResult{Status: sdk.PlanGaveUp, Reason: "recorded"}, nil
}

// TestKilledPlannerFallsBack kills a planner plugin in the middle of its
// plan: the solve records the failure and goes on with the next planner,
// and the host restarts the plugin.
func TestKilledPlannerFallsBack(t *testing.T) {
	dir := t.TempDir()
	if b, err := exec.Command("go", "build", "-o", filepath.Join(dir, supervisor.BinaryPrefix+"fess"), "./fess").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, b)
	}
	host := supervisor.New(supervisor.Options{Dirs: []string{dir}, StartTimeout: 30 * time.Second, MinBackoff: 10 * time.Millisecond})
	t.Cleanup(host.Close)
	reg := registry.New(host, nil)
	ctx := context.Background()
	fess, err := reg.Planner(ctx, "plugin:fess")
	if err != nil {
		t.Fatal(err)
	}
	h, err := reg.Heuristic(ctx, "matching")
	if err != nil {
		t.Fatal(err)
	}
	l, err := sokoban.Parse(hard)
	if err != nil {
		t.Fatal(err)
	}
	plugin := host.Lookup("fess")
	pid := plugin.Status().PID
	var once sync.Once
	next := &recorder{}
	res, err := solver.Solve(ctx, solver.Request{
		Level: l, Objective: engine.ObjectiveAny, Heuristic: h,
		Planners: []solver.Planner{{Name: fess.Name, Planner: fess.Planner}, {Name: "next", Planner: next}},
		Budget:   solver.Budget{Nodes: 1, Time: 2 * time.Minute, Memory: 64 << 20},
		OnEvent: func(e solver.Event) {
			if e.Phase == solver.PhasePlan && e.Component == fess.Name {
				once.Do(func() {
					// Kill it once the plan is under way.
					time.AfterFunc(300*time.Millisecond, func() { _ = syscall.Kill(pid, syscall.SIGKILL) })
				})
			}
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	var got [][2]string
	for _, r := range res.Runs {
		got = append(got, [2]string{r.Component, r.Status})
	}
	want := [][2]string{{"matching", "gave_up"}, {"plugin:fess", "failed"}, {"next", "gave_up"}}
	if d := cmp.Diff(want, got); d != "" {
		t.Fatalf("runs (-want +got):\n%s\n%+v", d, res.Runs)
	}
	if reason := res.Runs[1].Reason; !strings.Contains(reason, "crashed") {
		t.Errorf("the killed planner's reason %q does not say it crashed", reason)
	}
	if res.Status != engine.GaveUp {
		t.Errorf("status %v, want gave up", res.Status)
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		st := plugin.Status()
		if st.State == supervisor.StateReady && st.PID != pid {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("plugin not restarted: %+v", st)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
