package fess

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/sokod/sokod/board"
	"github.com/sokod/sokod/internal/planners/packing"
	"github.com/sokod/sokod/sdk"
	"github.com/sokod/sokod/sdk/macro"
)

// fixtureBoard analyses one of the planners' shared fixtures (plannertest
// imports this package, so its Fixture cannot be used here).
func fixtureBoard(t *testing.T, name string) *board.Board {
	t.Helper()
	src, err := os.ReadFile(filepath.Join("..", "plannertest", "testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return analyze(t, string(src))
}

// picks is what the two picks of the start position leave behind.
type picks struct {
	RootPhase uint8
	// Stored counts the nodes, root included.
	Stored int
	// Advised and Held count the children queued at weight 0 and held
	// back at weight 1; Queued1 the children queued at weight 1; Dead the
	// advisors' proposals found dead and stored as done.
	Advised, Held, Queued1, Dead int
}

func (s *search) census() picks {
	p := picks{RootPhase: s.phase[0], Stored: s.store.Len()}
	for k := 1; k < s.store.Len(); k++ {
		switch {
		case s.phase[k] == phaseAdvised && s.weight[k] == 0:
			p.Advised++
		case s.phase[k] == phaseDeferred && s.weight[k] == 1:
			p.Held++
		case s.phase[k] == phaseAdvised && s.weight[k] == 1:
			p.Queued1++
		case s.phase[k] == phaseDone:
			p.Dead++
		}
	}
	return p
}

// TestPicks checks the two picks of a position: the first stores every
// child, queuing the advised ones (those found dead as done) and holding
// the others back; the second generates nothing and queues the held-back
// children at weight 1. Past the store's hold limit, the first pick holds
// nothing back and the second generates the others again.
func TestPicks(t *testing.T) {
	for _, tc := range []struct {
		name string
		hold bool
	}{
		{"corridor.xsb", true}, {"goalroom.xsb", true}, {"rooms.xsb", true}, {"wide.xsb", true},
		{"rooms.xsb", false}, {"wide.xsb", false},
	} {
		name := tc.name
		t.Run(fmt.Sprintf("%s/hold=%v", name, tc.hold), func(t *testing.T) {
			b := fixtureBoard(t, name)
			plan := packing.Order(context.Background(), b)
			s := newSearch(b, plan, newTables(b, plan), 1<<16, tc.hold)
			run := macro.NewRun(context.Background(), &sdk.PlanRequest{}, nil)
			root := s.start()
			if sol, stop := s.expand(run, root); sol >= 0 || stop != "" {
				t.Fatalf("first pick: solved %d, stop %q", sol, stop)
			}
			first := s.census()
			if first.Advised == 0 || first.Advised > advisors || tc.hold && first.Held == 0 {
				t.Fatalf("first pick: %+v, want 1 to %d advised children and, holding, some held back", first, advisors)
			}
			want := picks{RootPhase: phaseRest, Stored: 1 + first.Advised + first.Held + first.Dead, Advised: first.Advised, Held: first.Held, Dead: first.Dead}
			if !tc.hold {
				want.Held, want.Stored = 0, 1+first.Advised+first.Dead
			}
			if diff := cmp.Diff(want, first); diff != "" {
				t.Errorf("after the first pick (-want +got):\n%s", diff)
			}
			if sol, stop := s.expand(run, root); sol >= 0 || stop != "" {
				t.Fatalf("second pick: solved %d, stop %q", sol, stop)
			}
			second := s.census()
			want = picks{RootPhase: phaseDone, Stored: first.Stored, Advised: first.Advised, Queued1: first.Held, Dead: first.Dead}
			if !tc.hold {
				// The second pick generated the others: some are new.
				if second.Queued1 == 0 {
					t.Fatalf("second pick without holding queued nothing: %+v", second)
				}
				want.Queued1, want.Stored = second.Queued1, first.Stored+second.Queued1
			}
			if diff := cmp.Diff(want, second); diff != "" {
				t.Errorf("after the second pick (-want +got):\n%s", diff)
			}
		})
	}
}

// TestBestCountsExpanded checks that a plan's best progress counts only
// positions it expanded, which passed the deadlock tests: after the first
// pick of the start position the children, some with more boxes on goals,
// are stored but not counted yet.
func TestBestCountsExpanded(t *testing.T) {
	b := fixtureBoard(t, "corridor.xsb")
	plan := packing.Order(context.Background(), b)
	s := newSearch(b, plan, newTables(b, plan), 1<<16, true)
	run := macro.NewRun(context.Background(), &sdk.PlanRequest{}, nil)
	root := s.start()
	if sol, stop := s.expand(run, root); sol >= 0 || stop != "" {
		t.Fatalf("first pick: solved %d, stop %q", sol, stop)
	}
	rootGoals, childGoals := macro.OnGoals(b, s.store.Boxes(root)), 0
	for k := 1; k < s.store.Len(); k++ {
		childGoals = max(childGoals, macro.OnGoals(b, s.store.Boxes(int32(k))))
	}
	if childGoals <= rootGoals {
		t.Fatalf("no child has more boxes on goals (%d) than the start (%d); the fixture no longer tests this", childGoals, rootGoals)
	}
	if run.Best != rootGoals {
		t.Errorf("best = %d after the first pick, want the start's %d (children stored with up to %d are not expanded yet)", run.Best, rootGoals, childGoals)
	}
}
