package sdk

import (
	"context"
	"fmt"
	"regexp"
	"slices"
)

// Kind is a kind of component.
type Kind string

// The kinds of component.
const (
	// KindHeuristic is a lower bound on the pushes left (Heuristic).
	KindHeuristic Kind = "heuristic"
	// KindDeadlock is a deadlock detector (DeadlockDetector).
	KindDeadlock Kind = "deadlock"
	// KindPlanner is a planner (Planner).
	KindPlanner Kind = "planner"
)

// Capability is something a plugin declares it does, so the host can
// choose components without preparing a level first.
type Capability string

// The capabilities.
const (
	// CapHeuristicTables: Heuristic.Prepare answers with tables.
	CapHeuristicTables Capability = "heuristic-tables"
	// CapHeuristicEstimate: Heuristic.Prepare may answer with an Estimator.
	CapHeuristicEstimate Capability = "heuristic-estimate"
	// CapAdmissible: the heuristic never overestimates the pushes left, so
	// it can prove push-optimality. Must agree with
	// PreparedHeuristic.Admissible.
	CapAdmissible Capability = "admissible"
	// CapDeadlockTables: DeadlockDetector.Prepare answers with tables.
	CapDeadlockTables Capability = "deadlock-tables"
	// CapDeadlockCheck: DeadlockDetector.Prepare may answer with a Checker.
	CapDeadlockCheck Capability = "deadlock-check"
	// CapPlannerHost: the planner calls back into the Host.
	CapPlannerHost Capability = "planner-host"
)

// Kind returns the kind of component c qualifies, or "" for a capability
// this SDK does not know (from a newer protocol revision).
func (c Capability) Kind() Kind {
	switch c {
	case CapHeuristicTables, CapHeuristicEstimate, CapAdmissible:
		return KindHeuristic
	case CapDeadlockTables, CapDeadlockCheck:
		return KindDeadlock
	case CapPlannerHost:
		return KindPlanner
	}
	return ""
}

// Info describes a plugin.
type Info struct {
	// Name is the name the host registers the plugin's components under,
	// such as "matching": lower-case letters, digits and '-', starting
	// with a letter.
	Name string
	// Version is the plugin's own version, free text ("1.2.0").
	Version string
	// Summary is one line for listings.
	Summary string
	// Kinds are the kinds of component the plugin serves. Serve fills them
	// in from the components given to it.
	Kinds []Kind
	// Capabilities qualify the kinds.
	Capabilities []Capability
}

// Serves reports whether the plugin serves components of kind k.
func (i *Info) Serves(k Kind) bool { return slices.Contains(i.Kinds, k) }

// Has reports whether the plugin declares capability c.
func (i *Info) Has(c Capability) bool { return slices.Contains(i.Capabilities, c) }

// namePattern is the syntax of a plugin name: it appears in binary names
// (sokod-plugin-NAME), flags and configuration, so it stays plain.
var namePattern = regexp.MustCompile(`^[a-z][a-z0-9-]{0,63}$`)

// Validate checks the name and that the capabilities fit the kinds.
func (i *Info) Validate() error {
	if !namePattern.MatchString(i.Name) {
		return fmt.Errorf("plugin name %q: want lower-case letters, digits and '-', starting with a letter, at most 64", i.Name)
	}
	if len(i.Kinds) == 0 {
		return fmt.Errorf("plugin %s serves no component", i.Name)
	}
	for _, c := range i.Capabilities {
		k := c.Kind()
		if k == "" {
			continue // from a newer protocol revision: carried, not judged
		}
		if !i.Serves(k) {
			return fmt.Errorf("plugin %s declares %s but serves no %s", i.Name, c, k)
		}
	}
	if i.Serves(KindHeuristic) && !i.Has(CapHeuristicTables) && !i.Has(CapHeuristicEstimate) {
		return fmt.Errorf("plugin %s serves a heuristic with neither %s nor %s", i.Name, CapHeuristicTables, CapHeuristicEstimate)
	}
	if i.Serves(KindDeadlock) && !i.Has(CapDeadlockTables) && !i.Has(CapDeadlockCheck) {
		return fmt.Errorf("plugin %s serves a deadlock detector with neither %s nor %s", i.Name, CapDeadlockTables, CapDeadlockCheck)
	}
	return nil
}

// Unreachable is the cost of a box that can never reach a goal.
const Unreachable uint16 = 0xFFFF

// DeadEnd is the estimate of a position from which the goal cannot be
// reached.
const DeadEnd uint32 = 0xFFFFFFFF

// Rule says how a cost table becomes one bound.
type Rule uint8

// The combining rules. The zero Rule is invalid, so a forgotten field is
// caught.
const (
	// RuleSumOfMinima is the sum over boxes of the box's cheapest goal.
	RuleSumOfMinima Rule = iota + 1
	// RuleGreedy matches box-goal pairs in increasing cost order; unmatched
	// boxes take their cheapest goal. Not admissible in general.
	RuleGreedy
	// RuleMatching is a minimum-cost perfect matching of boxes to goals;
	// none existing is a deadlock.
	RuleMatching
)

// String names the rule.
func (r Rule) String() string {
	switch r {
	case RuleSumOfMinima:
		return "sum-of-minima"
	case RuleGreedy:
		return "greedy"
	case RuleMatching:
		return "matching"
	}
	return fmt.Sprintf("Rule(%d)", uint8(r))
}

// HeuristicTables is a heuristic compiled for one level, evaluated by the
// host natively: the fast path, costing no call per position.
type HeuristicTables struct {
	// Costs[s*len(Goals)+g] is the cost of bringing a box from square s to
	// goal g, or Unreachable. Exactly len(Squares)*len(Goals) entries.
	Costs []uint16
	// Rule combines the costs.
	Rule Rule
	// Penalties are added to the combined cost.
	Penalties []Penalty
	// SideCosts, when set, refines Costs by where the player is:
	// SideCosts[(s*4+k)*len(Goals)+g] is the cost of bringing a box from
	// square s to goal g when the player is on side k of it: k is the first
	// direction, in LURD order, whose neighbour of s the player could reach
	// were that box the only one on the board (SideOf computes it). Exactly
	// len(Squares)*4*len(Goals) entries; rows of wall neighbours are never
	// used. The host costs each box by its player side, which for push
	// distances makes the bound consistent (a push lowers it by at most
	// one).
	SideCosts []uint16
}

// Sides is the number of player sides of a square in
// HeuristicTables.SideCosts.
const Sides = 4

// Penalty adds Cost to the bound of every position in which boxes stand on
// all of Squares. The costs of all matching penalties are summed; a
// heuristic that declares itself admissible keeps that sum admissible.
type Penalty struct {
	Squares []int
	Cost    int
}

// PreparedHeuristic is a heuristic prepared for one level: exactly one of
// Tables and Estimator is set.
type PreparedHeuristic struct {
	// Admissible says the bound never overestimates the pushes left.
	Admissible bool
	// Tables is the compiled form.
	Tables *HeuristicTables
	// Estimator evaluates batches of positions, for heuristics that cannot
	// compile. The host releases it when the level is done.
	Estimator Estimator
}

// Estimator evaluates a heuristic on batches of positions of the level it
// was prepared for.
type Estimator interface {
	// Estimate writes the bound of position i of states to out[i], or
	// DeadEnd. len(out) is states.Len().
	Estimate(ctx context.Context, states States, out []uint32) error
	// Release frees what the estimator holds; it is not used afterwards.
	Release(ctx context.Context) error
}

// Heuristic is a lower bound on the pushes left, the component behind
// HeuristicService.
type Heuristic interface {
	// Prepare analyses one level, once per solve.
	Prepare(ctx context.Context, level *Level) (*PreparedHeuristic, error)
}

// Direction is an optional push direction. The zero value means any.
type Direction uint8

// The directions.
const (
	AnyDirection Direction = iota
	Left
	Up
	Right
	Down
)

// DeadlockTables is a deadlock detector compiled for one level.
type DeadlockTables struct {
	// DeadSquares are squares no box may ever stand on off a goal.
	DeadSquares []int
	// Sets are capacity-counted deadlock sets.
	Sets []DeadlockSet
	// Limits bound the number of boxes in regions.
	Limits []RegionLimit
}

// DeadlockSet is a set of squares that can hold at most Capacity boxes: a
// position with more boxes on Squares is a deadlock. The host keeps one
// counter per set, so a push costs O(1) per set containing its squares.
type DeadlockSet struct {
	Squares  []int
	Capacity int
	// LastPush, unless AnyDirection, restricts the set to positions reached
	// by a push in that direction onto one of Squares (which places the
	// player).
	LastPush Direction
}

// Bound is the sense of a RegionLimit.
type Bound uint8

// The bounds. The zero Bound is invalid.
const (
	// AtMost: at most Boxes boxes may be in the region.
	AtMost Bound = iota + 1
	// AtLeast: at least Boxes boxes must be in the region.
	AtLeast
)

// RegionLimit bounds the number of boxes in a set of squares; a position
// outside the bound is a deadlock.
type RegionLimit struct {
	Squares []int
	Bound   Bound
	Boxes   int
}

// PreparedDeadlocks is a deadlock detector prepared for one level: Tables,
// Checker, or both.
type PreparedDeadlocks struct {
	Tables *DeadlockTables
	// Checker tests batches of positions the tables cannot express. The
	// host releases it when the level is done.
	Checker Checker
}

// Checker tests batches of positions of the level it was prepared for.
type Checker interface {
	// Check sets out[i] when position i of states is a deadlock. len(out)
	// is states.Len().
	Check(ctx context.Context, states States, out []bool) error
	// Release frees what the checker holds; it is not used afterwards.
	Release(ctx context.Context) error
}

// DeadlockDetector recognises positions from which the level cannot be
// solved, the component behind DeadlockService.
type DeadlockDetector interface {
	// Prepare analyses one level, once per solve.
	Prepare(ctx context.Context, level *Level) (*PreparedDeadlocks, error)
}

// Validate checks the tables against a level with the given numbers of
// squares and goals.
func (t *HeuristicTables) Validate(squares, goals int) error {
	if len(t.Costs) != squares*goals {
		return fmt.Errorf("cost table has %d entries, want %d squares x %d goals", len(t.Costs), squares, goals)
	}
	if n := len(t.SideCosts); n != 0 && n != squares*Sides*goals {
		return fmt.Errorf("side cost table has %d entries, want %d squares x %d sides x %d goals", n, squares, Sides, goals)
	}
	if t.Rule < RuleSumOfMinima || t.Rule > RuleMatching {
		return fmt.Errorf("unknown combining rule %d", t.Rule)
	}
	for i, p := range t.Penalties {
		if len(p.Squares) == 0 || p.Cost < 0 {
			return fmt.Errorf("penalty %d: %d squares, cost %d", i, len(p.Squares), p.Cost)
		}
		if err := squaresIn(p.Squares, squares); err != nil {
			return fmt.Errorf("penalty %d: %w", i, err)
		}
	}
	return nil
}

func squaresIn(sq []int, squares int) error {
	for _, s := range sq {
		if s < 0 || s >= squares {
			return fmt.Errorf("square %d is not one of the %d squares", s, squares)
		}
	}
	return nil
}

// Validate checks the tables against a level with the given number of
// squares.
func (t *DeadlockTables) Validate(squares int) error {
	if err := squaresIn(t.DeadSquares, squares); err != nil {
		return fmt.Errorf("dead squares: %w", err)
	}
	for i, s := range t.Sets {
		if len(s.Squares) == 0 || s.Capacity < 0 || s.Capacity >= len(s.Squares) || s.LastPush > Down {
			return fmt.Errorf("deadlock set %d: %d squares, capacity %d, direction %d", i, len(s.Squares), s.Capacity, s.LastPush)
		}
		if err := squaresIn(s.Squares, squares); err != nil {
			return fmt.Errorf("deadlock set %d: %w", i, err)
		}
	}
	for i, r := range t.Limits {
		if len(r.Squares) == 0 || (r.Bound != AtMost && r.Bound != AtLeast) || r.Boxes < 0 {
			return fmt.Errorf("region limit %d: %d squares, bound %d, %d boxes", i, len(r.Squares), r.Bound, r.Boxes)
		}
		if err := squaresIn(r.Squares, squares); err != nil {
			return fmt.Errorf("region limit %d: %w", i, err)
		}
	}
	return nil
}

// sortedKinds returns the kinds in a fixed order, for Info.
func sortedKinds(ks []Kind) []Kind {
	out := slices.Clone(ks)
	slices.Sort(out)
	return slices.Compact(out)
}
