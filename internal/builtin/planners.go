package builtin

import (
	"fmt"
	"strings"

	"github.com/sokod/sokod/internal/builtin/fess"
	"github.com/sokod/sokod/internal/builtin/packing"
	"github.com/sokod/sokod/internal/builtin/relocation"
	"github.com/sokod/sokod/sdk"
)

// PlannerSpec describes one built-in planner.
type PlannerSpec struct {
	// Name is the registry name ("packing", "fess").
	Name string
	// Summary is a one-line description for help texts.
	Summary string
	// New returns a planner. Each Plan call on it is independent.
	New func() sdk.Planner
}

// Planners returns the built-in planners, sorted by name. The slice is new
// on every call.
func Planners() []PlannerSpec {
	return []PlannerSpec{
		{
			Name:    "fess",
			Summary: "feature-space search after FESS: cycles over cells of (packed in order, regions, blocked doors, out-of-plan boxes), advisors propose box macro moves",
			New:     fess.New,
		},
		{
			Name:    "packing",
			Summary: "packing order from a reverse search from the goals, then a forward best-first search over box macro moves guided by it",
			New:     packing.New,
		},
		{
			Name:    "relocation",
			Summary: "Holland's limited search: reverse free space and pull routes spread the goals out, a forward search opens the start, relocation sub-searches close the gaps",
			New:     relocation.New,
		},
	}
}

// PlannerNames returns the names of the built-in planners, sorted.
func PlannerNames() []string {
	var names []string
	for _, p := range Planners() {
		names = append(names, p.Name)
	}
	return names
}

// LookupPlanner returns the built-in planner called name.
func LookupPlanner(name string) (PlannerSpec, error) {
	for _, p := range Planners() {
		if p.Name == name {
			return p, nil
		}
	}
	return PlannerSpec{}, fmt.Errorf("unknown planner %q (built-in: %s)", name, strings.Join(PlannerNames(), ", "))
}
