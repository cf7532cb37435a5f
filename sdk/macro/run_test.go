package macro

import (
	"context"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/sokod/sokod/sdk"
)

// TestRunLeg checks that a leg stops Tick at its share of the node budget
// with its own reason, that Over tells a spent leg from a spent plan, and
// that ending the leg gives the plan the rest of its budget.
func TestRunLeg(t *testing.T) {
	type stop struct {
		Nodes  uint64
		Reason string
		Over   bool
	}
	// ticks runs r until Tick stops it or 1000 expansions pass.
	ticks := func(r *Run) stop {
		for range 1000 {
			if done, reason := r.Tick(); done {
				return stop{r.Nodes, reason, r.Over()}
			}
		}
		return stop{r.Nodes, "", r.Over()}
	}
	for _, tc := range []struct {
		name   string
		budget sdk.Budget
		share  float64
		want   [2]stop // in the leg, then after it
	}{
		{"half of 100 nodes", sdk.Budget{Nodes: 100}, 0.5,
			[2]stop{{50, legSpent, false}, {100, "node budget spent", true}}},
		{"a quarter of 100 nodes", sdk.Budget{Nodes: 100}, 0.25,
			[2]stop{{25, legSpent, false}, {100, "node budget spent", true}}},
		{"all of it", sdk.Budget{Nodes: 100}, 1,
			[2]stop{{100, "node budget spent", true}, {101, "node budget spent", true}}},
		{"no budget", sdk.Budget{}, 0.5,
			[2]stop{{1000, "", false}, {2000, "", false}}},
		{"time only", sdk.Budget{Time: time.Hour}, 0.5,
			[2]stop{{1000, "", false}, {2000, "", false}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := NewRun(context.Background(), &sdk.PlanRequest{Budget: tc.budget}, nil)
			end := r.Leg(tc.share)
			var got [2]stop
			got[0] = ticks(r)
			end()
			got[1] = ticks(r)
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

// TestRunLegDeadline checks that a leg of a timed plan ends at its share
// of the time left, and that ending the leg lifts its deadline.
func TestRunLegDeadline(t *testing.T) {
	r := NewRun(context.Background(), &sdk.PlanRequest{Budget: sdk.Budget{Time: time.Hour}}, nil)
	before := time.Now()
	end := r.Leg(0.25)
	if lo, hi := before.Add(14*time.Minute), before.Add(16*time.Minute); r.legEnd.Before(lo) || r.legEnd.After(hi) {
		t.Errorf("leg ends %v after it began, want a quarter of an hour", r.legEnd.Sub(before))
	}
	r.legEnd = before // as if the leg's time had passed
	if done, reason := r.Tick(); !done || reason != legSpent || r.Over() || !r.Expired() {
		t.Errorf("past the leg's end: Tick (%v, %q), Over %v, Expired %v; want the leg spent, the plan not over",
			done, reason, r.Over(), r.Expired())
	}
	end()
	if done, reason := r.Tick(); done || r.Expired() {
		t.Errorf("after the leg: Tick (%v, %q), Expired %v; want the plan going on", done, reason, r.Expired())
	}
}

// TestRunNestedLeg checks that a leg within a leg takes its share of what
// is left of the enclosing leg, and that its end restores the enclosing
// leg.
func TestRunNestedLeg(t *testing.T) {
	r := NewRun(context.Background(), &sdk.PlanRequest{Budget: sdk.Budget{Nodes: 100, Time: time.Hour}}, nil)
	before := time.Now()
	outer := r.Leg(0.5)
	outerEnd := r.legEnd
	inner := r.Leg(0.5)
	got := struct {
		InnerNodes uint64
		InnerTime  bool
	}{r.legNodes, r.legEnd.Sub(before) > 14*time.Minute && r.legEnd.Sub(before) < 16*time.Minute}
	want := got
	want.InnerNodes, want.InnerTime = 25, true
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("inner leg of a half-hour, 50-node leg (-want +got):\n%s", diff)
	}
	inner()
	if r.legNodes != 50 || !r.legEnd.Equal(outerEnd) {
		t.Errorf("after the inner leg: %d nodes, end %v; want the outer leg's 50 nodes and end %v", r.legNodes, r.legEnd, outerEnd)
	}
	outer()
	if r.legNodes != 0 || !r.legEnd.IsZero() {
		t.Errorf("after both legs: leg of %d nodes ending %v, want none", r.legNodes, r.legEnd)
	}
}
