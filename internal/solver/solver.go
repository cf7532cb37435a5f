// Package solver runs one solve end to end, the same way for `sokod solve`,
// `sokod bench` and the daemon: board analysis, the heuristic compiled once,
// the exhaustive search under its share of the budget, then, when the search
// gives up, the planners in order with the time that is left. In portfolio
// mode the search and the planners run side by side instead, each on its own
// core with the whole time budget, and the first to settle the level wins.
// Every solution it returns has been replayed by the sokoban verifier here,
// whoever found it.
package solver

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/sokod/sokod/board"
	"github.com/sokod/sokod/internal/engine"
	"github.com/sokod/sokod/internal/hostservice"
	"github.com/sokod/sokod/internal/supervisor"
	"github.com/sokod/sokod/sdk"
	"github.com/sokod/sokod/sokoban"
)

// DefaultSearchShare is the percentage of the time budget the exhaustive
// search gets when planners follow it. Most of the search's solutions come
// in its first seconds, and what it solves later fess mostly solves
// sooner: so the search gets a tenth of the budget, and the planners the
// rest. A smaller share is quicker on hard collections and slower on easy
// ones; the measurements behind it are in docs/benchmarks.md.
const DefaultSearchShare = 10

// DefaultPushesSearchShare is DefaultSearchShare under ObjectivePushes,
// where only the exhaustive search can give what was asked for (a
// planner's solution is never proved optimal), so the planners get what
// is left. That trades solutions the planners would find with more time
// for proofs of optimality (docs/benchmarks.md); --search-share 30 trades
// them back.
const DefaultPushesSearchShare = 80

// DefaultPlannerShare is the percentage of the time left that a planner
// gets when more planners follow it. The first planner, fess, settles
// nearly everything the planners settle, some of it late, so it gets most
// of the time and the next one what fess leaves (docs/benchmarks.md).
const DefaultPlannerShare = 80

// defaultShare is the search share a solve with objective o gets when its
// request leaves SearchShare at 0.
func defaultShare(o engine.Objective) int {
	if o == engine.ObjectivePushes {
		return DefaultPushesSearchShare
	}
	return DefaultSearchShare
}

// minSearchMemory is the least memory given to the search's table, whatever
// the analysis tables take of the budget.
const minSearchMemory = 1 << 20

// Heuristic compiles a lower bound for one analysed board; a
// registry.Heuristic is one.
type Heuristic interface {
	Prepare(ctx context.Context, b *engine.Board) (*engine.Heuristic, error)
}

// Deadlocks compiles a deadlock detector for one analysed board; a
// registry.Deadlocks is one.
type Deadlocks interface {
	Prepare(ctx context.Context, b *engine.Board) (*engine.Deadlocks, error)
}

// Planner is a planner resolved by name.
type Planner struct {
	// Name is the registry name, as results report it.
	Name    string
	Planner sdk.Planner
}

// Budget bounds one solve. Zero Time or Nodes means no limit; zero Memory
// means engine.DefaultMemory.
type Budget struct {
	// Time is the wall-clock budget of the whole solve, planners included.
	Time time.Duration
	// Memory bounds the search's table and open list, and is passed on to
	// planners.
	Memory int64
	// Nodes bounds the states the exhaustive search expands.
	Nodes int64
}

// Request is one solve.
type Request struct {
	Level     *sokoban.Level
	Objective engine.Objective
	// Strategy is the exhaustive search's (engine.Options.Strategy).
	Strategy engine.Strategy
	// Off switches search techniques off (engine.Options.Off): for
	// experiments and for measuring what each is worth.
	Off       engine.Techniques
	Heuristic Heuristic
	// Deadlocks add to the engine's own deadlock tests.
	Deadlocks []Deadlocks
	// BatchSize is the positions the search sends in one call to a
	// heuristic or detector that answers in batches
	// (engine.Options.BatchSize); 0 means engine.DefaultBatchSize.
	BatchSize int
	// Planners run in order after the exhaustive search gives up; none
	// means no fall-back.
	Planners []Planner
	Budget   Budget
	// SearchShare is the percentage (1 to 100) of Budget.Time the
	// exhaustive search may use when Planners is not empty; 0 means the
	// objective's default (DefaultSearchShare, DefaultPushesSearchShare).
	SearchShare int
	// PlannerShare is the percentage (1 to 100) of the time left that each
	// planner but the last may use; the last gets all that is left. 0
	// means DefaultPlannerShare.
	PlannerShare int
	// Portfolio runs the planners beside the exhaustive search instead of
	// after it: both get the whole time budget and half the memory each,
	// and the first verified solution (or the search's proof that there is
	// none) stops the other. It takes two cores; SearchShare is unused.
	Portfolio bool
	// Workspace, when set, holds the search's table (see engine.Workspace).
	Workspace *engine.Workspace
	// Clock is the injected clock; nil means time.Now.
	Clock func() time.Time
	// OnEvent, when set, receives progress about four times a second. It
	// must be quick. Calls never overlap, though in portfolio mode they
	// come from two goroutines.
	OnEvent func(Event)
	// Store, when set, is consulted before the search and given its
	// solution (see solveStored).
	Store Store
}

// Phase is the stage of a solve an event or a run belongs to.
type Phase string

// The phases of a solve.
const (
	PhaseSearch Phase = "search" // the exhaustive search
	PhasePlan   Phase = "plan"   // a planner
)

// Event is progress during a solve.
type Event struct {
	Phase Phase
	// Component is the running component: the heuristic's name during the
	// search, the planner's during a plan.
	Component string
	// Nodes is the work done by the running component, in its own units.
	Nodes int64
	// Stored, Depth, LowerBound and Memory are the search's (zero during a
	// plan; LowerBound -1 when there is none).
	Stored     int64
	Depth      int
	LowerBound int
	Memory     int64
	// BoxesOnGoals is the planner's best so far (zero during the search).
	BoxesOnGoals int
	// Generated is the pushes the search has tried (zero during a plan).
	Generated int64
	// Batches counts the search's calls to components that answer in
	// batches, BatchWait the time it spent waiting for them.
	Batches   int64
	BatchWait time.Duration
	// Position is the position the search was expanding (nil during a
	// plan); the event owns it.
	Position *Position
	// Elapsed is time since the solve began.
	Elapsed time.Duration
}

// Square is a board square, 0-based: X the column, Y the row.
type Square struct{ X, Y int }

// Position is the boxes and the player of one position.
type Position struct {
	Boxes  []Square
	Player Square
}

// position converts the engine's square numbers to board squares.
func position(b *engine.Board, boxes []uint16, player uint16) *Position {
	sq := func(s uint16) Square {
		x, y := b.XY(s)
		return Square{X: x, Y: y}
	}
	p := &Position{Boxes: make([]Square, len(boxes)), Player: sq(player)}
	for i, s := range boxes {
		p.Boxes[i] = sq(s)
	}
	return p
}

// The statuses of a Run.
const (
	RunSolved     = "solved"
	RunUnsolvable = "unsolvable"
	RunGaveUp     = "gave_up"
	RunInvalid    = "invalid" // a planner's solution failed verification
	RunFailed     = "failed"  // the component crashed or erred
)

// ReasonPlannerTime is a planner run's reason when its time ran out.
const ReasonPlannerTime = "time budget spent"

// Run is what one component did within a solve.
type Run struct {
	Phase     Phase         `json:"phase"`
	Component string        `json:"component"`
	Status    string        `json:"status"` // one of the Run* statuses
	Reason    string        `json:"reason,omitempty"`
	Nodes     int64         `json:"nodes"`
	Elapsed   time.Duration `json:"-"`
}

// Result is the outcome of a solve.
type Result struct {
	Status engine.Status
	// Reason says why the solve gave up or why the level is unsolvable.
	Reason string
	// Solution, when solved, has been replayed; Metrics are the replay's.
	Solution sokoban.Solution
	Metrics  sokoban.Metrics
	// Optimal is true when the exhaustive search proved the solution
	// push-optimal.
	Optimal bool
	// FoundBy names the component that settled the level: the heuristic's
	// name for the exhaustive search, else the planner's.
	FoundBy   string
	FoundIn   Phase
	Heuristic string
	Objective engine.Objective
	// Search is the exhaustive search's statistics.
	Search engine.Stats
	// Runs lists every component run in order.
	Runs []Run
	// Elapsed is the whole solve's clock time.
	Elapsed time.Duration
}

// Nodes is the work of every run, summed.
func (r *Result) Nodes() int64 {
	var n int64
	for _, run := range r.Runs {
		n += run.Nodes
	}
	return n
}

// Solve runs req. The error is for bad input (a board board.Analyze
// refuses, wrapped as *BadLevelError) and internal failures; gave up,
// unsolvable and cancelled are results.
func Solve(ctx context.Context, req Request) (*Result, error) {
	if req.Store != nil {
		return solveStored(ctx, req)
	}
	clock := req.Clock
	if clock == nil {
		clock = time.Now
	}
	s := &solving{req: req, tm: times{clock: clock, start: clock(), wall: time.Now()}}
	if req.Budget.Time > 0 {
		s.tm.deadline = s.tm.start.Add(req.Budget.Time)
	}
	if req.Level.Solved() {
		// Nothing to search: no analysis, no table.
		return alreadySolved(req.Level, req.Objective)
	}
	if res := s.budgetMemory(); res != nil {
		return res, nil
	}
	defer s.release(ctx)
	if res, err := s.prepare(ctx); res != nil || err != nil {
		return res, err
	}
	res := &Result{Heuristic: s.h.Name, Objective: req.Objective}
	defer func() { res.Elapsed = clock().Sub(s.tm.start) }()

	if len(req.Planners) > 0 && req.Portfolio {
		if err := s.portfolio(ctx, res); err != nil {
			return nil, err
		}
		return res, nil
	}
	share := req.SearchShare
	if share <= 0 || share > 100 {
		share = defaultShare(req.Objective)
	}
	if len(req.Planners) == 0 {
		share = 100
	}
	sr, err := s.search(ctx, share)
	if err != nil {
		return nil, err
	}
	res.addSearch(sr, s.h.Name)
	if sr.Status != engine.GaveUp || len(req.Planners) == 0 || ctx.Err() != nil {
		return res, nil
	}
	// The search's table is given back by now; the planners keep the
	// board and the heuristic alive and analyse the level again.
	pr := s.runPlanners(ctx)
	res.addPlans(ctx, pr, sr.Reason)
	return res, nil
}

// solving is one solve under way: the request, its clock and instants,
// the analysed board and the compiled components, and the memory left for
// the search's table and the planners once the level's tables are counted.
// Its methods are the solve's phases.
type solving struct {
	req Request
	tm  times
	// memory is what the search's table and open list, and the planners,
	// may use: the budget (half of it in portfolio mode) less the level's
	// tables.
	memory int64
	b      *engine.Board
	h      *engine.Heuristic
	ds     []*engine.Deadlocks
}

// budgetMemory sets s.memory. The level's tables come out of the budget
// first; a budget that cannot hold them is refused, with a result, before
// they are computed.
func (s *solving) budgetMemory() *Result {
	req := s.req
	memory := req.Budget.Memory
	if memory <= 0 {
		memory = engine.DefaultMemory
	}
	tables := engine.SolveBytes(req.Level)
	if req.Portfolio && len(req.Planners) > 0 {
		memory /= 2 // the search's half; the tables are counted in it
	}
	if tables+minSearchMemory > memory {
		return &Result{Status: engine.GaveUp, Objective: req.Objective, Runs: []Run{},
			Reason: fmt.Sprintf("%s: the level's tables need about %d MiB of the %d MiB the search may use",
				engine.ReasonMemory, (tables+minSearchMemory+1<<20-1)>>20, memory>>20)}
	}
	s.memory = memory - tables
	return nil
}

// prepare analyses the board and compiles the heuristic and the deadlock
// detectors, until the deadline like the search: on the largest boards it
// takes seconds. A result means the deadline or ctx ended it.
func (s *solving) prepare(ctx context.Context) (*Result, error) {
	pctx, cancel := s.tm.until(ctx, s.tm.deadline)
	defer cancel()
	var err error
	if s.b, err = board.AnalyzeContext(pctx, s.req.Level); err != nil {
		if pctx.Err() != nil {
			return s.stopped(ctx, "board analysis"), nil
		}
		return nil, &BadLevelError{Err: err}
	}
	if s.h, err = s.req.Heuristic.Prepare(pctx, s.b); err != nil {
		if pctx.Err() != nil {
			return s.stopped(ctx, "heuristic preparation"), nil
		}
		return nil, &ComponentError{What: "heuristic", Err: err}
	}
	for _, d := range s.req.Deadlocks {
		c, err := d.Prepare(pctx, s.b)
		if err != nil {
			if pctx.Err() != nil {
				return s.stopped(ctx, "deadlock detector preparation"), nil
			}
			return nil, &ComponentError{What: "deadlock detector", Err: err}
		}
		s.ds = append(s.ds, c)
	}
	return nil, nil
}

// release frees the plugin sessions behind the components that answer in
// batches, even when ctx has ended: the plugin would otherwise hold them
// until it stops.
func (s *solving) release(ctx context.Context) {
	type releaser interface {
		Release(context.Context) error
	}
	ctx = context.WithoutCancel(ctx)
	if s.h != nil {
		if r, ok := s.h.Estimator.(releaser); ok {
			_ = r.Release(ctx) // a failure is the supervisor's to log
		}
	}
	for _, d := range s.ds {
		if r, ok := d.Checker.(releaser); ok {
			_ = r.Release(ctx)
		}
	}
}

// alreadySolved is the result for a level whose boxes all stand on goals:
// solved by the empty solution, which is push-optimal.
func alreadySolved(l *sokoban.Level, o engine.Objective) (*Result, error) {
	m, err := sokoban.Replay(l, nil)
	if err != nil || !m.Solved {
		return nil, fmt.Errorf("internal error: the empty solution replays to solved=%v: %v", m.Solved, err)
	}
	return &Result{Status: engine.Solved, Solution: sokoban.Solution{}, Metrics: m, Optimal: true, Objective: o, Runs: []Run{}}, nil
}

// addSearch records the exhaustive search's run, and its result as the
// solve's.
func (res *Result) addSearch(sr *engine.Result, name string) {
	res.Search = sr.Stats
	res.Runs = append(res.Runs, Run{Phase: PhaseSearch, Component: name, Status: StatusName(sr.Status), Reason: sr.Reason,
		Nodes: sr.Stats.Nodes, Elapsed: sr.Stats.Elapsed})
	res.Status, res.Reason = sr.Status, sr.Reason
	if sr.Status != engine.GaveUp {
		if sr.Status == engine.Solved {
			res.Solution, res.Metrics, res.Optimal = sr.Solution, sr.Metrics, sr.Optimal
		}
		res.FoundBy, res.FoundIn = name, PhaseSearch
	}
}

// addPlans records the planners' runs after a search that gave up for
// searchReason, and their solution as the solve's.
func (res *Result) addPlans(ctx context.Context, pr plans, searchReason string) {
	res.Runs = append(res.Runs, pr.runs...)
	switch {
	case pr.by != "":
		res.Status, res.Reason = engine.Solved, ""
		res.Solution, res.Metrics = pr.sol, pr.metrics
		res.FoundBy, res.FoundIn = pr.by, PhasePlan
	case ctx.Err() != nil:
		res.Reason = engine.ReasonCancelled
	case len(pr.runs) > 0:
		res.Reason = fmt.Sprintf("%s; planners did not solve it either", searchReason)
	}
}

// portfolio runs the search and the planners side by side, each with the
// whole time budget and half the memory, until one settles the level or
// both give up, and records both in res. The search wins a tie: its
// solution may be proved optimal.
func (s *solving) portfolio(ctx context.Context, res *Result) error {
	if s.req.OnEvent != nil {
		var mu sync.Mutex
		onEvent := s.req.OnEvent
		s.req.OnEvent = func(e Event) {
			mu.Lock()
			defer mu.Unlock()
			onEvent(e)
		}
	}
	// The first to settle the level stops the other through stop.
	sctx, stop := context.WithCancel(ctx)
	defer stop()
	type searched struct {
		r   *engine.Result
		err error
	}
	searchDone := make(chan searched, 1)
	plansDone := make(chan plans, 1)
	go func() {
		r, err := s.search(sctx, 100)
		if err != nil || r.Status != engine.GaveUp {
			stop()
		}
		searchDone <- searched{r, err}
	}()
	go func() {
		pr := s.runPlanners(sctx)
		if pr.by != "" {
			stop()
		}
		plansDone <- pr
	}()
	sr, pr := <-searchDone, <-plansDone
	if sr.err != nil {
		return sr.err
	}
	if sr.r.Status != engine.GaveUp {
		// Planner runs the search's result stopped say so, not "cancelled".
		for k := range pr.runs {
			if pr.runs[k].Reason == engine.ReasonCancelled && ctx.Err() == nil {
				pr.runs[k].Reason = "stopped: the search settled the level"
			}
		}
		pr.by = ""
		res.addSearch(sr.r, s.h.Name)
		res.Runs = append(res.Runs, pr.runs...)
		return nil
	}
	if pr.by != "" && sr.r.Reason == engine.ReasonCancelled && ctx.Err() == nil {
		sr.r.Reason = "stopped: " + pr.by + " solved the level"
	}
	res.addSearch(sr.r, s.h.Name)
	res.addPlans(ctx, pr, sr.r.Reason)
	return nil
}

// plans is what the planners did: their runs, and the verified solution
// of the one that solved the level (by its name, or "" when none did).
type plans struct {
	runs    []Run
	by      string
	sol     sokoban.Solution
	metrics sokoban.Metrics
}

// runPlanners runs the request's planners in order until one returns a
// verified solution, each with s.memory bytes and PlannerShare of the time
// left before the deadline, the last with all of it.
func (s *solving) runPlanners(ctx context.Context) plans {
	var pr plans
	req, tm := s.req, s.tm
	env := planEnv{level: sdk.LevelFromBoard(s.b), host: hostservice.New(s.b, tm.clock)}
	share := req.PlannerShare
	if share <= 0 || share > 100 {
		share = DefaultPlannerShare
	}
	for k, p := range req.Planners {
		if ctx.Err() != nil {
			break
		}
		left := time.Duration(0)
		if !tm.deadline.IsZero() {
			if left = tm.deadline.Sub(tm.clock()); left <= 0 {
				break
			}
			if k < len(req.Planners)-1 {
				left = left * time.Duration(share) / 100
			}
		}
		run, sol, m := s.plan(ctx, p, env, left)
		pr.runs = append(pr.runs, run)
		if run.Status == RunSolved {
			pr.by, pr.sol, pr.metrics = p.Name, sol, m
			break
		}
	}
	return pr
}

// search runs the exhaustive search with s.memory bytes for its table and
// open list until share percent of the time budget is spent.
func (s *solving) search(ctx context.Context, share int) (*engine.Result, error) {
	req, tm, b, h, memory := s.req, s.tm, s.b, s.h, s.memory
	opts := engine.Options{
		Objective: req.Objective,
		Strategy:  req.Strategy,
		Off:       req.Off,
		Heuristic: h,
		Deadlocks: s.ds,
		BatchSize: req.BatchSize,
		Budget:    engine.Budget{Nodes: req.Budget.Nodes, Memory: max(memory, minSearchMemory)},
		Clock:     tm.clock,
		Workspace: req.Workspace,
	}
	if !tm.deadline.IsZero() {
		opts.Budget.Deadline = tm.deadline
		if share < 100 {
			opts.Budget.Deadline = tm.start.Add(req.Budget.Time * time.Duration(share) / 100)
		}
	}
	if req.OnEvent != nil {
		opts.OnProgress = func(p engine.Progress) {
			e := Event{Phase: PhaseSearch, Component: h.Name, Nodes: p.Nodes, Stored: p.Stored, Depth: p.Depth,
				LowerBound: p.LowerBound, Memory: p.Memory, Generated: p.Generated, Batches: p.Batches, BatchWait: p.BatchWait,
				Elapsed: tm.clock().Sub(tm.start)}
			if p.Boxes != nil {
				e.Position = position(b, p.Boxes, p.Player)
			}
			req.OnEvent(e)
		}
	}
	// The context ends at the deadline too: the search then stops even in
	// the middle of an expansion that takes seconds.
	sctx, cancel := tm.until(ctx, opts.Budget.Deadline)
	defer cancel()
	r, err := engine.Solve(sctx, b, opts)
	var be *engine.BatchError
	switch {
	case errors.As(err, &be) && be.Op == engine.OpCheck:
		return nil, &ComponentError{What: "deadlock detector", Err: err}
	case errors.As(err, &be):
		return nil, &ComponentError{What: "heuristic", Err: err}
	case err != nil:
		return nil, fmt.Errorf("search: %w", err)
	}
	return r, nil
}

// planEnv is what every planner of a solve is given: the level as the
// plugin protocol numbers it, and the host's primitives for it.
type planEnv struct {
	level *sdk.Level
	host  sdk.Host
}

// plan runs one planner with the time left (0: no limit) and verifies its
// solution. A planner that fails costs this run only.
func (s *solving) plan(ctx context.Context, p Planner, env planEnv, left time.Duration) (Run, sokoban.Solution, sokoban.Metrics) {
	req, tm := s.req, s.tm
	began := tm.clock()
	run := Run{Phase: PhasePlan, Component: p.Name}
	var nodes int64
	progress := func(pp sdk.PlanProgress) {
		nodes = int64(min(pp.Nodes, 1<<62))
		if req.OnEvent != nil {
			req.OnEvent(Event{Phase: PhasePlan, Component: p.Name, Nodes: nodes, LowerBound: -1,
				BoxesOnGoals: pp.BoxesOnGoals, Elapsed: tm.clock().Sub(tm.start)})
		}
	}
	if req.OnEvent != nil {
		req.OnEvent(Event{Phase: PhasePlan, Component: p.Name, LowerBound: -1, Elapsed: tm.clock().Sub(tm.start)})
	}
	pctx := ctx
	if left > 0 {
		// The planner is told its budget and also held to it, with a
		// little grace to return its answer.
		var cancel context.CancelFunc
		pctx, cancel = context.WithTimeout(ctx, left+planGrace)
		defer cancel()
	}
	budget := sdk.Budget{Time: left, MemoryBytes: uint64(s.memory)}
	pr, err := p.Planner.Plan(pctx, &sdk.PlanRequest{Level: env.level, Budget: budget}, env.host, progress)
	run.Elapsed, run.Nodes = tm.clock().Sub(began), nodes
	switch {
	case err != nil && ctx.Err() != nil:
		run.Status, run.Reason = RunGaveUp, engine.ReasonCancelled
		return run, nil, sokoban.Metrics{}
	case err != nil && errors.Is(err, context.DeadlineExceeded):
		run.Status, run.Reason = RunGaveUp, ReasonPlannerTime
		return run, nil, sokoban.Metrics{}
	case err != nil:
		run.Status, run.Reason = RunFailed, err.Error()
		var pe *supervisor.Error
		if errors.As(err, &pe) {
			// The cause (a path, a socket) is in the plugin host's log.
			run.Reason = pe.Brief()
		}
		return run, nil, sokoban.Metrics{}
	}
	run.Status, run.Reason = pr.Status.String(), pr.Reason
	if pr.Status == sdk.PlanUnsolvable {
		// Only the exhaustive search's proof counts: a planner that claims
		// the level unsolvable is taken as giving up.
		run.Status = RunGaveUp
		run.Reason = "planner says unsolvable: " + pr.Reason
	}
	if pr.Status != sdk.PlanSolved {
		return run, nil, sokoban.Metrics{}
	}
	sol, m, err := verify(req.Level, pr.Solution)
	if err != nil {
		run.Status, run.Reason = RunInvalid, err.Error()
		return run, nil, sokoban.Metrics{}
	}
	return run, sol, m
}

// planGrace is how long past its budget a planner may take to answer
// before its context is cancelled: within the half second by which a solve
// may overrun its time budget.
const planGrace = 250 * time.Millisecond

// times are a solve's clock and instants: its start and deadline (zero:
// none) on that clock, and its start on the real clock.
type times struct {
	clock           func() time.Time
	start, deadline time.Time
	wall            time.Time
}

// until returns ctx ending at the instant at on the solve's clock as well
// (zero: ctx as it is). The instant is timed on the real clock from the
// solve's start, so that an injected clock keeps its meaning and is read
// no more often.
func (tm times) until(ctx context.Context, at time.Time) (context.Context, context.CancelFunc) {
	if at.IsZero() {
		return context.WithCancel(ctx)
	}
	return context.WithDeadline(ctx, tm.wall.Add(at.Sub(tm.start)))
}

// stopped is the result of a solve whose preparation (the board analysis,
// a component's preparation) the deadline or ctx ended.
func (s *solving) stopped(ctx context.Context, phase string) *Result {
	req, tm := s.req, s.tm
	reason := engine.ReasonDeadline
	if ctx.Err() != nil {
		reason = engine.ReasonCancelled
	}
	return &Result{Status: engine.GaveUp, Reason: reason + " during the " + phase, Objective: req.Objective, Runs: []Run{},
		Elapsed: tm.clock().Sub(tm.start)}
}

// verify replays a LURD solution on l.
func verify(l *sokoban.Level, lurd string) (sokoban.Solution, sokoban.Metrics, error) {
	sol, err := sokoban.ParseSolution(lurd)
	if err != nil {
		return nil, sokoban.Metrics{}, fmt.Errorf("solution does not parse: %w", err)
	}
	m, err := sokoban.Replay(l, sol)
	if err != nil {
		return nil, sokoban.Metrics{}, fmt.Errorf("solution fails replay: %w", err)
	}
	if !m.Solved {
		return nil, sokoban.Metrics{}, errors.New("solution is legal but does not solve the level")
	}
	return sol, m, nil
}

// StatusName is a status as JSON outputs spell it: solved, unsolvable or
// gave_up.
func StatusName(st engine.Status) string {
	switch st {
	case engine.Solved:
		return RunSolved
	case engine.Unsolvable:
		return RunUnsolvable
	}
	return RunGaveUp
}

// BadLevelError is a level the engine cannot take (too many squares, say).
type BadLevelError struct{ Err error }

func (e *BadLevelError) Error() string { return e.Err.Error() }

// Unwrap returns the engine's error.
func (e *BadLevelError) Unwrap() error { return e.Err }

// ComponentError is a component (a heuristic or deadlock detector, built in
// or a plugin) that failed to prepare, or failed a batch call during the
// search (wrapping an *engine.BatchError).
type ComponentError struct {
	// What names the kind of component.
	What string
	Err  error
}

func (e *ComponentError) Error() string { return e.What + ": " + e.Err.Error() }

// Unwrap returns the component's error.
func (e *ComponentError) Unwrap() error { return e.Err }
