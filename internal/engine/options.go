package engine

import (
	"fmt"
	"strings"
	"time"

	"github.com/sokod/sokod/sokoban"
)

// Objective says what a search optimises.
type Objective uint8

// The objectives.
const (
	// ObjectiveAny finds some solution fast, by Options.Strategy (default:
	// greedy best-first alternating with A*). No optimality claim.
	ObjectiveAny Objective = iota
	// ObjectivePushes finds a solution with the fewest pushes: A* with an
	// admissible lower bound, re-opening states reached again more cheaply.
	ObjectivePushes
)

// String names the objective as the command line spells it.
func (o Objective) String() string {
	switch o {
	case ObjectiveAny:
		return "any"
	case ObjectivePushes:
		return "pushes"
	}
	return fmt.Sprintf("Objective(%d)", uint8(o))
}

// ParseObjective parses "any" or "pushes".
func ParseObjective(s string) (Objective, error) {
	switch s {
	case "any":
		return ObjectiveAny, nil
	case "pushes":
		return ObjectivePushes, nil
	}
	return 0, fmt.Errorf("unknown objective %q (want any or pushes)", s)
}

// Status is how a search ended.
type Status uint8

// The statuses.
const (
	// GaveUp: a budget ran out (nodes, memory, time) or the context was
	// cancelled before a solution was found; Result.Reason says which.
	GaveUp Status = iota
	// Solved: Result.Solution holds a replay-verified solution.
	Solved
	// Unsolvable: the whole reachable state space was searched (or the board
	// analysis proved it) with sound pruning only, and no solution exists.
	Unsolvable
)

// String names the status.
func (s Status) String() string {
	switch s {
	case GaveUp:
		return "gave up"
	case Solved:
		return "solved"
	case Unsolvable:
		return "unsolvable"
	}
	return fmt.Sprintf("Status(%d)", uint8(s))
}

// Why a search gave up.
const (
	ReasonNodes     = "node limit"
	ReasonMemory    = "memory budget"
	ReasonDeadline  = "time limit"
	ReasonCancelled = "cancelled"
)

// defaultProgressInterval is the progress interval when none is set.
const defaultProgressInterval = 250 * time.Millisecond

// DefaultMemory is the transposition table budget when Budget.Memory is 0.
const DefaultMemory = 256 << 20

// Budget limits one search. Zero fields mean "no limit" except Memory, whose
// zero value means DefaultMemory.
type Budget struct {
	// Nodes is the most states to expand.
	Nodes int64
	// Memory is the byte budget for the transposition table and open list;
	// it sizes them once, up front. A full table ends the search (GaveUp).
	Memory int64
	// Deadline ends the search when the clock passes it. Needs Options.Clock.
	Deadline time.Time
}

// Progress is a snapshot reported during a search.
type Progress struct {
	Nodes      int64 // states expanded
	Stored     int64 // states in the transposition table
	Depth      int   // pushes to the state being expanded
	LowerBound int   // smallest f of the A* open list (under ObjectivePushes a lower bound on the optimum); -1 without one
	Elapsed    time.Duration
	Memory     int64 // bytes of table and open list touched so far
	Generated  int64 // pushes tried
	// Boxes and Player are the position the search stands on, in the
	// board's square numbers (Board.Cell maps them to cells): a fresh copy
	// per report, which a GUI may keep.
	Boxes  []uint16
	Player uint16
	// Batches counts the calls to batch components so far (see
	// Options.BatchSize), BatchWait the clock time spent in them.
	Batches   int64
	BatchWait time.Duration
}

// Options configure one search.
type Options struct {
	Objective Objective
	// Heuristic is the compiled lower bound; ObjectivePushes needs an
	// admissible one.
	Heuristic *Heuristic
	// Strategy applies to ObjectiveAny only, except StrategyIDA, which
	// applies to both.
	Strategy Strategy
	// Weight is W for StrategyWeighted (at least 1).
	Weight int
	Budget Budget
	// Clock is the injected clock, read every few to 1024 expansions
	// (adapting to keep readings about 5-20 ms apart) for the deadline and
	// for progress reports. Nil disables both (a deadline
	// then is an error).
	Clock func() time.Time
	// OnProgress, when set, is called about every ProgressInterval of clock
	// time (default 250 ms), from the searching goroutine.
	OnProgress       func(Progress)
	ProgressInterval time.Duration
	// Off switches techniques off, all on by default; for experiments and
	// for measuring what each is worth (see Techniques).
	Off Techniques
	// Deadlocks are compiled deadlock detectors applied per push, on top
	// of the engine's own dead squares, freeze and corral tests.
	Deadlocks []*Deadlocks
	// BatchSize is the number of positions sent in one call to a batch
	// component (Heuristic.Estimator, Deadlocks.Checker; batch.go); 0
	// means DefaultBatchSize.
	BatchSize int
	// Workspace, when set, provides the table and open-list memory, and its
	// size replaces Budget.Memory. Reusing one across searches (one at a
	// time) saves allocating and clearing a large slab per level.
	Workspace *Workspace

	// lazyBound (tests) queues every child whose matching bound is not
	// known exactly from the dual potentials with that lower bound, as
	// boards with many boxes do, instead of repairing the matching.
	lazyBound bool
	// repairBoxes (experiments), when positive, replaces lazyRepairBoxes.
	repairBoxes int
	noEntrance  bool
	// macroGoals (tests, experiments), when positive, replaces
	// minMacroGoals.
	macroGoals int
	// turnNodes (tests), when positive, replaces sliceNodes.
	turnNodes int64
	// restartNodes (tests), when positive, replaces restartUnit.
	restartNodes int64
	// plan and keying make a packing search (set by Solve); seed, when
	// not 0, perturbs its keys (a restart, restart.go).
	plan   *fillPlan
	keying packKeying
	seed   uint64
}

// Techniques is a set of the search's techniques that can be switched off
// (Options.Off). Each keeps the search sound: completeness, proofs of
// unsolvability and, where it applies under ObjectivePushes, optimality.
type Techniques uint16

// The techniques.
const (
	// TechPICorrals: PI-corral pruning (corral.go).
	TechPICorrals Techniques = 1 << iota
	// TechCorralDeadlocks: corrals proved dead by their own boxes (locked
	// corrals, dead PI-corrals, corral sub-searches; corral.go,
	// subsearch.go).
	TechCorralDeadlocks
	// TechFrozenGoals: boxes frozen on goals taken as walls
	// (goalfreeze.go).
	TechFrozenGoals
	// TechTunnels: tunnel macros (tunnel.go).
	TechTunnels
	// TechGoalMacros: goal macros and home moves (goalmacro.go,
	// homemove.go), under ObjectiveAny only. The entrance macro cuts moves,
	// so when a search in which it fired exhausts its space, Solve searches
	// again without goal macros before it reports Unsolvable
	// (Stats.GoalMacroRerun).
	TechGoalMacros
	// TechPacking: the packing search's turn under the default strategy
	// (packing.go).
	TechPacking
	// TechHomeMoves: the home moves alone (homemove.go), the entrance
	// macros kept; they add children and cut none.
	TechHomeMoves
	// TechClusterDeadlocks: clusters of boxes proved dead by a relaxed
	// search of their own (cluster.go).
	TechClusterDeadlocks
	// TechRestarts: the packing searches' restarts with perturbed keys
	// (restart.go).
	TechRestarts
	// TechSecondPlan: the fill plan of the reverse search with the player
	// followed (trackedplan.go), which the bound keying's packing search
	// starts on and the packing searches' restarts take in turns.
	TechSecondPlan
	// TechBackward: the backward search over pulls beside the forward
	// searches (backward.go), under ObjectiveAny with the default strategy.
	TechBackward
)

var techniqueNames = []struct {
	t    Techniques
	name string
}{
	{TechPICorrals, "pi-corrals"},
	{TechCorralDeadlocks, "corral-deadlocks"},
	{TechFrozenGoals, "frozen-goals"},
	{TechTunnels, "tunnels"},
	{TechGoalMacros, "goal-macros"},
	{TechPacking, "packing"},
	{TechHomeMoves, "home-moves"},
	{TechClusterDeadlocks, "cluster-deadlocks"},
	{TechRestarts, "restarts"},
	{TechSecondPlan, "second-plan"},
	{TechBackward, "backward"},
}

// TechniqueNames lists the names ParseTechniques accepts.
func TechniqueNames() []string {
	names := make([]string, len(techniqueNames))
	for i, tn := range techniqueNames {
		names[i] = tn.name
	}
	return names
}

// ParseTechniques reads a set of techniques from their names.
func ParseTechniques(names []string) (Techniques, error) {
	var t Techniques
	for _, n := range names {
		found := false
		for _, tn := range techniqueNames {
			if tn.name == n {
				t |= tn.t
				found = true
			}
		}
		if !found {
			return 0, fmt.Errorf("unknown technique %q (want %s)", n, strings.Join(TechniqueNames(), ", "))
		}
	}
	return t, nil
}

// String lists the techniques by name, comma-separated.
func (t Techniques) String() string {
	var names []string
	for _, tn := range techniqueNames {
		if t&tn.t != 0 {
			names = append(names, tn.name)
		}
	}
	return strings.Join(names, ",")
}

// Strategy is how ObjectiveAny orders its search.
type Strategy uint8

// The strategies for ObjectiveAny.
const (
	// StrategyAlternate keeps two open lists over one transposition table,
	// greedy (f = bound) and A* (f = pushes + bound), and expands from each
	// in turn. Neither order is good on every level (greedy can drift on a
	// plateau where A* is quick, A* can drown where greedy dives straight
	// in); alternating costs at most about twice the better one.
	StrategyAlternate Strategy = iota
	// StrategyGreedy: greedy best-first search, f = bound.
	StrategyGreedy
	// StrategyWeighted: weighted A*, f = pushes + Weight*bound.
	StrategyWeighted
	// StrategyIDA: iterative deepening A* with the transposition table
	// (see ida.go), for either objective; under ObjectivePushes it proves
	// push-optimality as A* does, in far less memory and more time.
	StrategyIDA
	// StrategyPacking: the packing search alone (packing.go), its three
	// keyings in turn, on levels with a fill plan; others get
	// StrategyAlternate. StrategyAlternate runs it first on goal-room
	// levels.
	StrategyPacking
)

// ParseStrategy reads a strategy by the name the command line uses:
// best-first (the default: A* under ObjectivePushes; under ObjectiveAny the
// packing search on goal-room levels, then greedy and A* in turn), greedy
// or packing (ObjectiveAny only), or ida.
func ParseStrategy(s string) (Strategy, error) {
	switch s {
	case "best-first", "":
		return StrategyAlternate, nil
	case "greedy":
		return StrategyGreedy, nil
	case "ida":
		return StrategyIDA, nil
	case "packing":
		return StrategyPacking, nil
	}
	return 0, fmt.Errorf("unknown strategy %q (want best-first, greedy, packing or ida)", s)
}

// Stats describe the work a search did.
type Stats struct {
	Nodes      int64 // states expanded
	Generated  int64 // pushes tried
	Stored     int64 // states in the transposition table
	Duplicates int64 // children already in the table and not improved
	Reopened   int64 // closed states re-expanded after a cheaper path (A*)
	// Deferred counts states popped with a lower bound on their bound that
	// the exact bound raised: they were queued again, not expanded.
	Deferred   int64
	Frozen     int64 // children pruned by the freeze deadlock test
	Matching   int64 // children pruned because the bound was infinite (bipartite deadlock)
	Tables     int64 // children pruned by Options.Deadlocks sets and limits
	Corrals    int64 // expansions restricted to the pushes of a PI-corral
	CorralDead int64 // expansions with a PI-corral and no push: deadlocks
	// LockedCorrals counts expansions ended by a corral its own boxes
	// cannot open (corral.go), SubSearches the corral sub-searches run,
	// SubDead those that proved a deadlock and SubPositions the positions
	// they expanded (subsearch.go), FrozenGoals the children pruned because
	// boxes frozen on goals wall the others off (goalfreeze.go).
	LockedCorrals, SubSearches, SubDead, SubPositions, FrozenGoals int64
	// Learned counts the corral and cluster deadlocks kept (learned.go),
	// LearnedPruned the children and queued positions they pruned.
	Learned, LearnedPruned int64
	// ClusterSearches counts the cluster searches run (cluster.go),
	// ClusterDead the children their verdicts pruned.
	ClusterSearches, ClusterDead int64
	// Packing is set when the packing search ran (packing.go),
	// PackingNodes its share of Nodes.
	Packing      bool
	PackingNodes int64
	// BackwardNodes is the backward search's share of Nodes (backward.go),
	// and Backward is set when the solution came through it: it reached
	// the start, or a forward search reached one of its positions.
	BackwardNodes int64
	Backward      bool
	// Restarts counts the packing searches started again with perturbed
	// keys (restart.go).
	Restarts  int64
	MaxDepth  int // deepest state expanded, in pushes
	InitialLB int // lower bound of the start position
	// Macros counts children made by a tunnel macro, MacroPushes the pushes
	// those macros added after the first, Stuck the children pruned with a
	// box stuck in a tunnel (tunnel.go).
	Macros, MacroPushes, Stuck int64
	// GoalMacros counts children made by a goal macro, GoalMacroPushes
	// the pushes those macros added after the first (goalmacro.go).
	GoalMacros, GoalMacroPushes int64
	// HomeMoves counts children made by a home move (homemove.go).
	HomeMoves int64
	// GoalMacroRerun is set when the search under goal macros exhausted
	// its space and was run again without them; the counts are the sum of
	// both runs.
	GoalMacroRerun bool
	// MemoryReserved is the size of the table and open-list slabs (the
	// budget, rounded down); MemoryUsed is the part this search touched
	// (table pages, open-list entries at their peak).
	MemoryReserved, MemoryUsed int64
	// Elapsed is clock time from start to end (0 without a clock).
	Elapsed time.Duration
	// Batches counts the calls to batch components (Options.BatchSize),
	// BatchStates the positions sent in them, BatchWait the clock time
	// spent waiting for their answers, and BatchPruned the positions they
	// found dead ends or deadlocks.
	Batches, BatchStates, BatchPruned int64
	BatchWait                         time.Duration
}

// Result is the outcome of a search.
type Result struct {
	Status Status
	// Reason says why the search gave up, or why the board is unsolvable.
	Reason string
	// Solution is set when Status is Solved; it has been replayed by
	// sokoban.Replay and Metrics are that replay's.
	Solution sokoban.Solution
	Metrics  sokoban.Metrics
	// Optimal is true when the solution is proved push-optimal.
	Optimal   bool
	Heuristic string
	Objective Objective
	Stats     Stats
}
