package plannertest_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/sokod/sokod/config"
	"github.com/sokod/sokod/internal/planners"
	"github.com/sokod/sokod/internal/planners/plannertest"
	"github.com/sokod/sokod/sdk"
)

// TestPlannerBench is the corpus benchmark of the built-in planners, run
// only on request, one level at a time:
//
//	SOKOD_PLANNER_BENCH=1 SOKOD_LEVELS=../shared/levels \
//	SOKOD_BENCH_PLANNER=packing SOKOD_BENCH_FILE=xsokoban90.xsb SOKOD_BENCH_TIME=30s \
//	[SOKOD_BENCH_ONLY=1,5,7-9] [SOKOD_BENCH_OUT=results.jsonl] [SOKOD_BENCH_NODES=20000] \
//	[SOKOD_BENCH_MEMORY=1GiB] go test -run TestPlannerBench -v -timeout 0 ./internal/planners/plannertest
//
// SOKOD_BENCH_NODES adds a budget of expansions: unlike time, it gives
// the same result on a busy machine, for comparing two versions of a
// planner's guidance (not its speed). It prints a line per level and a
// summary, and appends JSON lines to SOKOD_BENCH_OUT when set. Every
// solution is replayed independently.
func TestPlannerBench(t *testing.T) {
	if os.Getenv("SOKOD_PLANNER_BENCH") == "" {
		t.Skip("set SOKOD_PLANNER_BENCH=1 (and SOKOD_LEVELS) to run the planner benchmark")
	}
	name := envOr("SOKOD_BENCH_PLANNER", "packing")
	file := envOr("SOKOD_BENCH_FILE", "xsokoban90.xsb")
	budget, err := time.ParseDuration(envOr("SOKOD_BENCH_TIME", "30s"))
	if err != nil {
		t.Fatal(err)
	}
	spec, err := planners.Lookup(name)
	if err != nil {
		t.Fatal(err)
	}
	c := plannertest.Corpus(t, file)
	var nodes uint64
	if v := os.Getenv("SOKOD_BENCH_NODES"); v != "" {
		if nodes, err = strconv.ParseUint(v, 10, 64); err != nil {
			t.Fatalf("SOKOD_BENCH_NODES: %v", err)
		}
	}
	// Without SOKOD_BENCH_MEMORY each planner takes its own default, which
	// is smaller than the 1GiB the fall-back gives it.
	var memory config.ByteSize
	if v := os.Getenv("SOKOD_BENCH_MEMORY"); v != "" {
		if memory, err = config.ParseByteSize(v); err != nil {
			t.Fatalf("SOKOD_BENCH_MEMORY: %v", err)
		}
	}
	only, err := plannertest.Only(os.Getenv("SOKOD_BENCH_ONLY"), len(c.Levels))
	if err != nil {
		t.Fatal(err)
	}
	var out *os.File
	if p := os.Getenv("SOKOD_BENCH_OUT"); p != "" {
		out, err = os.OpenFile(p, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
		if err != nil {
			t.Fatal(err)
		}
		defer out.Close()
	}
	solved, tried := 0, 0
	var solvedList []string
	var total time.Duration
	for i, l := range c.Levels {
		if only != nil && !only[i+1] {
			continue
		}
		tried++
		o, err := plannertest.Plan(context.Background(), spec.New(), l, sdk.Budget{Time: budget, Nodes: nodes, MemoryBytes: uint64(memory)})
		if err != nil {
			t.Errorf("level %d: %v", i+1, err)
			continue
		}
		total += o.Elapsed
		ok := o.Result.Status == sdk.PlanSolved
		if ok && !o.Replayed {
			t.Errorf("level %d: the solution does not replay", i+1)
			ok = false
		}
		if ok {
			solved++
			solvedList = append(solvedList, strconv.Itoa(i+1))
		}
		fmt.Printf("%s %s %3d %-9s %6.1fs pushes %5d  %s\n", name, file, i+1, o.Result.Status, o.Elapsed.Seconds(), o.Pushes, o.Result.Reason)
		if out != nil {
			line, _ := json.Marshal(map[string]any{"planner": name, "file": file, "level": i + 1, "title": l.Title,
				"status": o.Result.Status.String(), "seconds": o.Elapsed.Seconds(), "pushes": o.Pushes, "reason": o.Result.Reason,
				"budget": budget.String(), "nodes": nodes})
			fmt.Fprintln(out, string(line))
		}
	}
	fmt.Printf("%s %s: solved %d of %d at %s per level in %.0fs: %s\n", name, file, solved, tried, budget, total.Seconds(), strings.Join(solvedList, " "))
}

func envOr(k, def string) string {
	if v := os.Getenv(k); v != "" {
		return v
	}
	return def
}
