package engine

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestLuby(t *testing.T) {
	want := []int64{1, 1, 2, 1, 1, 2, 4, 1, 1, 2, 1, 1, 2, 4, 8, 1}
	var got []int64
	for i := int64(1); i <= int64(len(want)); i++ {
		got = append(got, luby(i))
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("luby (-want +got):\n%s", diff)
	}
}

// TestKeyNoise checks that the perturbation stays below packNoise, takes
// every value there, and differs between seeds.
func TestKeyNoise(t *testing.T) {
	seen := make([]int, packNoise)
	same := 0
	for i := uint64(1); i <= 4096; i++ {
		h := i * 0x2545F4914F6CDD1D
		v := keyNoise(h, runSeed(1))
		if v < 0 || v >= packNoise {
			t.Fatalf("keyNoise(%#x) = %d, want 0 to %d", h, v, packNoise-1)
		}
		seen[v]++
		if keyNoise(h, runSeed(2)) == v {
			same++
		}
	}
	for v, n := range seen {
		if n == 0 {
			t.Errorf("keyNoise never gives %d", v)
		}
	}
	if same > 4096/packNoise*2 {
		t.Errorf("seeds 1 and 2 agree on %d of 4096 positions", same)
	}
}

// TestRestartSchedule checks that the packing searches start again under
// TechRestarts' control, within the node budget, and that the rest of the
// turns go on as before.
func TestRestartSchedule(t *testing.T) {
	levels := loadCollection(t, filepath.Join(levelsDir(t), "xsokoban90.xsb"))
	b := mustAnalyze(t, levels[28]) // XSokoban 29: no search solves it in the budget
	const unit, budget = 1024, 40 * 1024
	type outcome struct {
		Status   Status
		Restarts int64
		InBudget bool
	}
	for _, tc := range []struct {
		name string
		off  Techniques
		want outcome
	}{
		// Four searches take turns (the backward search is off: its
		// turns would take part of the budget), so each packing search
		// expands 10 units. The level has two plans, whose runs take turns, each
		// plan's 1 1 2 1 1 units long: runs of 1 1 1 1 2 2 1 1 units,
		// then the 9th runs on, so 8 restarts each.
		{"on", 0, outcome{GaveUp, 24, true}},
		// One plan: runs of 1 1 2 1 1 2 units, then the 7th runs on.
		{"second plan off", TechSecondPlan, outcome{GaveUp, 18, true}},
		{"off", TechRestarts, outcome{GaveUp, 0, true}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, err := Solve(context.Background(), b, Options{Objective: ObjectiveAny, Heuristic: testHeuristic(b, RuleMatching),
				Budget: Budget{Nodes: budget, Memory: 256 << 20}, turnNodes: 256, restartNodes: unit, Off: tc.off | TechBackward})
			if err != nil {
				t.Fatal(err)
			}
			if !r.Stats.Packing {
				t.Fatal("XSokoban 29 has no packing search")
			}
			got := outcome{r.Status, r.Stats.Restarts, r.Stats.Nodes <= budget}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s\nrestarts %d, nodes %d", diff, r.Stats.Restarts, r.Stats.Nodes)
			}
		})
	}
}

// TestPerturbedRuns records why the restarts exist: on XSokoban 10 the
// progress keying unperturbed does not solve the level within its budget,
// and a run with another seed solves it within the same budget.
func TestPerturbedRuns(t *testing.T) {
	levels := loadCollection(t, filepath.Join(levelsDir(t), "xsokoban90.xsb"))
	b := mustAnalyze(t, levels[9])
	plan := newFillPlan(context.Background(), b)
	if plan == nil {
		t.Fatal("XSokoban 10: no fill plan")
	}
	const budget = 25000
	var got []Status
	for run0 := int64(0); run0 <= 1; run0++ {
		got = append(got, runPacking(b, plan, packProgress, runSeed(run0), budget))
	}
	if diff := cmp.Diff([]Status{GaveUp, Solved}, got); diff != "" {
		t.Errorf("runs 0 and 1 within %d expansions (-want +got):\n%s", budget, diff)
	}
}
