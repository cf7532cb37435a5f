package engine

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestSearchStages checks which searches a Solve runs: on a goal-room
// level under the default strategy, the three packing keyings (with the
// goal macros of the options) beside the alternating search.
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
			{StrategyPacking, packProgress, 0}, {StrategyPacking, packSubgoal, 0}, {StrategyPacking, packBound, 0}, {StrategyAlternate, 0, 0}}},
		{"macros off", ObjectiveAny, StrategyAlternate, TechGoalMacros, []stage{
			{StrategyPacking, packProgress, TechGoalMacros}, {StrategyPacking, packSubgoal, TechGoalMacros},
			{StrategyPacking, packBound, TechGoalMacros}, {StrategyAlternate, 0, TechGoalMacros}}},
		{"packing alone", ObjectiveAny, StrategyPacking, 0, []stage{
			{StrategyPacking, packProgress, 0}, {StrategyPacking, packSubgoal, 0}, {StrategyPacking, packBound, 0}}},
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

// TestPackingPriority checks that the packing keyings key a state by g and
// the packing term alone, whatever the heuristic's bound.
func TestPackingPriority(t *testing.T) {
	for _, keying := range []packKeying{packProgress, packSubgoal, packBound} {
		s := &searcher{}
		s.pk.keying, s.pkTerm = keying, 40
		got := []int{s.priority(byPacking, 3, 0), s.priority(byPacking, 3, 25)}
		if diff := cmp.Diff([]int{43, 43}, got); diff != "" {
			t.Errorf("keying %d: priorities at bounds 0 and 25 (-want +got):\n%s", keying, diff)
		}
	}
}

// TestNearestGoal checks the bound keying's distances on a hand-made
// level: a lone box on the top row is pushed left to the goal, one in a
// corner or on the bottom row (nothing can push it up) never gets there.
func TestNearestGoal(t *testing.T) {
	b := mustAnalyze(t, parseLevel(t, "######\n#.$  #\n#   @#\n######\n"))
	near := b.NearestGoal()
	got := map[string]uint16{}
	for sq := uint16(0); int(sq) < b.Squares; sq++ {
		got[squareNames(b, []uint16{sq})[0]] = near[sq]
	}
	want := map[string]uint16{
		"1,1": 0, "2,1": 1, "3,1": 2, "4,1": Inf,
		"1,2": Inf, "2,2": Inf, "3,2": Inf, "4,2": Inf,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("nearest-goal distances (-want +got):\n%s", diff)
	}
	if near[b.Squares] != Inf {
		t.Errorf("the wall sentinel's distance is %d, want Inf", near[b.Squares])
	}
}

// TestBoundKeying: on XSokoban 40 and 44 the progress keying, which
// counts only the pushes that bring no box nearer its goals, does not
// solve the level within 10,000 expansions; the bound keying, which also
// charges the boxes' distances to their nearest goals, solves both. Each
// keying runs alone, as in a Solve's turns. Skips without SOKOD_LEVELS.
func TestBoundKeying(t *testing.T) {
	levels := loadCollection(t, filepath.Join(levelsDir(t), "xsokoban90.xsb"))
	const budget = 10000
	type outcome struct {
		Level    int
		Progress Status
		Bound    Status
	}
	var got, want []outcome
	for _, n := range []int{40, 44} {
		b := mustAnalyze(t, levels[n-1])
		plan := newFillPlan(context.Background(), b)
		if plan == nil {
			t.Fatalf("XSokoban %d: no fill plan", n)
		}
		got = append(got, outcome{n, runPacking(b, plan, packProgress, 0, budget), runPacking(b, plan, packBound, 0, budget)})
		want = append(want, outcome{n, GaveUp, Solved})
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("within %d expansions (-want +got):\n%s", budget, diff)
	}
}

// TestParkingTargets checks how the packing guide counts a parking square.
// The plan is made up: phase 0 parks a box on p for goal g, phase 1 fills
// goal x, phase 2 fills g. The parking square counts as filled while a box
// stands on it, and once every phase before g's is filled whether or not
// one does; a box on g before then fills nothing; a box on p is at home
// until g's phase comes.
func TestParkingTargets(t *testing.T) {
	b := mustAnalyze(t, loadCollection(t, "testdata/bench12.xsb")[0])
	g, x := b.Goals[0], b.Goals[1]
	var p uint16
	for sq := uint16(0); int(sq) < b.Squares; sq++ {
		if b.GoalIndex[sq] < 0 && !b.Dead[sq] {
			p = sq
			break
		}
	}
	dist := make([][]uint16, len(b.Goals))
	for i := range dist {
		dist[i] = make([]uint16, b.Squares+1)
	}
	plan := &fillPlan{phases: [][]uint16{{p}, {x}, {g}}, dist: dist, park: []parking{{sq: p, goal: g, dist: make([]uint16, b.Squares+1)}}}
	var pk packGuide
	pk.init(b, plan, packProgress, 0)
	type state struct {
		Done, Cur     int
		HomeOnParking bool
	}
	tests := []struct {
		name  string
		boxes []uint16
		want  state
	}{
		{"empty", nil, state{Done: 0, Cur: 0, HomeOnParking: true}},
		{"goal filled before its phase", []uint16{g}, state{Done: 0, Cur: 0, HomeOnParking: true}},
		{"parked", []uint16{p}, state{Done: 1, Cur: 1, HomeOnParking: true}},
		{"parked, next phase filled", []uint16{p, x}, state{Done: 2, Cur: 2, HomeOnParking: false}},
		{"parked box on its way to the goal", []uint16{x}, state{Done: 2, Cur: 2, HomeOnParking: false}},
		{"delivered", []uint16{x, g}, state{Done: 3, Cur: 3, HomeOnParking: false}},
	}
	for _, tt := range tests {
		boxAt := make([]int16, b.Squares+1)
		for i := range boxAt {
			boxAt[i] = -1
		}
		for i, sq := range tt.boxes {
			boxAt[sq] = int16(i)
		}
		done := pk.packPhase(boxAt)
		got := state{Done: done, Cur: pk.cur, HomeOnParking: pk.home(p)}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tt.name, diff)
		}
	}
}

// TestParkingPlan: on XSokoban 87 the top row of the goal room can only be
// filled from the room above it, so the fill plan parks boxes there before
// the row below is filled; each parking square comes in a phase before its
// goal's, and the packing search solves the level within a few thousand
// expansions (it did not within 100,000 without parking). Skips without
// SOKOD_LEVELS.
func TestParkingPlan(t *testing.T) {
	l := loadCollection(t, filepath.Join(levelsDir(t), "xsokoban90.xsb"))[86]
	b := mustAnalyze(t, l)
	plan := newFillPlan(context.Background(), b)
	if plan == nil || len(plan.park) == 0 {
		t.Fatalf("plan %v: no parking squares", plan != nil)
	}
	phase := map[uint16]int{}
	for k, targets := range plan.phases {
		for _, sq := range targets {
			phase[sq] = k
		}
	}
	for _, p := range plan.park {
		if phase[p.sq] >= phase[p.goal] {
			t.Errorf("parking square %v in phase %d, its goal %v in phase %d", squareNames(b, []uint16{p.sq}), phase[p.sq], squareNames(b, []uint16{p.goal}), phase[p.goal])
		}
	}
	r, err := Solve(context.Background(), b, Options{Objective: ObjectiveAny, Strategy: StrategyPacking, Heuristic: testHeuristic(b, RuleMatching),
		Budget: Budget{Nodes: 20000, Memory: 64 << 20}})
	if err != nil {
		t.Fatal(err)
	}
	if r.Status != Solved {
		t.Fatalf("%v (%s) after %d expansions", r.Status, r.Reason, r.Stats.Nodes)
	}
	checkSolution(t, l, r)
}

// runPacking runs one packing search (keying, seed) on b for at most
// budget expansions and returns how it ended, GaveUp when the budget did.
func runPacking(b *Board, plan *fillPlan, keying packKeying, seed uint64, budget int64) Status {
	s := newSearcher(b, testHeuristic(b, RuleMatching), Options{Objective: ObjectiveAny, Strategy: StrategyPacking,
		plan: plan, keying: keying, seed: seed}, NewWorkspace(256<<20))
	defer s.finish()
	st, _, _, end := s.begin()
	for !end && s.nodes < budget {
		st, _, _, end = s.step()
	}
	if !end {
		return GaveUp
	}
	return st
}
