package sdk

import (
	"context"
	"fmt"
	"time"

	"github.com/sokod/sokod/sokoban"
)

// Budget limits a plan or a sub-search. Zero fields mean no limit.
type Budget struct {
	Time        time.Duration
	Nodes       uint64
	MemoryBytes uint64
}

// PlanRequest asks a planner to solve a level from its start.
type PlanRequest struct {
	Level  *Level
	Budget Budget
}

// PlanProgress reports a planner's progress.
type PlanProgress struct {
	// Nodes is the work done so far, in the planner's own units.
	Nodes uint64
	// BoxesOnGoals is the most boxes on goals reached so far.
	BoxesOnGoals int
	// Message is free text for logs.
	Message string
}

// PlanStatus is how a plan ended.
type PlanStatus uint8

// The plan statuses. The zero PlanStatus is invalid.
const (
	PlanSolved PlanStatus = iota + 1
	PlanUnsolvable
	PlanGaveUp
)

// String names the status.
func (s PlanStatus) String() string {
	switch s {
	case PlanSolved:
		return "solved"
	case PlanUnsolvable:
		return "unsolvable"
	case PlanGaveUp:
		return "gave_up"
	}
	return "invalid"
}

// PlanResult is how a plan ended.
type PlanResult struct {
	Status PlanStatus
	// Solution is the LURD text from the level's start when solved.
	Solution string
	// Reason says why the plan gave up or why the level is unsolvable.
	Reason string
}

// Planner runs a limited, macro-level search of its own for levels whose
// tree is too large for the exhaustive search, calling back into the host
// for the host's fast primitives. It is the component behind
// PlannerService.
type Planner interface {
	// Plan solves req.Level within req.Budget. progress may be called at
	// any time before Plan returns, from Plan's goroutine. Cancelling ctx
	// ends the plan; Plan then returns promptly.
	Plan(ctx context.Context, req *PlanRequest, host Host, progress func(PlanProgress)) (*PlanResult, error)
}

// Push is one push: the box on square Box moves one square in direction
// Dir, and the player takes its place.
type Push struct {
	Box uint16
	Dir sokoban.Direction
}

// PushList is the answer to Host.LegalPushes for a batch of positions.
type PushList struct {
	// Counts[i] is the number of legal pushes in position i.
	Counts []int
	// Pushes holds the pushes of every position in order: those of
	// position 0, then those of position 1, and so on.
	Pushes []Push
	// Results holds the position each push leads to, in the same order,
	// with the player's square normalised to the smallest it can reach.
	Results States
}

// SquareSets is one set of squares per position, as bitsets: bit s of byte
// s/8, least significant bit first, of a position's (squares+7)/8 bytes.
type SquareSets struct {
	// Squares is the number of squares of the level.
	Squares int
	// Bits holds the sets back to back.
	Bits []byte
}

// Stride is the number of bytes one set takes.
func (s SquareSets) Stride() int { return (s.Squares + 7) / 8 }

// Len returns the number of sets.
func (s SquareSets) Len() int {
	if s.Squares == 0 {
		return 0
	}
	return len(s.Bits) / s.Stride()
}

// Has reports whether set i holds square sq.
func (s SquareSets) Has(i, sq int) bool {
	return s.Bits[i*s.Stride()+sq/8]&(1<<(sq%8)) != 0
}

// SubGoal is what a sub-search aims for: every target square holds a box,
// and every region limit holds.
type SubGoal struct {
	Targets []int
	Regions []RegionLimit
}

// Validate checks the sub-goal against a level of squares squares.
func (g SubGoal) Validate(squares int) error {
	if err := squaresIn(g.Targets, squares); err != nil {
		return fmt.Errorf("targets: %w", err)
	}
	return (&DeadlockTables{Limits: g.Regions}).Validate(squares)
}

// SubSearchStatus is how a sub-search ended.
type SubSearchStatus uint8

// The sub-search statuses. The zero SubSearchStatus is invalid.
const (
	SubGoalReached SubSearchStatus = iota + 1
	SubGoalUnreachable
	SubSearchGaveUp
)

// SubSearchResult is the outcome of Host.SubSearch.
type SubSearchResult struct {
	Status SubSearchStatus
	// Pushes lead from the start to the sub-goal when it was reached.
	Pushes []Push
	// End holds the position reached, when reached, with the player where
	// Moves leave it.
	End States
	// Nodes is the number of positions the search expanded.
	Nodes uint64
	// Moves is the LURD text from the start to End, when reached.
	Moves string
}

// Verification is the outcome of Host.Verify.
type Verification struct {
	// Solved is true when the solution is legal and ends with every box on
	// a goal.
	Solved bool
	// Error says why the solution is illegal, or is empty.
	Error string
	// Metrics are the replay's counts.
	Moves, Pushes, BoxLines, BoxChanges int
}

// Host is what the host offers a planner during one Plan call, for the
// level of that call. Every method takes a batch: one round trip costs far
// more than the work for one position.
type Host interface {
	// LegalPushes lists the legal pushes of each position and where they
	// lead.
	LegalPushes(ctx context.Context, states States) (*PushList, error)
	// Reachable returns the squares the player can reach without pushing,
	// per position.
	Reachable(ctx context.Context, states States) (SquareSets, error)
	// Deadlocked applies the host's deadlock detectors, setting out[i] for
	// a deadlock. len(out) is states.Len().
	Deadlocked(ctx context.Context, states States, out []bool) error
	// SubSearch runs a bounded search of the host's engine from the single
	// position in start, whose player square is where the player stands,
	// towards goal.
	SubSearch(ctx context.Context, start States, goal SubGoal, budget Budget) (*SubSearchResult, error)
	// Verify replays a LURD solution from the level's start.
	Verify(ctx context.Context, solution string) (*Verification, error)
}
