package plannertest

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/sokod/sokod/board"
	"github.com/sokod/sokod/internal/hostservice"
	"github.com/sokod/sokod/sdk"
)

// Unsolvable is the fixture no planner can solve and none proves
// unsolvable: its boxes start frozen in a block only a position-wide
// freeze test sees.
const Unsolvable = "frozen.xsb"

// Exhausted is what a planner's reason says when it gave up because its
// search has no position left to expand.
const Exhausted = "search space exhausted"

// budgetSlack is how long past its budget (or a cancel) a plan may take to
// return: generous, since tests share a busy machine; the point is that it
// returns at all, not how fast.
const budgetSlack = 10 * time.Second

// Check runs the cases every planner must pass: it solves each fixture
// but Unsolvable, with a solution the host verified and an independent
// replay accepts; it gives up, not solves, when the host rejects every
// solution; it gives up on Unsolvable when its time budget or node budget
// runs out, or when it is cancelled, or before, saying so, once it has
// searched every position it would (a planner whose pruning sees
// Unsolvable's block); and it refuses a request without a level.
func Check(t *testing.T, newPlanner func() sdk.Planner) {
	t.Run("solves", func(t *testing.T) {
		for _, name := range Fixtures(t) {
			if name == Unsolvable {
				continue
			}
			t.Run(name, func(t *testing.T) {
				o, err := Plan(context.Background(), newPlanner(), Fixture(t, name), sdk.Budget{Time: time.Minute})
				if err != nil {
					t.Fatal(err)
				}
				got := struct {
					Status   sdk.PlanStatus
					Replayed bool
				}{o.Result.Status, o.Replayed}
				want := got
				want.Status, want.Replayed = sdk.PlanSolved, true
				if diff := cmp.Diff(want, got); diff != "" {
					t.Errorf("plan (-want +got):\n%s\nreason %q", diff, o.Result.Reason)
				}
			})
		}
	})
	t.Run("rejected", func(t *testing.T) {
		l := Fixture(t, "corridor.xsb")
		b, err := board.Analyze(l)
		if err != nil {
			t.Fatal(err)
		}
		host := rejecting{hostservice.New(b, nil)}
		res, err := newPlanner().Plan(context.Background(), &sdk.PlanRequest{Level: sdk.LevelFromBoard(b), Budget: sdk.Budget{Time: time.Minute}}, host, nil)
		if err != nil {
			t.Fatal(err)
		}
		if res.Status != sdk.PlanGaveUp || res.Solution != "" || !strings.Contains(res.Reason, "rejected") {
			t.Errorf("with every solution rejected: %+v, want gave_up naming the rejection and no solution", res)
		}
	})
	budgets := []struct {
		name   string
		budget sdk.Budget
		cancel time.Duration
		reason string
	}{
		{"time", sdk.Budget{Time: 300 * time.Millisecond}, 0, "time budget"},
		{"nodes", sdk.Budget{Time: time.Minute, Nodes: 50}, 0, "node budget"},
		{"cancel", sdk.Budget{Time: time.Minute}, 300 * time.Millisecond, "cancelled"},
	}
	for _, tt := range budgets {
		t.Run("gives up on "+tt.name, func(t *testing.T) {
			ctx := context.Background()
			if tt.cancel > 0 {
				var cancel context.CancelFunc
				ctx, cancel = context.WithTimeout(ctx, tt.cancel)
				defer cancel()
			}
			o, err := Plan(ctx, newPlanner(), Fixture(t, Unsolvable), tt.budget)
			if err != nil {
				t.Fatal(err)
			}
			reason := o.Result.Reason
			if o.Result.Status != sdk.PlanGaveUp || !strings.Contains(reason, tt.reason) && !strings.Contains(reason, Exhausted) {
				t.Errorf("plan %+v, want gave_up for %q", o.Result, tt.reason)
			}
			limit := tt.budget.Time
			if tt.cancel > 0 {
				limit = tt.cancel
			}
			if o.Elapsed > limit+budgetSlack {
				t.Errorf("returned after %v, budget %v", o.Elapsed, limit)
			}
		})
	}
	t.Run("no level", func(t *testing.T) {
		_, err := newPlanner().Plan(context.Background(), &sdk.PlanRequest{}, nil, nil)
		if !errors.Is(err, sdk.ErrBadRequest) {
			t.Errorf("error %v, want one wrapping sdk.ErrBadRequest", err)
		}
	})
}

// rejecting is a host whose verifier accepts nothing.
type rejecting struct{ sdk.Host }

func (rejecting) Verify(context.Context, string) (*sdk.Verification, error) {
	return &sdk.Verification{Error: "rejected by the test"}, nil
}
