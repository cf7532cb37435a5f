package planners_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/sokod/sokod/internal/planners"
	"github.com/sokod/sokod/internal/planners/plannertest"
	"github.com/sokod/sokod/internal/supervisor"
	"github.com/sokod/sokod/sdk"
)

// TestPluginParity runs each built-in planner on levels of a collection
// twice, in-process and as a plugin process (the host's primitives then
// reached through the go-plugin broker), and checks that both settle the
// same levels with the same solutions. It runs only on request, and prints
// a table:
//
//	SOKOD_PARITY=1 SOKOD_LEVELS=../shared/levels SOKOD_PARITY_FILE=xsokoban90.xsb \
//	SOKOD_PARITY_ONLY=1-5 [SOKOD_PARITY_PLANNERS=fess,packing,relocation] \
//	[SOKOD_PARITY_NODES=20000] [SOKOD_PARITY_TIME=60s] \
//	go test -run TestPluginParity -v -timeout 0 ./plugins/planners
//
// The budget is expansions (SOKOD_PARITY_NODES) with the time only as a
// backstop, so that the machine's load does not decide the outcome; a
// planner whose steps are shared out by time (relocation's sub-searches)
// can still differ between two runs of either kind, and the table says so.
func TestPluginParity(t *testing.T) {
	if os.Getenv("SOKOD_PARITY") == "" {
		t.Skip("set SOKOD_PARITY=1 (and SOKOD_LEVELS, SOKOD_PARITY_FILE, SOKOD_PARITY_ONLY) to compare the planners in-process and as plugins")
	}
	names := strings.Split(envOr("SOKOD_PARITY_PLANNERS", strings.Join(planners.Names(), ",")), ",")
	c := plannertest.Corpus(t, envOr("SOKOD_PARITY_FILE", "xsokoban90.xsb"))
	only, err := plannertest.Only(os.Getenv("SOKOD_PARITY_ONLY"), len(c.Levels))
	if err != nil {
		t.Fatal(err)
	}
	budget := sdk.Budget{Time: time.Minute, Nodes: 20000}
	if v := os.Getenv("SOKOD_PARITY_TIME"); v != "" {
		if budget.Time, err = time.ParseDuration(v); err != nil {
			t.Fatalf("SOKOD_PARITY_TIME: %v", err)
		}
	}
	if v := os.Getenv("SOKOD_PARITY_NODES"); v != "" {
		if budget.Nodes, err = strconv.ParseUint(v, 10, 64); err != nil {
			t.Fatalf("SOKOD_PARITY_NODES: %v", err)
		}
	}

	dir := t.TempDir()
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

	t.Logf("%-10s %5s  %-28s %-28s", "planner", "level", "in-process", "plugin")
	same, total := 0, 0
	for _, n := range names {
		spec, err := planners.Lookup(n)
		if err != nil {
			t.Fatal(err)
		}
		p := host.Lookup(n)
		if p == nil {
			t.Fatalf("no plugin %s", n)
		}
		if err := p.Start(context.Background()); err != nil {
			t.Fatal(err)
		}
		for i, l := range c.Levels {
			i++
			if only != nil && !only[i] {
				continue
			}
			in, err := plannertest.Plan(context.Background(), spec.New(), l, budget)
			if err != nil {
				t.Fatalf("%s, level %d in-process: %v", n, i, err)
			}
			ext, err := plannertest.Plan(context.Background(), p.Planner(), l, budget)
			if err != nil {
				t.Fatalf("%s, level %d as a plugin: %v", n, i, err)
			}
			for _, o := range []*plannertest.Outcome{in, ext} {
				if o.Result.Status == sdk.PlanSolved && !o.Replayed {
					t.Errorf("%s, level %d: a solution that does not replay: %q", n, i, o.Result.Solution)
				}
			}
			total++
			mark := ""
			if in.Result.Status == ext.Result.Status && in.Result.Solution == ext.Result.Solution {
				same++
			} else {
				mark = "  differs"
				if n != "relocation" {
					t.Errorf("%s, level %d: in-process %s, as a plugin %s", n, i, outcome(in), outcome(ext))
				}
			}
			t.Logf("%-10s %5d  %-28s %-28s%s", n, i, outcome(in), outcome(ext), mark)
		}
	}
	t.Logf("same outcome and solution: %d of %d", same, total)
}

// outcome says briefly how a plan ended.
func outcome(o *plannertest.Outcome) string {
	s := fmt.Sprintf("%v %.1fs", o.Result.Status, o.Elapsed.Seconds())
	if o.Result.Status == sdk.PlanSolved {
		s = fmt.Sprintf("%v %d pushes %.1fs", o.Result.Status, o.Pushes, o.Elapsed.Seconds())
	}
	return s
}

func envOr(key, def string) string {
	if v := os.Getenv(key); v != "" {
		return v
	}
	return def
}
