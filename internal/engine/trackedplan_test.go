package engine

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestLeaveTo checks where the search with the player followed takes a
// goal's box: not to the start square next to its goal but to one three
// squares off, and nowhere once that one is claimed.
func TestLeaveTo(t *testing.T) {
	b := mustAnalyze(t, parseLevel(t, ""+
		"###########\n"+
		"#         #\n"+
		"# $  . $  #\n"+
		"#      .  #\n"+
		"#  @      #\n"+
		"###########\n"))
	ps := newPhaseSearch(b)
	ps.work, ps.bounded = maxPhaseWork, true
	ps.trackedSearch(b.StartPlayer) // sets the thresholds up
	ps.reset()
	player := b.StartPlayer
	far := squareAt(t, b, 2, 2)
	type pick struct{ Goal, To string }
	name := func(sq uint16) string {
		if sq == noSquare {
			return "none"
		}
		return squareNames(b, []uint16{sq})[0]
	}
	var got []pick
	for _, g := range []uint16{squareAt(t, b, 5, 2), squareAt(t, b, 7, 3)} {
		s, _ := ps.leaveTo(g, player, len(b.Goals), false)
		got = append(got, pick{name(g), name(s)})
	}
	ps.used[far] = true
	s, _ := ps.leaveTo(squareAt(t, b, 5, 2), player, len(b.Goals), false)
	got = append(got, pick{"5,2 with 2,2 claimed", name(s)})
	want := []pick{{"5,2", "2,2"}, {"7,3", "2,2"}, {"5,2 with 2,2 claimed", "none"}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("start squares (-want +got):\n%s", diff)
	}
}

// TestTrackedPlan: on XSokoban 31 the search with the player followed
// gives a plan other than the engine's, every goal filled once and every
// parking square before its goal, and with it the bound keying solves the
// level within 10,000 expansions (with the engine's plan no keying did
// within 200,000). Skips without SOKOD_LEVELS.
func TestTrackedPlan(t *testing.T) {
	b := mustAnalyze(t, loadCollection(t, filepath.Join(levelsDir(t), "xsokoban90.xsb"))[30])
	plan := newTrackedPlan(context.Background(), b)
	if plan == nil {
		t.Fatal("no plan")
	}
	if plan.samePhases(newFillPlan(context.Background(), b)) {
		t.Error("the same plan as the engine's")
	}
	phase := map[uint16]int{}
	for k, targets := range plan.phases {
		for _, sq := range targets {
			if _, ok := phase[sq]; ok {
				t.Errorf("square %s in two phases", squareNames(b, []uint16{sq})[0])
			}
			phase[sq] = k
		}
	}
	for _, g := range b.Goals {
		if _, ok := phase[g]; !ok {
			t.Errorf("goal %s in no phase", squareNames(b, []uint16{g})[0])
		}
	}
	for _, p := range plan.park {
		if phase[p.sq] >= phase[p.goal] {
			t.Errorf("parking %s in phase %d, its goal in %d", squareNames(b, []uint16{p.sq})[0], phase[p.sq], phase[p.goal])
		}
	}
	if st := runPacking(b, plan, packBound, 0, 10_000); st != Solved {
		t.Errorf("bound keying within 10,000 expansions: %v", st)
	}
}

// TestRestartsTakePlansInTurns: where the two plans differ, a packing
// search's restarts take them in turns, each unperturbed on its first run
// and each's runs following the Luby sequence; the bound keying's search
// starts on the second plan, the others on the engine's. Skips without
// SOKOD_LEVELS.
func TestRestartsTakePlansInTurns(t *testing.T) {
	b := mustAnalyze(t, loadCollection(t, filepath.Join(levelsDir(t), "xsokoban90.xsb"))[30])
	plan := newFillPlan(context.Background(), b)
	if plan == nil {
		t.Fatal("no plan")
	}
	type run struct {
		Alt       bool
		Seed      uint64
		RestartAt int64
	}
	s1, s2 := runSeed(1), runSeed(2)
	for _, tc := range []struct {
		keying packKeying
		want   []run
	}{
		{packProgress, []run{{false, 0, 1024}, {true, 0, 1024}, {false, s1, 1024}, {true, s1, 1024}, {false, s2, 2048}}},
		{packBound, []run{{true, 0, 1024}, {false, 0, 1024}, {true, s1, 1024}, {false, s1, 1024}, {true, s2, 2048}}},
	} {
		opts := Options{Objective: ObjectiveAny, Strategy: StrategyPacking, Heuristic: testHeuristic(b, RuleMatching),
			plan: plan, keying: tc.keying, restartNodes: 1024}
		sc := &schedule{b: b, opts: opts, st: &Stats{}}
		sl := sc.add(context.Background(), opts, NewWorkspace(64<<20))
		var got []run
		for i := 0; i < 5; i++ {
			if i > 0 {
				sc.restart(context.Background(), sl)
			}
			got = append(got, run{sc.alt != nil && &sl.s.pk.phases[0] == &sc.alt.phases[0], sl.s.pk.seed, sl.restartAt})
		}
		sc.retire(sl, true)
		if sc.alt == nil {
			t.Fatal("XSokoban 31 has one plan")
		}
		if diff := cmp.Diff(tc.want, got); diff != "" {
			t.Errorf("keying %d: runs (-want +got):\n%s", tc.keying, diff)
		}
	}
}
