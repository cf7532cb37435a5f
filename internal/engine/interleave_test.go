package engine

import (
	"context"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// TestInterleavedSearches: on a goal-room level the packing search's three
// keyings and the alternating search take turns. In turns of a few
// expansions every search gets its share, the node budget holds for all
// of them together, the parts of the workspace stay within the memory
// budget, and the solution replays.
func TestInterleavedSearches(t *testing.T) {
	l := loadCollection(t, "testdata/bench12.xsb")[0]
	b := mustAnalyze(t, l)
	const memory = 8 << 20
	// Without goal macros the searches take a few hundred expansions.
	opts := Options{Objective: ObjectiveAny, Heuristic: testHeuristic(b, RuleMatching), Budget: Budget{Memory: memory},
		turnNodes: 3, Off: TechGoalMacros}
	full, err := Solve(context.Background(), b, opts)
	if err != nil {
		t.Fatal(err)
	}
	if full.Status != Solved || !full.Stats.Packing {
		t.Fatalf("got %v (%s), packing search %v; want solved by searches in turns", full.Status, full.Reason, full.Stats.Packing)
	}
	checkSolution(t, l, full)
	// The packing search's keyings had turns, and so did the
	// alternating search, unless the solution came within the first turns.
	if full.Stats.PackingNodes == 0 || full.Stats.Nodes-full.Stats.PackingNodes == 0 && full.Stats.Nodes > 2*opts.turnNodes {
		t.Errorf("%d expansions, %d of them by the packing search: a search had no turn", full.Stats.Nodes, full.Stats.PackingNodes)
	}
	if full.Stats.MemoryUsed > memory {
		t.Errorf("the searches took %d bytes, over the budget of %d", full.Stats.MemoryUsed, memory)
	}

	type outcome struct {
		Status Status
		Reason string
		Nodes  int64
	}
	for nodes := int64(1); nodes < full.Stats.Nodes; nodes += 5 {
		o := opts
		o.Budget.Nodes = nodes
		r, err := Solve(context.Background(), b, o)
		if err != nil {
			t.Fatal(err)
		}
		if r.Status == Solved {
			checkSolution(t, l, r)
			continue
		}
		// Short of the expansions the solution took, every budget is spent
		// to the last expansion, by the searches together.
		if diff := cmp.Diff(outcome{GaveUp, ReasonNodes, nodes}, outcome{r.Status, r.Reason, r.Stats.Nodes}); diff != "" {
			t.Errorf("budget of %d expansions (-want +got):\n%s", nodes, diff)
		}
	}
}

// TestInterleavedProgress: the progress reports of searches in turns count
// the expansions of all of them, never go back, come at most once an
// interval, and carry the A* bound whichever search sends them.
func TestInterleavedProgress(t *testing.T) {
	l := loadCollection(t, "testdata/bench12.xsb")[0]
	b := mustAnalyze(t, l)
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	// Every reading advances the clock by 10 ms, so that the searches read
	// it every few expansions (see checkBudget).
	clock := func() time.Time { now = now.Add(10 * time.Millisecond); return now }
	var reports []Progress
	const interval = 25 * time.Millisecond
	r, err := Solve(context.Background(), b, Options{Objective: ObjectiveAny, Heuristic: testHeuristic(b, RuleMatching),
		Clock: clock, ProgressInterval: interval, turnNodes: 1, Off: TechGoalMacros,
		OnProgress: func(p Progress) { reports = append(reports, p) }})
	if err != nil {
		t.Fatal(err)
	}
	if r.Status != Solved || !r.Stats.Packing {
		t.Fatalf("got %v (%s), packing search %v; want solved by searches in turns", r.Status, r.Reason, r.Stats.Packing)
	}
	if len(reports) < 2 {
		t.Fatalf("%d progress reports over %d expansions", len(reports), r.Stats.Nodes)
	}
	for i, p := range reports {
		if p.Nodes > r.Stats.Nodes {
			t.Errorf("report %d counts %d expansions, more than the %d of the whole search", i, p.Nodes, r.Stats.Nodes)
		}
		if p.LowerBound < 0 {
			t.Errorf("report %d has no lower bound: the alternating search's A* list is left out", i)
		}
		if i > 0 && (p.Nodes < reports[i-1].Nodes || p.Elapsed < reports[i-1].Elapsed+interval) {
			t.Errorf("report %d (%d expansions at %v) does not follow report %d (%d at %v) by %v",
				i, p.Nodes, p.Elapsed, i-1, reports[i-1].Nodes, reports[i-1].Elapsed, interval)
		}
	}
	// In turns of one expansion none of the three searches has more than a
	// third of the expansions and one more, so a report with more counts
	// the others' too.
	if last := reports[len(reports)-1]; last.Nodes <= r.Stats.Nodes/3+1 {
		t.Errorf("the last report counts %d of the %d expansions: the other searches' are missing", last.Nodes, r.Stats.Nodes)
	}
}
