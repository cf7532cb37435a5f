package engine

import (
	"context"
	"math/rand/v2"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/sokod/sokod/sokoban"
)

// TestIDAAgainstOracle checks IDA* on the hand-made fixtures and on random
// rooms: push-optimal with an admissible bound, unsolvable exactly when the
// oracle says so, and a valid solution under objective any.
func TestIDAAgainstOracle(t *testing.T) {
	var levels []*sokoban.Level
	levels = append(levels, loadCollection(t, "testdata/small.xsb")...)
	levels = append(levels, loadCollection(t, "testdata/unsolvable.xsb")...)
	n := 150
	if testing.Short() {
		n = 30
	}
	rng := rand.New(rand.NewPCG(3, 4))
	for len(levels) < n {
		src := randomLevel(rng)
		if len(levels)%2 == 0 {
			src = tunnelLevel(rng) // rooms and a tunnel
		}
		if l, err := sokoban.Parse(src); src != "" && err == nil {
			levels = append(levels, l)
		}
	}
	for _, l := range levels {
		want := oraclePushes(l, 500_000)
		if want == -2 {
			continue
		}
		b := mustAnalyze(t, l)
		for _, rule := range []Rule{RuleSumMin, RuleMatching} {
			r, err := Solve(context.Background(), b, Options{Objective: ObjectivePushes, Strategy: StrategyIDA,
				Heuristic: testHeuristic(b, rule), Budget: Budget{Memory: 4 << 20}})
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(expectFromOracle(want), summarize(r)); diff != "" {
				t.Fatalf("level\n%s%s: (-oracle +IDA*):\n%s", l.XSB(), rule, diff)
			}
			if r.Status == Solved {
				checkSolution(t, l, r)
			}
		}
		r, err := Solve(context.Background(), b, Options{Objective: ObjectiveAny, Strategy: StrategyIDA,
			Heuristic: testHeuristic(b, RuleGreedy), Budget: Budget{Memory: 4 << 20}})
		if err != nil {
			t.Fatal(err)
		}
		wantStatus := Solved
		if want == -1 {
			wantStatus = Unsolvable
		}
		if r.Status != wantStatus || r.Optimal {
			t.Fatalf("level\n%sany/greedy: got %v optimal=%v, want %v", l.XSB(), r.Status, r.Optimal, wantStatus)
		}
		if r.Status == Solved {
			checkSolution(t, l, r)
		}
	}
}

// TestIDASmallTable: a table too small for one iteration ends IDA* as
// gave up for memory, never with a wrong answer.
func TestIDASmallTable(t *testing.T) {
	l := loadCollection(t, "testdata/bench.xsb")[0]
	b := mustAnalyze(t, l)
	r, err := Solve(context.Background(), b, Options{Objective: ObjectivePushes, Strategy: StrategyIDA,
		Heuristic: testHeuristic(b, RuleMatching), Budget: Budget{Memory: 64 << 10}})
	if err != nil {
		t.Fatal(err)
	}
	if r.Status != GaveUp || r.Reason != ReasonMemory {
		t.Errorf("got %v (%s), want gave up for memory", r.Status, r.Reason)
	}
}
