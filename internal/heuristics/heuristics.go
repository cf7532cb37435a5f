// Package heuristics holds sokod's built-in heuristics. They compile, once
// per level, to the tables the engine evaluates natively (engine.Heuristic),
// the same form an external heuristic plugin returns, so the daemon works
// with no plugin installed.
package heuristics

import (
	"fmt"
	"slices"
	"strings"

	"github.com/sokod/sokod/internal/engine"
)

// Spec describes one built-in heuristic.
type Spec struct {
	// Name is the registry name ("simple", "greedy", "matching").
	Name string
	// Summary is a one-line description for help texts.
	Summary string
	// Admissible says the compiled bound never overestimates, so it can
	// prove push-optimality.
	Admissible bool
	// Prepare compiles the heuristic for one analysed board.
	Prepare func(b *engine.Board) (*engine.Heuristic, error)
}

// Default is the heuristic used when none is named.
const Default = "matching"

// All returns the built-in heuristics, sorted by name. The slice is new on
// every call.
func All() []Spec {
	return []Spec{
		{
			Name:       "greedy",
			Summary:    "greedy matching of boxes to goals by push distance (fast; not admissible)",
			Admissible: false,
			Prepare:    func(b *engine.Board) (*engine.Heuristic, error) { return Greedy(b), nil },
		},
		{
			Name:       "matching",
			Summary:    "minimum-cost perfect matching of boxes to goals by push distance (admissible; finds bipartite deadlocks)",
			Admissible: true,
			Prepare:    func(b *engine.Board) (*engine.Heuristic, error) { return Matching(b), nil },
		},
		{
			Name:       "simple",
			Summary:    "sum over boxes of the push distance to the nearest goal (admissible)",
			Admissible: true,
			Prepare:    func(b *engine.Board) (*engine.Heuristic, error) { return Simple(b), nil },
		},
	}
}

// Names returns the names of the built-in heuristics, sorted.
func Names() []string {
	var names []string
	for _, h := range All() {
		names = append(names, h.Name)
	}
	return names
}

// Lookup finds a built-in heuristic by name; the empty name means Default.
func Lookup(name string) (Spec, error) {
	if name == "" {
		name = Default
	}
	specs := All()
	i := slices.IndexFunc(specs, func(h Spec) bool { return h.Name == name })
	if i < 0 {
		return Spec{}, fmt.Errorf("unknown heuristic %q (built-in: %s)", name, strings.Join(Names(), ", "))
	}
	return specs[i], nil
}

// pushDistances returns the cost tables shared by the built-ins: the push
// distance of a lone box from each square to each goal, tracking the side
// the player can reach, as the minimum over the player's regions
// (engine.Board.Dist) and by region (engine.Board.RegionDist). The board's
// tables are copied so the heuristic owns its costs.
func pushDistances(b *engine.Board) (costs, regionCosts []uint16) {
	g := len(b.Goals)
	costs = slices.Clone(b.Dist[:b.Squares*g])
	if b.RegionDist != nil { // nil on very large boards
		regionCosts = slices.Clone(b.RegionDist[:b.Squares*engine.Regions*g])
	}
	return costs, regionCosts
}

func compile(b *engine.Board, name string, rule engine.Rule, admissible bool) *engine.Heuristic {
	costs, region := pushDistances(b)
	return &engine.Heuristic{Name: name, Costs: costs, RegionCosts: region, Rule: rule, Admissible: admissible}
}

// Simple is the sum over boxes of the push distance to the nearest goal.
// Admissible: every box needs at least that many pushes, and one push moves
// one box one square. With the distances by player region it is also
// consistent (a push lowers it by at most one).
func Simple(b *engine.Board) *engine.Heuristic {
	return compile(b, "simple", engine.RuleSumMin, true)
}

// Greedy matches boxes to goals greedily by push distance. Not admissible:
// a greedy matching can cost more than the minimum one, which is the best
// admissible bound of this kind, so it may overestimate the pushes left.
func Greedy(b *engine.Board) *engine.Heuristic {
	return compile(b, "greedy", engine.RuleGreedy, false)
}

// Matching is the cost of a minimum-cost perfect matching of boxes to goals
// by push distance. Admissible, since every solution assigns each box its
// own goal and pushes it at least that far; infinite (a deadlock) when no
// perfect matching over reachable pairs exists. Consistent, like Simple.
func Matching(b *engine.Board) *engine.Heuristic {
	return compile(b, "matching", engine.RuleMatching, true)
}
