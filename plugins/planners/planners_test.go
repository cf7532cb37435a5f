// Package planners_test builds the planner plugins and solves levels
// through their real processes, the host's primitives reached through the
// go-plugin broker.
package planners_test

import (
	"context"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/sokod/sokod/board"
	"github.com/sokod/sokod/internal/hostservice"
	"github.com/sokod/sokod/internal/planners/plannertest"
	"github.com/sokod/sokod/internal/supervisor"
	"github.com/sokod/sokod/sdk"
	"github.com/sokod/sokod/sokoban"

	// The binaries are built by the test, outside its own dependencies;
	// importing their code makes a change to it invalidate go test's
	// cached result.
	_ "github.com/sokod/sokod/plugins/internal/builtinplugin"
)

// TestPlanThroughPlugin solves a goal-room fixture with each planner
// plugin, the built-ins served as plugins and the plugin guide's example,
// nearest, written against the public SDK alone.
func TestPlanThroughPlugin(t *testing.T) {
	dir := t.TempDir()
	names := []string{"fess", "packing", "relocation", "nearest"}
	for _, n := range names {
		out := filepath.Join(dir, supervisor.BinaryPrefix+n)
		if b, err := exec.Command("go", "build", "-o", out, "./"+n).CombinedOutput(); err != nil {
			t.Fatalf("go build %s: %v\n%s", n, err, b)
		}
	}
	host := supervisor.New(supervisor.Options{Dirs: []string{dir}, StartTimeout: 30 * time.Second})
	t.Cleanup(host.Close)
	if err := host.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	l := plannertest.Fixture(t, "goalroom.xsb")
	b, err := board.Analyze(l)
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range names {
		t.Run(n, func(t *testing.T) {
			p := host.Lookup(n)
			if p == nil {
				t.Fatalf("no plugin %s", n)
			}
			if info := p.Info(); info == nil || info.Name != n {
				t.Errorf("info %+v, want the name %s", info, n)
			}
			res, err := p.Planner().Plan(context.Background(),
				&sdk.PlanRequest{Level: sdk.LevelFromBoard(b), Budget: sdk.Budget{Time: time.Minute}},
				hostservice.New(b, nil), func(sdk.PlanProgress) {})
			if err != nil {
				t.Fatal(err)
			}
			if res.Status != sdk.PlanSolved {
				t.Fatalf("%+v, want solved", res)
			}
			sol, err := sokoban.ParseSolution(res.Solution)
			if err != nil {
				t.Fatal(err)
			}
			if m, err := sokoban.Replay(l, sol); err != nil || !m.Solved {
				t.Errorf("solution %q: %v, solved %v", res.Solution, err, m.Solved)
			}
		})
	}
}
