package main

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/sokod/sokod/config"
	"github.com/sokod/sokod/internal/solver"
)

// TestFallbackDefaultsAgree holds the configuration's fall-back shares to
// the solver's: config cannot import the solver (it sits below it), so the
// two defaults are written twice, and sokod solve, bench and serve pass
// the configuration's on.
func TestFallbackDefaultsAgree(t *testing.T) {
	type shares struct{ Search, Planner int }
	f := config.Default().Fallback
	got := shares{f.SearchShare, f.PlannerShare}
	want := shares{solver.DefaultSearchShare, solver.DefaultPlannerShare}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("config.Default's fall-back shares differ from the solver's (-solver +config):\n%s", diff)
	}
}
