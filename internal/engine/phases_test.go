package engine

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestGetsBack checks the reverse search's test that the player, after a
// pull, can walk back to its region: a box left in the only passage
// between the two rooms cuts it off, one left elsewhere does not, and the
// last box's pull needs no way back.
func TestGetsBack(t *testing.T) {
	b := mustAnalyze(t, parseLevel(t, ""+
		"#########\n"+
		"#   #   #\n"+
		"# $@  . #\n"+
		"#   #   #\n"+
		"#########\n"))
	ps := newPhaseSearch(b)
	anchor := squareAt(t, b, 1, 2)
	passage, right, corner := squareAt(t, b, 4, 2), squareAt(t, b, 5, 2), squareAt(t, b, 7, 1)
	tests := []struct {
		name      string
		box, from uint16
		last      bool
		want      bool
	}{
		{"box in the passage", passage, right, false, false},
		{"box in the passage, last box", passage, right, true, true},
		{"box in a corner", corner, right, false, true},
	}
	for _, tc := range tests {
		ps.last = tc.last
		if got := ps.getsBack(tc.box, tc.from, anchor); got != tc.want {
			t.Errorf("%s: getsBack %v, want %v", tc.name, got, tc.want)
		}
	}
}

// TestPlanFromEitherSide: on XSokoban 50 the filled goal room cuts the
// board in two, and from the player's side at the start the room cannot be
// emptied; the plan comes from the other side (the solution ends there).
// Skips without SOKOD_LEVELS.
func TestPlanFromEitherSide(t *testing.T) {
	b := mustAnalyze(t, loadCollection(t, filepath.Join(levelsDir(t), "xsokoban90.xsb"))[49])
	ps := newPhaseSearch(b)
	anchors := ps.anchors()
	if len(anchors) < 2 {
		t.Fatalf("%d player regions in the solved position, want two or more", len(anchors))
	}
	if anchors[0] != b.StartPlayer {
		t.Errorf("first anchor %d, want the start square %d", anchors[0], b.StartPlayer)
	}
	if phases := ps.parkSearch(anchors[0]); phases != nil {
		t.Errorf("a plan from the start's side: %v", phases)
	}
	if newFillPlan(context.Background(), b) == nil {
		t.Error("no plan")
	}
}

// TestPlanWithoutWayBack: Sasquatch III 5 has no plan whose pulls all leave
// the player a way back, from any region; the plan made without that test
// is kept rather than none. Skips without SOKOD_LEVELS.
func TestPlanWithoutWayBack(t *testing.T) {
	b := mustAnalyze(t, loadCollection(t, filepath.Join(levelsDir(t), "sasquatch3.xsb"))[4])
	ps := newPhaseSearch(b)
	for _, anchor := range ps.anchors() {
		if phases := ps.plan(anchor); phases != nil {
			t.Fatalf("a plan with a way back from region of %d: %v", anchor, phases)
		}
	}
	if newFillPlan(context.Background(), b) == nil {
		t.Error("no plan")
	}
}

// TestParkSearch: on XSokoban 35 three goals at the back of the room are
// filled from the corridor below it, and the reverse search finds no start
// square for their boxes until it parks them there, one at a time, on the
// squares farthest from their goals; its first choice for the second box
// leaves no start square for the boxes parked, and it backtracks. With
// that plan the progress keying solves the level within a few thousand
// expansions (without parking it did not within 100,000). Skips without
// SOKOD_LEVELS.
func TestParkSearch(t *testing.T) {
	l := loadCollection(t, filepath.Join(levelsDir(t), "xsokoban90.xsb"))[34]
	b := mustAnalyze(t, l)
	ps := newPhaseSearch(b)
	ps.work, ps.bounded = maxPhaseWork, true
	phases := ps.parkSearch(ps.anchors()[0])
	if phases == nil {
		t.Fatal("no plan with parking")
	}
	var got []string
	for sq, g := range ps.parkedFor {
		if g != noSquare {
			got = append(got, fmt.Sprintf("%s for %s", squareNames(b, []uint16{uint16(sq)})[0], squareNames(b, []uint16{g})[0]))
		}
	}
	want := []string{"13,6 for 14,4", "14,7 for 15,3", "14,9 for 14,3"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("parking squares (-want +got):\n%s", diff)
	}
	if maxParkTries-ps.tries <= len(want) {
		t.Errorf("%d parkings tried, want a backtrack past %d", maxParkTries-ps.tries, len(want))
	}
	plan := newFillPlan(context.Background(), b)
	if st := runPacking(b, plan, packProgress, 0, 5000); st != Solved {
		t.Errorf("progress keying within 5,000 expansions: %v", st)
	}
}

// TestParkUntilReached: on XSokoban 74 the filled goal room walls the
// player off from most start squares. The reverse search parks boxes,
// emptying goals, until every start square has been in reach, and only
// then lets boxes leave; with that plan the subgoal keying solves the
// level within 5,000 expansions. When boxes could leave at once, one box
// was parked and no keying solved it within a million.
// Skips without SOKOD_LEVELS.
func TestParkUntilReached(t *testing.T) {
	b := mustAnalyze(t, loadCollection(t, filepath.Join(levelsDir(t), "xsokoban90.xsb"))[73])
	ps := newPhaseSearch(b)
	ps.work, ps.bounded = maxPhaseWork, true
	anchor := ps.anchors()[0]
	ps.reset()
	if ps.allReached(anchor) {
		t.Fatal("every start square in reach with the goals filled")
	}
	if ps.parkSearch(anchor) == nil {
		t.Fatal("no plan with parking")
	}
	parked := 0
	for _, g := range ps.parkedFor {
		if g != noSquare {
			parked++
		}
	}
	if parked < 5 {
		t.Errorf("%d boxes parked, want 5 or more", parked)
	}
	plan := newFillPlan(context.Background(), b)
	if st := runPacking(b, plan, packSubgoal, 0, 5000); st != Solved {
		t.Errorf("subgoal keying within 5,000 expansions: %v", st)
	}
}
