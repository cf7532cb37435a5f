package engine

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestSearchStages checks which searches a Solve runs: on a goal-room
// level under the default strategy, both packing keyings (with the goal
// macros of the options) beside the alternating search.
func TestSearchStages(t *testing.T) {
	b := mustAnalyze(t, loadCollection(t, "testdata/bench12.xsb")[0])
	type stage struct {
		Strategy Strategy
		Keying   packKeying
		Off      Techniques
	}
	tests := []struct {
		name      string
		objective Objective
		strategy  Strategy
		off       Techniques
		want      []stage
	}{
		{"default", ObjectiveAny, StrategyAlternate, 0, []stage{
			{StrategyPacking, packProgress, 0}, {StrategyPacking, packSubgoal, 0}, {StrategyAlternate, 0, 0}}},
		{"macros off", ObjectiveAny, StrategyAlternate, TechGoalMacros, []stage{
			{StrategyPacking, packProgress, TechGoalMacros}, {StrategyPacking, packSubgoal, TechGoalMacros}, {StrategyAlternate, 0, TechGoalMacros}}},
		{"packing alone", ObjectiveAny, StrategyPacking, 0, []stage{
			{StrategyPacking, packProgress, 0}, {StrategyPacking, packSubgoal, 0}}},
		{"packing off", ObjectiveAny, StrategyAlternate, TechPacking, []stage{{StrategyAlternate, 0, TechPacking}}},
		{"pushes", ObjectivePushes, StrategyAlternate, 0, []stage{{StrategyAlternate, 0, 0}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			opts := Options{Objective: tt.objective, Strategy: tt.strategy, Off: tt.off, Heuristic: testHeuristic(b, RuleMatching)}
			var got []stage
			for _, o := range searchStages(context.Background(), b, opts, &Stats{}) {
				got = append(got, stage{o.Strategy, o.keying, o.Off})
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("stages (-want +got):\n%s", diff)
			}
		})
	}
}

// TestPackingPriority checks that both packing keyings key a state by g and
// the packing term alone, whatever the heuristic's bound.
func TestPackingPriority(t *testing.T) {
	for _, keying := range []packKeying{packProgress, packSubgoal} {
		s := &searcher{}
		s.pk.keying, s.pkTerm = keying, 40
		got := []int{s.priority(byPacking, 3, 0), s.priority(byPacking, 3, 25)}
		if diff := cmp.Diff([]int{43, 43}, got); diff != "" {
			t.Errorf("keying %d: priorities at bounds 0 and 25 (-want +got):\n%s", keying, diff)
		}
	}
}
