// Package planners lists sokod's built-in planners: fess, packing and
// relocation, each in a package of its own written against the public SDK
// only (sdk, sdk/macro, board), exactly as a planner outside this
// repository would be, so that each can also be served as a plugin.
package planners

import (
	"fmt"
	"strings"

	"github.com/sokod/sokod/internal/planners/fess"
	"github.com/sokod/sokod/internal/planners/packing"
	"github.com/sokod/sokod/internal/planners/relocation"
	"github.com/sokod/sokod/sdk"
)

// Spec describes one built-in planner.
type Spec struct {
	// Name is the registry name ("packing", "fess").
	Name string
	// Summary is a one-line description for help texts.
	Summary string
	// New returns a planner. Each Plan call on it is independent.
	New func() sdk.Planner
}

// All returns the built-in planners, sorted by name. The slice is new on
// every call.
func All() []Spec {
	return []Spec{
		{
			Name:    "fess",
			Summary: "feature-space searches after Festival's strategies A and E: a base search pulls boxes back to their start squares for a parking plan that a forward search follows with advisors; a backward search spreads the boxes out and a forward search heads for that position; each meets its backward search's tree",
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

// Names returns the names of the built-in planners, sorted.
func Names() []string {
	var names []string
	for _, p := range All() {
		names = append(names, p.Name)
	}
	return names
}

// Lookup returns the built-in planner called name.
func Lookup(name string) (Spec, error) {
	for _, p := range All() {
		if p.Name == name {
			return p, nil
		}
	}
	return Spec{}, fmt.Errorf("unknown planner %q (built-in: %s)", name, strings.Join(Names(), ", "))
}
