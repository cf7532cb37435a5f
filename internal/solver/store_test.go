package solver

import (
	"context"
	"errors"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/sokod/sokod/internal/engine"
	"github.com/sokod/sokod/internal/store"
	"github.com/sokod/sokod/sokoban"
)

func openStore(t *testing.T) *store.Store {
	t.Helper()
	s, err := store.Open(context.Background(), filepath.Join(t.TempDir(), "store.db"), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	return s
}

// ignoreRunDetails leaves out what varies from run to run, and the
// store run's reason, which carries a date.
var ignoreRunDetails = cmpopts.IgnoreFields(Run{}, "Elapsed", "Nodes", "Reason")

func TestStoreAnswersAKnownLevel(t *testing.T) {
	ctx := context.Background()
	st := openStore(t)
	l := level(t, twoBoxes)
	req := Request{Level: l, Objective: engine.ObjectiveAny, Heuristic: matching{}, Store: st}

	first, err := Solve(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	if first.Status != engine.Solved || first.FoundBy != "matching" {
		t.Fatalf("first solve: %v by %q, want solved by matching", first.Status, first.FoundBy)
	}
	second, err := Solve(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	want := []Run{{Phase: PhaseStore, Component: "store", Status: "solved"}}
	if diff := cmp.Diff(want, second.Runs, ignoreRunDetails); diff != "" {
		t.Errorf("second solve's runs (-want +got):\n%s", diff)
	}
	if second.FoundBy != FoundByStore || second.FoundIn != PhaseStore || second.Search.Nodes != 0 {
		t.Errorf("second solve: found by %q in %q after %d nodes, want the store and no search", second.FoundBy, second.FoundIn, second.Search.Nodes)
	}
	if m, err := sokoban.Replay(l, second.Solution); err != nil || !m.Solved || m != second.Metrics {
		t.Errorf("the store's solution %s does not replay to its metrics: %+v, %v", second.Solution, m, err)
	}
	if second.Optimal != first.Optimal {
		t.Errorf("the store's answer says optimal %v, the solve that found it %v", second.Optimal, first.Optimal)
	}
}

func TestStoreUnderObjectivePushes(t *testing.T) {
	ctx := context.Background()
	l := level(t, twoBoxes)
	sol, err := sokoban.ParseSolution(solution(t, twoBoxes))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		optimal bool  // the stored solution is proved
		nodes   int64 // the search's budget; 1 makes it give up
		runs    []Run
		foundBy string
		proved  bool
	}{
		{"a proved solution is the answer at once", true, 0,
			[]Run{{Phase: PhaseStore, Component: "store", Status: "solved"}}, FoundByStore, true},
		{"an unproved one is not: the search runs and proves", false, 0,
			[]Run{{Phase: PhaseSearch, Component: "matching", Status: "solved"}}, "matching", true},
		{"the search gives up: the stored solution is the answer", false, 1,
			[]Run{{Phase: PhaseSearch, Component: "matching", Status: "gave_up"}, {Phase: PhaseStore, Component: "store", Status: "solved"}}, FoundByStore, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			st := openStore(t)
			if _, err := st.Record(ctx, l, store.Found{Solution: sol, Optimal: tc.optimal, FoundBy: "test"}); err != nil {
				t.Fatal(err)
			}
			r, err := Solve(ctx, Request{Level: l, Objective: engine.ObjectivePushes, Heuristic: matching{}, Budget: Budget{Nodes: tc.nodes}, Store: st})
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.runs, r.Runs, ignoreRunDetails); diff != "" {
				t.Errorf("runs (-want +got):\n%s", diff)
			}
			if r.Status != engine.Solved || r.FoundBy != tc.foundBy || r.Optimal != tc.proved {
				t.Errorf("%v by %q, optimal %v; want solved by %q, optimal %v", r.Status, r.FoundBy, r.Optimal, tc.foundBy, tc.proved)
			}
			k, err := st.Lookup(ctx, l)
			if err != nil {
				t.Fatal(err)
			}
			if k.Pushes.Optimal != tc.proved {
				t.Errorf("stored proof %v after the solve, want %v", k.Pushes.Optimal, tc.proved)
			}
		})
	}
}

// brokenStore fails every call.
type brokenStore struct{}

func (brokenStore) Lookup(context.Context, *sokoban.Level) (*store.Known, error) {
	return nil, errors.New("disk on fire")
}

func (brokenStore) Record(context.Context, *sokoban.Level, store.Found) (store.Outcome, error) {
	return store.Outcome{}, errors.New("disk on fire")
}

func TestBrokenStoreCostsOnlyARun(t *testing.T) {
	r, err := Solve(context.Background(), Request{Level: level(t, twoBoxes), Objective: engine.ObjectiveAny, Heuristic: matching{}, Store: brokenStore{}})
	if err != nil {
		t.Fatal(err)
	}
	want := []Run{
		{Phase: PhaseStore, Component: "store", Status: "failed", Reason: "disk on fire"},
		{Phase: PhaseSearch, Component: "matching", Status: "solved"},
		{Phase: PhaseStore, Component: "store", Status: "failed", Reason: "disk on fire"},
	}
	if diff := cmp.Diff(want, r.Runs, cmpopts.IgnoreFields(Run{}, "Elapsed", "Nodes")); diff != "" {
		t.Errorf("runs (-want +got):\n%s", diff)
	}
	if r.Status != engine.Solved || r.FoundBy != "matching" {
		t.Errorf("%v by %q, want solved by matching", r.Status, r.FoundBy)
	}
}
