package engine

import (
	"context"
	"time"
)

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
	pathDead pathDeadlocks // which of the path's positions hold a learned deadlock
	onPath   []uint64      // bit per table slot
	rebuild  []uint32      // scratch: records from target up to the path

	moves []push // scratch: pushes of the expanded state

	// IDA* (ida.go)
	ida                      bool
	threshold, nextThreshold int
	idaStack                 []idaChild

	// PI-corral pruning
	corralPruning bool
	cmark         []uint32 // corral generation per square (free squares and boxes)
	kbox          []uint16 // boxes of the corral being checked
	kplain        []uint16 // the corral's boxes before outside boxes joined (piCorral)
	kregion       int      // lockedCorral: the region's own boxes are kbox[:kregion]
	kbest         []uint16 // the boxes of the PI-corral cmoves came from
	kred          []uint16 // scratch: learnNoPush's and learnSub's boxes
	noPushTried   []uint64 // the corrals learnNoPush tried, by key
	kin           uint16   // and a square of it
	cneed         bool     // the corral being checked needs work
	cscratch      []push   // its available inward pushes
	cmoves        []push   // those of the best corral so far
	inCorral      bool     // the expansion is restricted to a PI-corral

	// corral deadlocks (corral.go, subsearch.go), frozen goals
	// (goalfreeze.go)
	corralDeadlocks bool
	sub             *subSearch
	lockedDead      int64
	learned         learnedSets // corral deadlocks proved (learned.go)
	lcorral         []uint16    // scratch: a learned set's corral
	cregion         int         // lockedCorral: the region is queue[:cregion]
	frozenGoalTest  bool
	gf              goalFreeze
	cluster         *clusterSearch // nil with TechClusterDeadlocks off
	clusterPruned   int64
	// onClusterDead (tests) sees the boxes and the player of every cluster
	// a search proves dead.
	onClusterDead func(k []uint16, player uint16)
	// onCorralDead (tests) sees the boxes and the player of every corral
	// found dead by its own boxes.
	onCorralDead func(k []uint16, player uint16)
	// onNoPushDead (tests) sees the boxes and the corral of every set
	// learnNoPush keeps.
	onNoPushDead func(k, c []uint16)

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
	fOnly  uint32 // when set, the freeze test counts only the boxes cmark marks with it
	// frozeOnGoal: the last freeze test found its box frozen, with boxes on
	// goals only (in fstack)
	frozeOnGoal bool

	tt     *table
	pool   *entryPool
	queues []*openQueue // one, or two taking turns
	kinds  []queueKind  // how each queue orders states
	turn   int          // the queue to expand from next
	popped int          // the queue the last state came from
	lazy   bool         // tests: defer every inexact child bound to its pop
	ev     *evaluator
	bt     *batcher  // batch components (batch.go), nil without
	pk     packGuide // the packing search's (packing.go)
	// back is the backward search running beside this one (backward.go),
	// nil without: a child it has reached joins the two searches' paths
	// into a solution, and met is then its record there.
	back   *pullSearch
	met    uint32
	pkTerm int // the packing part of the key of the state being queued
	// greedyPops counts the pops from greedy open lists, for the escapes
	// (escapeEvery).
	greedyPops uint64

	// statistics and bookkeeping
	nodes, generated, duplicates, reopened int64
	deferred                               int64
	frozenPruned, matchPruned, tablePruned int64
	corrals, corralDead                    int64
	macros, macroPushes, stuck             int64
	maxDepth, initialLB                    int
	proofHolds                             bool
	done                                   <-chan struct{}
	ctx                                    context.Context // the search's, set by run
	start, lastProgress, lastCheck         time.Time
	sinceCheck, checkInterval              int
}

func newSearcher(b *Board, h *Heuristic, opts Options, ws *Workspace) *searcher {
	n := b.Squares
	s := &searcher{
		b: b, nbr: b.Nbr, wall: uint16(n), goals: b.GoalIndex, zbox: b.ZBox, zpl: b.ZPlayer,
		objective: opts.Objective, weight: opts.Weight, budget: opts.Budget,
		clock: opts.Clock, progress: opts.OnProgress, interval: opts.ProgressInterval,
		lazy: opts.lazyBound, met: noRecord,
	}
	if s.interval <= 0 {
		s.interval = defaultProgressInterval
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
	s.corralPruning = opts.Off&TechPICorrals == 0
	s.corralDeadlocks = opts.Off&TechCorralDeadlocks == 0
	if s.corralDeadlocks {
		s.learned.init(n)
		s.sub = newSubSearch(b, &s.learned)
		s.lcorral = make([]uint16, 0, n)
		s.noPushTried = make([]uint64, noPushTried)
	}
	if opts.Off&TechClusterDeadlocks == 0 {
		s.cluster = newClusterSearch(b)
		if s.learned.bySq == nil {
			s.learned.init(n)
		}
	}
	s.frozenGoalTest = opts.Off&TechFrozenGoals == 0
	if s.frozenGoalTest {
		s.gf.init(b)
	}
	s.tunnels, s.slide = opts.Off&TechTunnels == 0, b.Slide
	s.cmark = make([]uint32, n+1)
	s.kbox = make([]uint16, 0, len(b.StartBoxes))
	s.kplain = make([]uint16, 0, len(b.StartBoxes))
	s.kbest = make([]uint16, 0, len(b.StartBoxes))
	s.kred = make([]uint16, 0, len(b.StartBoxes))
	s.cscratch = make([]push, 0, 4*len(b.StartBoxes))
	s.cmoves = make([]push, 0, 4*len(b.StartBoxes))
	s.pathRec = make([]uint32, 0, 1024)
	s.pathPush = make([]push, 0, 1024)
	s.pathDead.init(n)
	s.rebuild = make([]uint32, 0, 1024)
	ws.reset()
	s.tt, s.pool, s.onPath = ws.tt, ws.pool, ws.onPath
	s.gm.init(b, opts.Objective == ObjectiveAny && opts.Off&TechGoalMacros == 0, opts.Off&TechHomeMoves != 0, len(ws.tt.slots))
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
	case opts.Strategy == StrategyPacking && opts.plan != nil:
		s.kinds = []queueKind{byPacking}
		s.pk.init(b, opts.plan, opts.keying, opts.seed)
		if s.gm.on {
			// The macros fill the goal areas in the plan's order, not in
			// the areas' own, which the plan need not follow.
			s.gm.followPlan(s.pk.phaseOf)
		}
	default:
		s.kinds = []queueKind{byBound, byAStar}
	}
	s.queues = ws.queues[:len(s.kinds)]
	s.ev = newEvaluator(b, tablesOf(b, h), len(b.StartBoxes))
	s.bt = newBatcher(h, opts.Deadlocks, opts.BatchSize, len(b.StartBoxes))
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
