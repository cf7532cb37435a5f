package main

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/spf13/pflag"

	"github.com/sokod/sokod/config"
	"github.com/sokod/sokod/internal/solver"
)

// TestFallbackDefaultsAgree holds the configuration's fall-back shares to
// the solver's: config cannot import the solver (it sits below it), so the
// defaults are written twice, and sokod solve, bench and serve pass the
// configuration's on. The search share is left at 0, so that the solver
// picks it by objective; the flag's help names the solver's two values.
func TestFallbackDefaultsAgree(t *testing.T) {
	type shares struct{ Search, Planner int }
	f := config.Default().Fallback
	got := shares{f.SearchShare, f.PlannerShare}
	want := shares{0, solver.DefaultPlannerShare}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("config.Default's fall-back shares differ from the solver's (-solver +config):\n%s", diff)
	}
	fs := pflag.NewFlagSet("sokod", pflag.ContinueOnError)
	config.RegisterFlags(fs)
	usage := fs.Lookup("search-share").Usage
	for _, s := range []string{
		fmt.Sprintf("%d under --objective any", solver.DefaultSearchShare),
		fmt.Sprintf("%d under pushes", solver.DefaultPushesSearchShare),
	} {
		if !strings.Contains(usage, s) {
			t.Errorf("--search-share's help %q does not say %q", usage, s)
		}
	}
}
