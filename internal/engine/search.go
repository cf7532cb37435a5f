package engine

import (
	"context"
	"errors"
	"fmt"
	"slices"
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
	// NoCorralPruning turns PI-corral pruning off (see corral.go); it is on
	// by default and keeps completeness and push-optimality.
	NoCorralPruning bool
	// NoTunnelMacros turns tunnel macros off (see tunnel.go); they are on
	// by default and keep completeness and push-optimality.
	NoTunnelMacros bool
	// NoGoalMacros turns goal macros and home moves off (see goalmacro.go
	// and homemove.go). They apply under ObjectiveAny only, where they are
	// on by default. The entrance macro cuts moves, so when a search in
	// which it fired exhausts its space, Solve searches again without goal
	// macros before it reports Unsolvable (Stats.GoalMacroRerun).
	NoGoalMacros bool
	// Deadlocks are compiled deadlock detectors applied per push, on top
	// of the engine's own dead squares, freeze and corral tests.
	Deadlocks []*Deadlocks
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
	// noHomeMoves (tests, experiments) keeps the entrance goal macros and
	// drops the home moves (homemove.go).
	noHomeMoves bool
	noEntrance  bool
	// macroGoals (tests, experiments), when positive, replaces
	// minMacroGoals.
	macroGoals int
}

// Workspace is the big memory of a search: the transposition table slab,
// the open-list slab and the path bitset, sized once from a byte budget.
// It may be reused by consecutive searches, never by two at once.
type Workspace struct {
	tt     *table
	pool   *entryPool
	queues [2]*openQueue
	onPath []uint64
}

// NewWorkspace allocates a workspace within memory bytes. The slabs are
// allocated, not touched: pages are cleared as searches reach them.
func NewWorkspace(memory int64) *Workspace {
	if memory <= 0 {
		memory = DefaultMemory
	}
	slots := tableSlots(memory)
	t := newTable(slots)
	pool := newEntryPool(t.limit * entriesPerState / 2)
	return &Workspace{tt: t, pool: pool, queues: [2]*openQueue{newOpenQueue(pool), newOpenQueue(pool)},
		onPath: make([]uint64, (slots+63)/64)}
}

// Bytes returns the memory the workspace holds.
func (w *Workspace) Bytes() int64 {
	return int64(len(w.tt.slots))*recordBytes + int64(len(w.pool.entries))*openEntryBytes +
		int64(len(w.tt.epochs))*4 + int64(len(w.onPath))*8
}

// reset prepares the workspace for a new search. The path bitset is left
// clean by the search before (see searcher.finish).
func (w *Workspace) reset() {
	w.tt.reset()
	w.pool.reset()
	w.queues[0].reset()
	w.queues[1].reset()
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
)

// ParseStrategy reads a strategy by the name the command line uses:
// best-first (the default: A* under ObjectivePushes, alternating greedy and
// A* under ObjectiveAny), greedy (ObjectiveAny only) or ida.
func ParseStrategy(s string) (Strategy, error) {
	switch s {
	case "best-first", "":
		return StrategyAlternate, nil
	case "greedy":
		return StrategyGreedy, nil
	case "ida":
		return StrategyIDA, nil
	}
	return 0, fmt.Errorf("unknown strategy %q (want best-first, greedy or ida)", s)
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
	MaxDepth   int   // deepest state expanded, in pushes
	InitialLB  int   // lower bound of the start position
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

// Budget checks (clock, cancellation, progress) come every checkInterval
// expansions. The interval adapts to the clock: it halves when checks are
// more than checkSlow apart and doubles when they are less than checkFast
// apart, so a board where one expansion takes a millisecond still checks
// its deadline about every 10 ms. Without a clock it stays at checkMax.
const (
	checkMax  = 1024
	checkSlow = 20 * time.Millisecond
	checkFast = 5 * time.Millisecond
)

// Solve searches the level analysed in b. The error is for bad options and
// internal errors only (a solution that fails replay is one, never
// returned); running out of budget or cancellation is a GaveUp result.
func Solve(ctx context.Context, b *Board, opts Options) (*Result, error) {
	if b == nil {
		return nil, errors.New("engine: nil board")
	}
	if ctx == nil {
		ctx = context.Background()
	}
	h := opts.Heuristic
	if err := h.check(b); err != nil {
		return nil, err
	}
	switch opts.Objective {
	case ObjectiveAny:
	case ObjectivePushes:
		if !h.Admissible {
			return nil, fmt.Errorf("engine: objective pushes needs an admissible heuristic; %q is not admissible", h.Name)
		}
	default:
		return nil, fmt.Errorf("engine: unknown objective %d", opts.Objective)
	}
	switch {
	case opts.Strategy > StrategyIDA:
		return nil, fmt.Errorf("engine: unknown strategy %d", opts.Strategy)
	case opts.Strategy == StrategyWeighted && opts.Weight < 1:
		return nil, fmt.Errorf("engine: weighted search needs a weight of at least 1, not %d", opts.Weight)
	}
	for _, d := range opts.Deadlocks {
		if err := d.check(b); err != nil {
			return nil, err
		}
	}
	if !opts.Budget.Deadline.IsZero() && opts.Clock == nil {
		return nil, errors.New("engine: a deadline needs a clock")
	}
	if opts.Budget.Nodes < 0 || opts.Budget.Memory < 0 {
		return nil, errors.New("engine: negative budget")
	}
	res := &Result{Heuristic: h.Name, Objective: opts.Objective}
	if b.Impossible != "" {
		res.Status = Unsolvable
		res.Reason = b.Impossible
		return res, nil
	}
	mem := opts.Budget.Memory
	if mem == 0 {
		mem = DefaultMemory
	}
	ws := opts.Workspace
	if ws == nil {
		ws = NewWorkspace(mem)
	}
	s := newSearcher(b, h, opts, ws)
	res.Stats.MemoryReserved = ws.Bytes()
	if s.clock != nil {
		s.start = s.clock()
		s.lastProgress, s.lastCheck = s.start, s.start
	}
	st, reason, goal := s.run(ctx)
	s.addStats(&res.Stats)
	if st == Unsolvable && s.gm.count > 0 {
		// Goal macros cut moves, so this exhaustion proves nothing: search
		// again without them, within what is left of the budget, so that
		// Unsolvable always rests on the plain search.
		res.Stats.GoalMacroRerun = true
		s.finish()
		again := opts
		again.NoGoalMacros = true
		first := s
		s = newSearcher(b, h, again, ws)
		s.start, s.lastProgress, s.lastCheck = first.start, first.lastProgress, first.lastCheck
		// The node budget and the progress reports go on counting from
		// the first search's expansions.
		s.nodes = first.nodes
		st, reason, goal = s.run(ctx)
		s.nodes -= first.nodes
		s.addStats(&res.Stats)
		s.nodes += first.nodes
	}
	defer s.finish()
	res.Status, res.Reason = st, reason
	res.Stats.Stored = int64(s.tt.used)
	if s.clock != nil {
		res.Stats.Elapsed = s.clock().Sub(s.start)
	}
	if st != Solved {
		return res, nil
	}
	pushes := s.pushPath(goal)
	sol, err := buildSolution(b, pushes)
	if err != nil {
		return nil, err
	}
	m, err := sokoban.Replay(b.Level, sol)
	if err != nil {
		return nil, fmt.Errorf("engine: internal error: the solution found does not replay: %w", err)
	}
	if !m.Solved || m.Pushes != len(pushes) {
		return nil, fmt.Errorf("engine: internal error: the solution found replays to solved=%v with %d pushes, want %d", m.Solved, m.Pushes, len(pushes))
	}
	res.Solution, res.Metrics = sol, m
	res.Optimal = opts.Objective == ObjectivePushes && s.proofHolds && (s.cnt == nil || s.cnt.untrusty < 0)
	return res, nil
}

// addStats adds the search's counts to st: a search run again after goal
// macros (see Solve) reports the work of both runs.
func (s *searcher) addStats(st *Stats) {
	st.Nodes += s.nodes
	st.Generated += s.generated
	st.Duplicates += s.duplicates
	st.Reopened += s.reopened
	st.Deferred += s.deferred
	st.Frozen += s.frozenPruned
	st.Matching += s.matchPruned
	st.Tables += s.tablePruned
	st.Corrals += s.corrals
	st.CorralDead += s.corralDead
	st.Macros += s.macros
	st.MacroPushes += s.macroPushes
	st.Stuck += s.stuck
	st.GoalMacros += s.gm.count
	st.HomeMoves += s.gm.homes
	st.GoalMacroPushes += s.gm.pushes
	st.MaxDepth = max(st.MaxDepth, s.maxDepth)
	st.InitialLB = s.initialLB
	st.MemoryUsed = max(st.MemoryUsed, s.tt.bytesTouched()+int64(s.pool.peak)*openEntryBytes)
}

// finish clears the path bits the search left in the workspace.
func (s *searcher) finish() {
	for _, r := range s.pathRec {
		s.clearOnPath(r)
	}
	s.pathRec = s.pathRec[:0]
	s.pathPush = s.pathPush[:0]
}

// push is one move of a search path: the box's square before the push, the
// direction, and how many more pushes a tunnel macro (tunnel.go) adds in
// the same direction. A goal macro (goalmacro.go) sets goal; more then
// counts all its pushes after the first, end and last are the box's and the
// player's final squares and ldir is the last push's direction.
type push struct {
	from uint16
	dir  uint8
	more uint8
	goal bool
	home bool
	ldir uint8
	end  uint16
	last uint16
}

// searcher holds the state of one search; everything the hot path touches is
// allocated in newSearcher.
type searcher struct {
	b     *Board
	nbr   []uint16
	wall  uint16
	goals []int16 // GoalIndex
	zbox  []uint64
	zpl   []uint64

	objective Objective
	weight    int
	budget    Budget
	clock     func() time.Time
	progress  func(Progress)
	interval  time.Duration

	// position
	boxAt   []int16 // per square: box index, -1 empty, -2 the wall sentinel
	boxes   []uint16
	player  uint16
	boxHash uint64
	onGoal  int

	// reachability: stamp marks the expanded state's player region,
	// cstamp a child's when its region must be searched.
	stamp   []uint32
	cstamp  []uint32
	boxMark []uint32
	gen     uint32
	queue   []uint16
	ring    []uint16 // ring[sq*8+k]: the 8 squares around sq, clockwise from up
	ringOK  [256]bool

	// childNorm statistics, and a test switch that checks it
	fastNorm, joinNorm, seekNorm, slowNorm int64
	verifyNorm                             bool // tests: check childNorm by a full search

	// current path from the root
	pathRec  []uint32
	pathPush []push
	onPath   []uint64 // bit per table slot
	rebuild  []uint32 // scratch: records from target up to the path

	moves []push // scratch: pushes of the expanded state

	// IDA* (ida.go)
	ida                      bool
	threshold, nextThreshold int
	idaStack                 []idaChild

	// PI-corral pruning
	corralPruning bool
	cmark         []uint32 // corral generation per square (free squares and boxes)
	kbox          []uint16 // boxes of the corral being checked
	cscratch      []push   // its available inward pushes
	cmoves        []push   // those of the best corral so far

	// tunnel macros (tunnel.go)
	tunnels bool
	slide   []uint8

	// goal macros (goalmacro.go)
	gm goalMacros

	// compiled deadlock detectors (Options.Deadlocks), nil without
	cnt  *counters
	dead []bool // the board's dead squares, and the detectors' when cnt is set

	// freeze test
	fmark  []uint32
	fgen   uint32
	fstack []uint16

	tt     *table
	pool   *entryPool
	queues []*openQueue // one, or two taking turns
	kinds  []queueKind  // how each queue orders states
	turn   int          // the queue to expand from next
	popped int          // the queue the last state came from
	lazy   bool         // tests: defer every inexact child bound to its pop
	ev     *evaluator

	// statistics and bookkeeping
	nodes, generated, duplicates, reopened int64
	deferred                               int64
	frozenPruned, matchPruned, tablePruned int64
	corrals, corralDead                    int64
	macros, macroPushes, stuck             int64
	maxDepth, initialLB                    int
	proofHolds                             bool
	done                                   <-chan struct{}
	start, lastProgress, lastCheck         time.Time
	sinceCheck, checkInterval              int
}

func newSearcher(b *Board, h *Heuristic, opts Options, ws *Workspace) *searcher {
	n := b.Squares
	s := &searcher{
		b: b, nbr: b.Nbr, wall: uint16(n), goals: b.GoalIndex, zbox: b.ZBox, zpl: b.ZPlayer,
		objective: opts.Objective, weight: opts.Weight, budget: opts.Budget,
		clock: opts.Clock, progress: opts.OnProgress, interval: opts.ProgressInterval,
		lazy: opts.lazyBound,
	}
	if s.interval <= 0 {
		s.interval = 250 * time.Millisecond
	}
	s.checkInterval = checkMax
	if s.clock != nil {
		s.checkInterval = 16
	}
	s.cnt = newCounters(b, opts.Deadlocks)
	s.dead = b.Dead
	if s.cnt != nil {
		s.dead = s.cnt.dead
	}
	s.boxAt = make([]int16, n+1)
	for i := range s.boxAt {
		s.boxAt[i] = -1
	}
	s.boxAt[n] = -2
	s.boxes = make([]uint16, len(b.StartBoxes))
	s.stamp = make([]uint32, n+1)
	s.cstamp = make([]uint32, n+1)
	s.initRing()
	s.boxMark = make([]uint32, n+1)
	s.queue = make([]uint16, n+1)
	s.fmark = make([]uint32, n+1)
	s.fstack = make([]uint16, 0, len(b.StartBoxes)+1)
	s.moves = make([]push, 0, 4*len(b.StartBoxes))
	s.corralPruning = !opts.NoCorralPruning
	s.tunnels, s.slide = !opts.NoTunnelMacros, b.slide
	s.cmark = make([]uint32, n+1)
	s.kbox = make([]uint16, 0, len(b.StartBoxes))
	s.cscratch = make([]push, 0, 4*len(b.StartBoxes))
	s.cmoves = make([]push, 0, 4*len(b.StartBoxes))
	s.pathRec = make([]uint32, 0, 1024)
	s.pathPush = make([]push, 0, 1024)
	s.rebuild = make([]uint32, 0, 1024)
	ws.reset()
	s.tt, s.pool, s.onPath = ws.tt, ws.pool, ws.onPath
	s.gm.init(b, opts.Objective == ObjectiveAny && !opts.NoGoalMacros, opts.noHomeMoves, len(ws.tt.slots))
	s.gm.noEntrance = opts.noEntrance
	s.gm.minGoals = minMacroGoals
	if opts.macroGoals > 0 {
		s.gm.minGoals = opts.macroGoals
	}
	s.ida = opts.Strategy == StrategyIDA
	if s.ida {
		s.idaStack = make([]idaChild, 0, 1024)
	}
	switch {
	case opts.Objective == ObjectivePushes:
		s.kinds = []queueKind{byAStar}
	case opts.Strategy == StrategyGreedy:
		s.kinds = []queueKind{byBound}
	case opts.Strategy == StrategyWeighted:
		s.kinds = []queueKind{byWeighted}
	default:
		s.kinds = []queueKind{byBound, byAStar}
	}
	s.queues = ws.queues[:len(s.kinds)]
	s.ev = newEvaluator(b, h, len(b.StartBoxes))
	if opts.repairBoxes > 0 {
		s.ev.lazyAbove = opts.repairBoxes
	}
	s.setRoot()
	return s
}

// setRoot puts the start position on the board.
func (s *searcher) setRoot() {
	for i, sq := range s.b.StartBoxes {
		s.boxes[i] = sq
		s.boxAt[sq] = int16(i)
		s.boxHash ^= s.zbox[sq]
		if s.goals[sq] >= 0 {
			s.onGoal++
		}
		if s.cnt != nil {
			s.cnt.place(sq, 1)
		}
	}
	s.player = s.b.StartPlayer
}

// reach marks the squares the player reaches from sq with the current
// generation stamp, marks the boxes next to them in boxMark, and returns the
// smallest reachable square (the normalised player square).
func (s *searcher) reach(sq uint16) uint16 {
	gen := s.nextGen()
	stamp, boxAt, nbr, q, boxMark := s.stamp, s.boxAt, s.nbr, s.queue, s.boxMark
	stamp[sq] = gen
	q[0] = sq
	head, tail := 0, 1
	low := sq
	for head < tail {
		c := int(q[head]) * 4
		head++
		for _, m := range nbr[c : c+4 : c+4] {
			if stamp[m] == gen {
				continue
			}
			if v := boxAt[m]; v == -1 {
				stamp[m] = gen
				q[tail] = m
				tail++
				if m < low {
					low = m
				}
			} else if v >= 0 {
				boxMark[m] = gen
			}
		}
	}
	return low
}

// childReach returns the normalised player square of the region around sq,
// using the child stamps so the expanded state's region stays marked.
func (s *searcher) childReach(sq uint16) uint16 {
	gen := s.nextGen()
	stamp, boxAt, nbr, q := s.cstamp, s.boxAt, s.nbr, s.queue
	stamp[sq] = gen
	q[0] = sq
	head, tail := 0, 1
	low := sq
	for head < tail {
		c := int(q[head]) * 4
		head++
		for _, m := range nbr[c : c+4 : c+4] {
			if stamp[m] == gen {
				continue
			}
			if boxAt[m] == -1 {
				stamp[m] = gen
				q[tail] = m
				tail++
				if m < low {
					low = m
				}
			}
		}
	}
	return low
}

func (s *searcher) nextGen() uint32 {
	s.gen++
	return s.gen
}

// genHeadroom is more generations than one expansion can use (one per
// reachability search and corral flood, a few per box).
const genHeadroom = 1 << 24

// renewGens restarts the generation counter before it could wrap, at a
// point where no stamp is in use (the start of an expansion), so the
// parent's region never loses its marks in the middle of one.
func (s *searcher) renewGens() {
	if s.gen < ^uint32(0)-genHeadroom {
		return
	}
	clear(s.stamp)
	clear(s.cstamp)
	clear(s.boxMark)
	clear(s.cmark)
	s.gen = 0
}

// childNorm returns the normalised player square after the push of a box
// from `from` to `to` in direction dir, already applied. The expanded
// state's region C (stamp pgen, normalised square pnorm) is known, and the
// child's region differs from it only around the two squares that changed:
//
//   - `from` is now free: it joins C, and so does any other region D next
//     to it (a join).
//   - `to` is now a box: if it was in C, C may be cut in two, unless `to`
//     was not C's smallest square and the free squares around `to` (its
//     ring of eight) connect all its free neighbours, so any path through
//     `to` can go around it (C stays intact).
//
// With C intact and no join, the child's region is C minus `to` plus
// `from`: no search at all. With C intact and a join, only the joining
// regions are searched. With C possibly cut and no join, a depth-first
// search from `from` heads for C's smallest square (up and left first) and
// stops when it gets there. Otherwise the whole region is searched.
func (s *searcher) childNorm(from, to uint16, dir uint8, pgen uint32, pnorm uint16) uint16 {
	boxAt, stamp := s.boxAt, s.stamp
	p1 := s.nbr[int(from)*4+int((dir+1)&3)]
	p2 := s.nbr[int(from)*4+int((dir+3)&3)]
	join := (boxAt[p1] == -1 && stamp[p1] != pgen) || (boxAt[p2] == -1 && stamp[p2] != pgen)
	intact := true
	if stamp[to] == pgen {
		if to == pnorm {
			intact = false
		} else {
			r := s.ring[int(to)*8 : int(to)*8+8 : int(to)*8+8]
			var mask uint8
			for k, q := range r {
				if boxAt[q] == -1 {
					mask |= 1 << k
				}
			}
			intact = s.ringOK[mask]
		}
	}
	switch {
	case intact && !join:
		s.fastNorm++
		return min(from, pnorm)
	case intact:
		s.joinNorm++
		return min(s.outside(from, pgen), pnorm)
	case !join:
		s.seekNorm++
		return s.seek(from, pnorm)
	}
	s.slowNorm++
	return s.childReach(from)
}

// outside searches the free squares connected to sq outside the region
// stamped pgen and returns the smallest.
func (s *searcher) outside(sq uint16, pgen uint32) uint16 {
	gen := s.nextGen()
	stamp, cstamp, boxAt, nbr, q := s.stamp, s.cstamp, s.boxAt, s.nbr, s.queue
	cstamp[sq] = gen
	q[0] = sq
	head, tail := 0, 1
	low := sq
	for head < tail {
		c := int(q[head]) * 4
		head++
		for _, m := range nbr[c : c+4 : c+4] {
			if cstamp[m] == gen || boxAt[m] != -1 || stamp[m] == pgen {
				continue
			}
			cstamp[m] = gen
			q[tail] = m
			tail++
			if m < low {
				low = m
			}
		}
	}
	return low
}

// seek searches depth-first from sq for target, up and left first since
// target is the smallest square of the region it was in. It returns
// min(sq, target) when it gets there, else the smallest square of sq's
// region.
func (s *searcher) seek(sq, target uint16) uint16 {
	gen := s.nextGen()
	cstamp, boxAt, nbr, st := s.cstamp, s.boxAt, s.nbr, s.queue
	cstamp[sq] = gen
	st[0] = sq
	top := 1
	low := sq
	for top > 0 {
		top--
		c := int(st[top]) * 4
		// Push right and down first so that up and left come out first.
		for _, d := range [4]int{2, 3, 0, 1} {
			m := nbr[c+d]
			if cstamp[m] == gen || boxAt[m] != -1 {
				continue
			}
			if m == target {
				return min(sq, target)
			}
			cstamp[m] = gen
			st[top] = m
			top++
			if m < low {
				low = m
			}
		}
	}
	return low
}

// initRing computes the ring of eight squares around every square and the
// table saying which free-square patterns on a ring keep all free
// orthogonal neighbours (even bits) in one cyclic run of free squares.
func (s *searcher) initRing() {
	b := s.b
	n := b.Squares
	s.ring = make([]uint16, (n+1)*8)
	offs := [8][2]int{{0, -1}, {1, -1}, {1, 0}, {1, 1}, {0, 1}, {-1, 1}, {-1, 0}, {-1, -1}}
	for sq := 0; sq <= n; sq++ {
		for k, o := range offs {
			s.ring[sq*8+k] = uint16(n)
			if sq == n {
				continue
			}
			x, y := b.XY(uint16(sq))
			x, y = x+o[0], y+o[1]
			if x < 0 || y < 0 || x >= b.Width || y >= b.Height {
				continue
			}
			if q := b.SquareOf[y*b.Width+x]; q >= 0 {
				s.ring[sq*8+k] = uint16(q)
			}
		}
	}
	for m := 0; m < 256; m++ {
		// Label the cyclic runs of set bits; the orthogonal set bits must
		// share one label.
		if m == 255 {
			s.ringOK[m] = true
			continue
		}
		// Start right after a clear bit so no run wraps.
		start := 0
		for m&(1<<start) != 0 {
			start++
		}
		runs, label := 0, -1
		ok := true
		inRun := false
		for i := 1; i <= 8; i++ {
			k := (start + i) % 8
			if m&(1<<k) == 0 {
				inRun = false
				continue
			}
			if !inRun {
				runs++
				inRun = true
			}
			if k%2 == 0 {
				if label == -1 {
					label = runs
				} else if label != runs {
					ok = false
				}
			}
		}
		s.ringOK[m] = ok
	}
}

// moveBox moves box i from square from to square to, keeping the hash, the
// goal count and the deadlock counters; the player does not move.
func (s *searcher) moveBox(i int, from, to uint16) {
	s.boxAt[from] = -1
	s.boxAt[to] = int16(i)
	s.boxes[i] = to
	s.boxHash ^= s.zbox[from] ^ s.zbox[to]
	if s.goals[from] >= 0 {
		s.onGoal--
	}
	if s.goals[to] >= 0 {
		s.onGoal++
	}
	if s.cnt != nil {
		s.cnt.place(from, -1)
		s.cnt.place(to, 1)
	}
}

// doPush moves box i from its square one step in direction dir; the player
// ends on the box's old square.
func (s *searcher) doPush(i int, dir uint8) {
	from := s.boxes[i]
	s.moveBox(i, from, s.nbr[int(from)*4+int(dir)])
	s.player = from
}

// doMove makes push p of box i with its tunnel pushes (p.more).
func (s *searcher) doMove(i int, p push) {
	last, end := s.span(p)
	s.moveBox(i, p.from, end)
	s.player = last
}

// undoPush takes back push p, tunnel pushes included: the box goes back to
// p.from and the player to player.
func (s *searcher) undoPush(p push, player uint16) {
	_, to := s.span(p)
	s.moveBox(int(s.boxAt[to]), to, p.from)
	s.player = player
}

func (s *searcher) setOnPath(r uint32)   { s.onPath[r>>6] |= 1 << (r & 63) }
func (s *searcher) clearOnPath(r uint32) { s.onPath[r>>6] &^= 1 << (r & 63) }
func (s *searcher) isOnPath(r uint32) bool {
	return s.onPath[r>>6]&(1<<(r&63)) != 0
}

// goTo rebuilds the position of record r from the current one: it walks r's
// parent links up to the nearest record on the current path, takes back the
// current path's pushes below that record, and replays r's pushes.
func (s *searcher) goTo(r uint32) {
	s.rebuild = s.rebuild[:0]
	for x := r; !s.isOnPath(x); x = s.tt.slots[x].parent {
		s.rebuild = append(s.rebuild, x)
	}
	anc := r
	if len(s.rebuild) > 0 {
		anc = s.tt.slots[s.rebuild[len(s.rebuild)-1]].parent
	}
	k := len(s.pathRec) - 1
	for s.pathRec[k] != anc {
		k--
	}
	for len(s.pathRec)-1 > k {
		last := len(s.pathRec) - 1
		s.clearOnPath(s.pathRec[last])
		prev := s.b.StartPlayer
		if last >= 2 {
			prev, _ = s.span(s.pathPush[last-1])
		}
		s.undoPush(s.pathPush[last], prev)
		s.pathRec = s.pathRec[:last]
		s.pathPush = s.pathPush[:last]
	}
	for j := len(s.rebuild) - 1; j >= 0; j-- {
		x := s.rebuild[j]
		rec := &s.tt.slots[x]
		var p push
		if rec.from&goalFlag != 0 {
			var ok bool
			if p, ok = s.recall(x); ok {
				s.doMove(int(s.boxAt[p.from]), p)
			} else {
				p = s.redoGoal(rec.from, rec.dir())
			}
		} else {
			p = s.macroStart(rec.from, rec.dir())
			s.doMove(int(s.boxAt[p.from]), p)
		}
		s.pathRec = append(s.pathRec, x)
		s.pathPush = append(s.pathPush, p)
		s.setOnPath(x)
	}
}

// pushPath returns the pushes from the root to record r along parent
// links, one per push. A record holds the last push of a tunnel macro, or
// the first of a goal macro; the other pushes are found again by walking
// the path from the root and, before each move, walking back from its
// last push to the box or (goalPushes) making the goal macro again.
func (s *searcher) pushPath(r uint32) []push {
	s.goTo(r)
	recs := slices.Clone(s.pathRec)
	s.goTo(recs[0])
	var out []push
	for _, x := range recs[1:] {
		rec := &s.tt.slots[x]
		if rec.from&goalFlag != 0 {
			out = s.goalPushes(out, rec.from, rec.dir())
		} else {
			p := s.macroStart(rec.from, rec.dir())
			sq := p.from
			for k := 0; k <= int(p.more); k++ {
				out = append(out, push{from: sq, dir: p.dir})
				sq = s.nbr[int(sq)*4+int(p.dir)]
			}
		}
		s.goTo(x)
	}
	return out
}

// queueKind says how an open list orders states.
type queueKind uint8

const (
	byAStar    queueKind = iota // f = g + h
	byBound                     // f = h
	byWeighted                  // f = g + W*h
)

// priority returns the key of a state with g pushes and bound h in an open
// list of kind k.
func (s *searcher) priority(k queueKind, g, h int) int {
	switch k {
	case byBound:
		return h
	case byWeighted:
		return g + s.weight*h
	}
	return g + h
}

// enqueue puts a record in every open list. It reports false when the
// entry pool is full.
func (s *searcher) enqueue(r uint32, g, h int) bool {
	for k, q := range s.queues {
		if !q.push(r, s.priority(s.kinds[k], g, h), g) {
			return false
		}
	}
	return true
}

// next pops the next state to expand, taking the open lists in turn. ok is
// false when every list is empty.
func (s *searcher) next() (r uint32, f, g int, ok bool) {
	for range s.queues {
		q := s.queues[s.turn]
		if r, f, g, ok = q.pop(); ok {
			s.popped = s.turn
			return r, f, g, true
		}
		s.turn = (s.turn + 1) % len(s.queues)
	}
	return 0, 0, 0, false
}

// lowerBound is the smallest f of the A* list, -1 without one.
func (s *searcher) lowerBound() int {
	if s.ida {
		return s.threshold
	}
	for k, q := range s.queues {
		if s.kinds[k] == byAStar {
			return q.lowest()
		}
	}
	return -1
}

// run is the search loop. It returns the status, a reason, and the goal
// record when solved.
func (s *searcher) run(ctx context.Context) (Status, string, uint32) {
	s.done = ctx.Done()
	if ctx.Err() != nil {
		return GaveUp, ReasonCancelled, 0
	}
	if s.ida {
		return s.runIDA()
	}
	if st, reason, goal, end := s.begin(); end {
		return st, reason, goal
	}
	for {
		if st, reason, goal, end := s.step(); end {
			return st, reason, goal
		}
	}
}

// begin checks and stores the root. end is true when that already decides
// the search.
func (s *searcher) begin() (st Status, reason string, goal uint32, end bool) {
	h0, st, reason, end := s.rootBound()
	if end {
		return st, reason, 0, true
	}
	root, ok := s.insertRoot()
	if !ok {
		s.proofHolds = true
		return Solved, "", root, true
	}
	s.enqueue(root, 0, h0)
	return GaveUp, "", 0, false
}

// rootBound checks the start position and returns its bound. end is true
// when that already decides the search (always as unsolvable or, under
// untrusted knowledge, gave up).
func (s *searcher) rootBound() (h0 int, st Status, reason string, end bool) {
	n := len(s.boxes)
	for i := 0; i < n; i++ {
		if s.freezeDeadlock(s.boxes[i]) {
			return 0, Unsolvable, "the start position has a frozen box off a goal", true
		}
	}
	if s.cnt != nil {
		if k := s.cnt.violatedAtStart(); k >= 0 {
			s.cnt.pruned(s.cnt.owner[k])
			reason := "the start position is a deadlock for detector " + s.cnt.names[s.cnt.owner[k]]
			if note := s.cnt.untrustedNote(); note != "" {
				return 0, GaveUp, reason + note, true
			}
			return 0, Unsolvable, reason, true
		}
	}
	h0 = s.ev.sync(s.boxes, s.player)
	s.initialLB = h0
	if h0 >= infCost {
		return 0, Unsolvable, "no assignment of boxes to goals is reachable", true
	}
	return h0, GaveUp, "", false
}

// insertRoot stores the start position in the table as the path's first
// record. ok is false when the start is solved already.
func (s *searcher) insertRoot() (root uint32, ok bool) {
	n := len(s.boxes)
	s.renewGens()
	norm := s.reach(s.player)
	key := hashKey(s.boxHash ^ s.zpl[norm])
	slot, _ := s.tt.find(key)
	s.tt.insert(slot, key, noRecord, 0, 0, 0)
	root = uint32(slot)
	s.pathRec = append(s.pathRec, root)
	s.pathPush = append(s.pathPush, push{})
	s.setOnPath(root)
	return root, s.onGoal != n
}

// checkBudget counts toward the next budget check and, when it is due,
// checks cancellation, the clock and the deadline, and reports progress (g
// is the depth of the state about to be expanded). end is true when the
// search must stop.
func (s *searcher) checkBudget(g int) (st Status, reason string, end bool) {
	if s.budget.Nodes > 0 && s.nodes >= s.budget.Nodes {
		return GaveUp, ReasonNodes, true
	}
	if s.sinceCheck++; s.sinceCheck >= s.checkInterval {
		s.sinceCheck = 0
		if s.done != nil {
			select {
			case <-s.done:
				return GaveUp, ReasonCancelled, true
			default:
			}
		}
		if s.clock != nil {
			now := s.clock()
			switch since := now.Sub(s.lastCheck); {
			case since > checkSlow && s.checkInterval > 1:
				s.checkInterval /= 2
			case since < checkFast && s.checkInterval < checkMax:
				s.checkInterval *= 2
			}
			s.lastCheck = now
			if !s.budget.Deadline.IsZero() && !now.Before(s.budget.Deadline) {
				return GaveUp, ReasonDeadline, true
			}
			if s.progress != nil && now.Sub(s.lastProgress) >= s.interval {
				s.lastProgress = now
				s.progress(Progress{Nodes: s.nodes, Stored: int64(s.tt.used), Depth: g, LowerBound: s.lowerBound(), Elapsed: now.Sub(s.start),
					Memory: s.tt.bytesTouched() + int64(s.pool.peak)*openEntryBytes, Generated: s.generated,
					Boxes: slices.Clone(s.boxes), Player: s.player})
			}
		}
	}
	return GaveUp, "", false
}

// step pops one state and expands it. end is true when the search is over.
func (s *searcher) step() (st Status, reason string, goal uint32, end bool) {
	r, f, g, ok := s.next()
	if !ok {
		if note := s.cnt.untrustedNote(); note != "" {
			return GaveUp, "every reachable position was searched" + note, 0, true
		}
		return Unsolvable, "every reachable position was searched", 0, true
	}
	rec := &s.tt.slots[r]
	if rec.closed() || int(rec.g) != g {
		return GaveUp, "", 0, false // stale entry
	}
	if st, reason, end := s.checkBudget(g); end {
		return st, reason, 0, true
	}
	s.goTo(r)
	// Children may have been queued with a lower bound on their bound (see
	// evaluator.child). The exact bound is computed now; when it raises the
	// state's priority in the list it came from, the state goes back there
	// with the exact priority instead of being expanded. Every priority
	// queued is thus at most the state's exact one, and a state is expanded
	// only at its exact priority, so A* with an admissible bound still pops
	// the goal at the optimal cost first.
	h := s.ev.sync(s.boxes, s.player)
	if h >= infCost {
		s.matchPruned++
		rec.setClosed()
		return GaveUp, "", 0, false
	}
	if k := s.popped; s.priority(s.kinds[k], g, h) > f {
		s.deferred++
		if !s.queues[k].push(r, s.priority(s.kinds[k], g, h), g) {
			return GaveUp, ReasonMemory, 0, true
		}
		return GaveUp, "", 0, false
	}
	if s.objective == ObjectivePushes && s.onGoal == len(s.boxes) {
		// First goal popped: with an admissible bound, f = g is optimal.
		s.proofHolds = true
		return Solved, "", r, true
	}
	rec.setClosed()
	s.nodes++
	s.turn = (s.turn + 1) % len(s.queues)
	if g > s.maxDepth {
		s.maxDepth = g
	}
	st, reason, goal = s.expand(r, g, h)
	return st, reason, goal, st != GaveUp || reason != ""
}

// genMoves lists the pushes to expand in the current position, whose
// player region is stamped with gen: every legal push that does not put a
// box on a dead square, or only those of a PI-corral when there is one.
// The slice is scratch, valid until the next call.
func (s *searcher) genMoves(gen uint32) []push {
	s.moves = s.moves[:0]
	for _, b := range s.boxes {
		if s.boxMark[b] != gen {
			continue
		}
		for d := uint8(0); d < 4; d++ {
			to := s.nbr[int(b)*4+int(d)]
			if s.boxAt[to] != -1 {
				continue
			}
			if s.dead[to] {
				if s.cnt != nil && s.cnt.deadBy[to] >= 0 {
					s.cnt.pruned(s.cnt.deadBy[to])
				}
				continue
			}
			side := s.nbr[int(b)*4+int(d^2)]
			if s.stamp[side] != gen {
				continue
			}
			s.moves = append(s.moves, push{from: b, dir: d})
		}
	}
	if s.corralPruning && s.piCorral(gen) {
		s.corrals++
		if len(s.cmoves) == 0 {
			s.corralDead++
		}
		if s.gm.on && !s.gm.noHome {
			return s.homeMoves(s.cmoves)
		}
		return s.cmoves
	}
	if s.gm.on && !s.gm.noHome {
		return s.homeMoves(s.moves)
	}
	return s.moves
}

// expand generates the children of the current position (record r, g
// pushes). It returns GaveUp with an empty reason to continue the search.
func (s *searcher) expand(r uint32, g int, hcur int) (Status, string, uint32) {
	s.renewGens()
	pnorm := s.reach(s.player)
	gen := s.gen
	moves := s.genMoves(gen)
	astar := s.objective == ObjectivePushes
	n := len(s.boxes)
	player := s.player
	for _, p := range moves {
		i := int(s.boxAt[p.from])
		to := s.nbr[int(p.from)*4+int(p.dir)]
		key, p, to, ok := s.pushChild(i, p, to, player, gen, pnorm)
		if !ok {
			continue
		}
		cg := g + 1 + int(p.more)
		if cg > 0xFFFE {
			s.undoPush(p, player)
			return GaveUp, ReasonMemory, 0 // g no longer fits a record
		}
		last := s.player
		solved := s.onGoal == n
		slot, found := s.tt.find(key)
		if found {
			c := &s.tt.slots[slot]
			if cg >= int(c.g) {
				s.duplicates++
				s.undoPush(p, player)
				continue
			}
			// A cheaper path to a known state.
			wasClosed := c.closed()
			c.relink(r, uint16(cg), recFrom(p, last), p.dir)
			s.remember(uint32(slot), key, p)
			if wasClosed && !astar {
				// Greedy search keeps the shorter path but does not expand
				// the state again.
				s.undoPush(p, player)
				continue
			}
			s.undoPush(p, player)
			h := s.childBound(hcur, i, to, last, p)
			if wasClosed {
				c.setOpen()
				s.reopened++
			}
			if !s.enqueue(uint32(slot), cg, h) {
				return GaveUp, ReasonMemory, 0
			}
			continue
		}
		s.undoPush(p, player)
		h := s.childBound(hcur, i, to, last, p)
		if h >= infCost {
			s.matchPruned++
			continue
		}
		if s.tt.full() {
			return GaveUp, ReasonMemory, 0
		}
		s.tt.insert(slot, key, r, uint16(cg), recFrom(p, last), p.dir)
		s.remember(uint32(slot), key, p)
		if !astar && solved {
			return Solved, "", uint32(slot)
		}
		if !s.enqueue(uint32(slot), cg, h) {
			return GaveUp, ReasonMemory, 0
		}
	}
	return GaveUp, "", 0
}

// pushChild makes push p of box i (to square to) from the expanded
// position, whose player stands on player and whose region is stamped gen
// with normalised square pnorm, and goes on through a tunnel (slideOn). It
// returns the child's table key with the move applied, the move made (its
// tunnel pushes in more) and the box's final square, or ok false, the push
// taken back, when a deadlock test prunes the child. A* and IDA* share it.
func (s *searcher) pushChild(i int, p push, to, player uint16, gen uint32, pnorm uint16) (key uint64, q push, end uint16, ok bool) {
	s.generated++
	if p.home {
		// A home move (homemove.go): the push path is known already.
		s.doMove(i, p)
		s.gm.homes++
		return s.childKey(i, p, p.end, player, gen, pnorm)
	}
	s.doPush(i, p.dir)
	p, to, stuck := s.slideOn(i, p, to)
	if stuck {
		s.stuck++
		s.undoPush(p, player)
		return 0, p, to, false
	}
	if s.gm.on && !s.gm.noEntrance {
		if q, end, ok := s.goalMacro(i, p, to); ok {
			s.gm.count++
			s.gm.pushes += int64(q.more - p.more)
			p, to = q, end
		}
	}
	return s.childKey(i, p, to, player, gen, pnorm)
}

// childKey finishes pushChild after move p of box i, which ends on to: the
// deadlock tests, and the child's key.
func (s *searcher) childKey(i int, p push, to, player uint16, gen uint32, pnorm uint16) (key uint64, q push, end uint16, ok bool) {
	if s.cnt != nil {
		if k := s.cnt.violated(p.from, to, lastDir(p)); k >= 0 {
			s.cnt.pruned(s.cnt.owner[k])
			s.tablePruned++
			s.undoPush(p, player)
			return 0, p, to, false
		}
	}
	if s.freezeDeadlock(to) {
		s.frozenPruned++
		s.undoPush(p, player)
		return 0, p, to, false
	}
	var norm uint16
	if p.more == 0 && !p.goal {
		norm = s.childNorm(p.from, to, p.dir, gen, pnorm)
		if s.verifyNorm {
			if full := s.childReach(p.from); full != norm {
				panic(fmt.Sprintf("engine: childNorm %d, full search %d", norm, full))
			}
		}
	} else {
		// The squares the box passed are free now: a full search.
		norm = s.childReach(s.player)
	}
	return hashKey(s.boxHash ^ s.zpl[norm]), p, to, true
}

// childBound returns the bound a child is queued with: its bound, or when
// the evaluator only gives a lower bound (evaluator.child), under objective
// pushes that lower bound, which keeps A* admissible, and under objective
// any at least the parent's bound plus one. The exact bound is computed
// when the child is popped (see step); a lower-bound key there makes
// children whose bound the potentials leave open come out first in every
// list, only to be queued again, while under objective any the order is
// a heuristic and such a child is guessed to be one push worse. One that
// turns out better is expanded at once when popped. The box i ends on to,
// the player on last, after the pushes of p.
func (s *searcher) childBound(hcur, i int, to, last uint16, p push) int {
	h, exact := s.ev.child(hcur, i, to, last, 1+int(p.more), s.lazy)
	if !exact && s.objective == ObjectiveAny && h <= hcur {
		h = hcur + 1
	}
	return h
}
