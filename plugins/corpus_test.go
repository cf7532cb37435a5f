package plugins_test

import (
	"context"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/sokod/sokod/board"
	"github.com/sokod/sokod/internal/engine"
	"github.com/sokod/sokod/internal/registry"
	"github.com/sokod/sokod/internal/supervisor"
	"github.com/sokod/sokod/sokoban"
)

// BenchmarkCorpusPluginVsBuiltin solves every level of the collections in
// $SOKOD_LEVELS named by $SOKOD_BENCH_FILES (default microban1.xsb) for
// fewest pushes, once with the built-in matching heuristic and once with
// the same heuristic served by its plugin (prepare round trip included),
// fails on any difference in status, nodes or pushes, and reports both
// times and their ratio; with $SOKOD_BENCH_REPS > 1 each level runs that
// many times and the fastest run of each counts. Run it with -benchtime=1x:
//
//	SOKOD_LEVELS=../../shared/levels go test -run '^$' -bench Corpus -benchtime=1x ./plugins/
func BenchmarkCorpusPluginVsBuiltin(b *testing.B) {
	dir := os.Getenv("SOKOD_LEVELS")
	if dir == "" {
		b.Skip("SOKOD_LEVELS is not set; skipping the corpus benchmark (point it at the benchmark level collections)")
	}
	reps := 1
	if r, err := strconv.Atoi(os.Getenv("SOKOD_BENCH_REPS")); err == nil && r > 0 {
		reps = r
	}
	files := filepath.SplitList(os.Getenv("SOKOD_BENCH_FILES"))
	if len(files) == 0 {
		files = []string{"microban1.xsb"}
	}
	var levels []*sokoban.Level
	for _, f := range files {
		src, err := os.ReadFile(filepath.Join(dir, f))
		if err != nil {
			b.Fatal(err)
		}
		c, err := sokoban.ParseCollection(string(src))
		if err != nil {
			b.Fatal(err)
		}
		levels = append(levels, c.Levels...)
	}
	host := supervisor.New(supervisor.Options{Dirs: []string{binDir}})
	b.Cleanup(host.Close)
	reg := registry.New(host, nil)
	ctx := context.Background()
	builtinH, err := reg.Heuristic(ctx, "matching")
	if err != nil {
		b.Fatal(err)
	}
	pluginH, err := reg.Heuristic(ctx, "plugin:matching")
	if err != nil {
		b.Fatal(err)
	}
	ws := engine.NewWorkspace(256 << 20)
	// solve returns the result and the time of the whole (prepare and
	// search), and adds the time of the prepare alone to *prep: the search
	// does the same work for both (the test fails otherwise), so the prepare
	// is where the plugin can cost more, and the rest of any difference is
	// noise from the machine.
	solve := func(h *registry.Heuristic, bd *engine.Board, prep *time.Duration) (*engine.Result, time.Duration) {
		start := time.Now()
		eh, err := h.Prepare(ctx, bd)
		if err != nil {
			b.Fatal(err)
		}
		*prep += time.Since(start)
		res, err := engine.Solve(ctx, bd, engine.Options{Objective: engine.ObjectivePushes, Heuristic: eh,
			Budget: engine.Budget{Nodes: 2_000_000}, Workspace: ws})
		if err != nil {
			b.Fatal(err)
		}
		return res, time.Since(start)
	}
	for b.Loop() {
		var tBuiltin, tPlugin, pBuiltin, pPlugin time.Duration
		var nodes int64
		solved := 0
		for i, l := range levels {
			bd, err := board.Analyze(l)
			if err != nil {
				b.Fatal(err)
			}
			// Alternate which goes first, so neither always finds the
			// caches warmed by the other, and keep each one's fastest of
			// reps runs, so that a burst of load from elsewhere on the
			// machine does not count against one of them.
			var rb, rp *engine.Result
			db, dp := time.Duration(math.MaxInt64), time.Duration(math.MaxInt64)
			var pb, pp time.Duration
			for rep := range reps {
				var d time.Duration
				var prep time.Duration
				if (i+rep)%2 == 0 {
					rb, d = solve(builtinH, bd, &prep)
					db, pb = min(db, d), prep
					prep = 0
					rp, d = solve(pluginH, bd, &prep)
					dp, pp = min(dp, d), prep
				} else {
					rp, d = solve(pluginH, bd, &prep)
					dp, pp = min(dp, d), prep
					prep = 0
					rb, d = solve(builtinH, bd, &prep)
					db, pb = min(db, d), prep
				}
			}
			tBuiltin += db
			tPlugin += dp
			pBuiltin += pb
			pPlugin += pp
			if rb.Status != rp.Status || rb.Stats.Nodes != rp.Stats.Nodes || rb.Metrics.Pushes != rp.Metrics.Pushes {
				b.Fatalf("level %d: built-in %v %d nodes %d pushes, plugin %v %d nodes %d pushes",
					i+1, rb.Status, rb.Stats.Nodes, rb.Metrics.Pushes, rp.Status, rp.Stats.Nodes, rp.Metrics.Pushes)
			}
			nodes += rb.Stats.Nodes
			if rb.Status == engine.Solved {
				solved++
			}
		}
		b.ReportMetric(float64(len(levels)), "levels")
		b.ReportMetric(float64(solved), "solved")
		b.ReportMetric(float64(nodes), "nodes")
		b.ReportMetric(tBuiltin.Seconds(), "builtin-s")
		b.ReportMetric(tPlugin.Seconds(), "plugin-s")
		b.ReportMetric(tPlugin.Seconds()/tBuiltin.Seconds(), "ratio")
		b.ReportMetric(pBuiltin.Seconds(), "builtin-prepare-s")
		b.ReportMetric(pPlugin.Seconds(), "plugin-prepare-s")
	}
}
