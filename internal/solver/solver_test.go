package solver

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/sokod/sokod/board"
	"github.com/sokod/sokod/internal/engine"
	"github.com/sokod/sokod/internal/heuristics"
	"github.com/sokod/sokod/sdk"
	"github.com/sokod/sokod/sokoban"
)

// twoBoxes needs a few pushes; with a one-node budget the search gives up.
const twoBoxes = `
#######
#.  $ #
# @$ .#
#     #
#######
`

// unsolvable has its box in a corner off the goal.
const unsolvable = `
#####
#$ .#
# @ #
#####
`

func level(t *testing.T, text string) *sokoban.Level {
	t.Helper()
	l, err := sokoban.Parse(text)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// solution returns a solution of text found by the engine, for fake
// planners to return.
func solution(t *testing.T, text string) string {
	t.Helper()
	b, err := board.Analyze(level(t, text))
	if err != nil {
		t.Fatal(err)
	}
	r, err := engine.Solve(context.Background(), b, engine.Options{Objective: engine.ObjectiveAny, Heuristic: heuristics.Matching(b), Budget: engine.Budget{Memory: 64 << 20}})
	if err != nil || r.Status != engine.Solved {
		t.Fatalf("engine: %v %v", r.Status, err)
	}
	return r.Solution.String()
}

type matching struct{}

func (matching) Prepare(_ context.Context, b *engine.Board) (*engine.Heuristic, error) {
	return heuristics.Matching(b), nil
}

// fakePlanner answers with a fixed result and records what it was given.
type fakePlanner struct {
	name   string
	result *sdk.PlanResult
	err    error
	calls  *[]string
	budget *time.Duration
	// wait makes Plan block until its context ends.
	wait bool
}

func (f fakePlanner) Plan(ctx context.Context, req *sdk.PlanRequest, host sdk.Host, progress func(sdk.PlanProgress)) (*sdk.PlanResult, error) {
	*f.calls = append(*f.calls, f.name)
	if f.budget != nil {
		*f.budget = req.Budget.Time
	}
	progress(sdk.PlanProgress{Nodes: 7, BoxesOnGoals: 1})
	if f.wait {
		<-ctx.Done()
		return nil, ctx.Err()
	}
	return f.result, f.err
}

func solved(lurd string) *sdk.PlanResult {
	return &sdk.PlanResult{Status: sdk.PlanSolved, Solution: lurd}
}

func TestFallBack(t *testing.T) {
	gaveUp := &sdk.PlanResult{Status: sdk.PlanGaveUp, Reason: "no idea"}
	twoBoxesSolution := solution(t, twoBoxes)
	tests := []struct {
		name     string
		level    string
		nodes    int64
		planners []fakePlanner
		want     []Run // Elapsed ignored
		status   engine.Status
		foundBy  string
	}{
		{
			name: "search solves, no planner runs", level: twoBoxes,
			planners: []fakePlanner{{name: "p1", result: solved(twoBoxesSolution)}},
			want:     []Run{{Phase: PhaseSearch, Component: "matching", Status: "solved"}},
			status:   engine.Solved, foundBy: "matching",
		},
		{
			name: "unsolvable is final", level: unsolvable,
			planners: []fakePlanner{{name: "p1", result: solved(twoBoxesSolution)}},
			want:     []Run{{Phase: PhaseSearch, Component: "matching", Status: "unsolvable"}},
			status:   engine.Unsolvable, foundBy: "matching",
		},
		{
			name: "planners in order until one solves", level: twoBoxes, nodes: 1,
			planners: []fakePlanner{
				{name: "gives-up", result: gaveUp},
				{name: "crashes", err: errors.New("plugin crashed")},
				{name: "lies", result: solved("RRR")},
				{name: "claims-unsolvable", result: &sdk.PlanResult{Status: sdk.PlanUnsolvable, Reason: "trust me"}},
				{name: "solves", result: solved(twoBoxesSolution)},
				{name: "never-called", result: solved(twoBoxesSolution)},
			},
			want: []Run{
				{Phase: PhaseSearch, Component: "matching", Status: "gave_up"},
				{Phase: PhasePlan, Component: "gives-up", Status: "gave_up", Reason: "no idea", Nodes: 7},
				{Phase: PhasePlan, Component: "crashes", Status: "failed", Reason: "plugin crashed", Nodes: 7},
				{Phase: PhasePlan, Component: "lies", Status: "invalid", Nodes: 7},
				{Phase: PhasePlan, Component: "claims-unsolvable", Status: "gave_up", Reason: "planner says unsolvable: trust me", Nodes: 7},
				{Phase: PhasePlan, Component: "solves", Status: "solved", Nodes: 7},
			},
			status: engine.Solved, foundBy: "solves",
		},
		{
			name: "no planner solves", level: twoBoxes, nodes: 1,
			planners: []fakePlanner{{name: "gives-up", result: gaveUp}},
			want: []Run{
				{Phase: PhaseSearch, Component: "matching", Status: "gave_up"},
				{Phase: PhasePlan, Component: "gives-up", Status: "gave_up", Reason: "no idea", Nodes: 7},
			},
			status: engine.GaveUp,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var calls []string
			var planners []Planner
			for _, p := range tt.planners {
				p.calls = &calls
				planners = append(planners, Planner{Name: p.name, Planner: p})
			}
			l := level(t, tt.level)
			res, err := Solve(context.Background(), Request{
				Level: l, Objective: engine.ObjectiveAny, Heuristic: matching{}, Planners: planners,
				Budget: Budget{Nodes: tt.nodes, Memory: 8 << 20, Time: time.Minute},
			})
			if err != nil {
				t.Fatal(err)
			}
			// The search's nodes and reason are the engine's; an invalid
			// solution's reason is the verifier's: present, not compared.
			got := append([]Run(nil), res.Runs...)
			for i := range got {
				got[i].Elapsed = 0
				if i == 0 {
					got[i].Nodes, got[i].Reason = 0, ""
				}
				if got[i].Status == "invalid" {
					if got[i].Reason == "" {
						t.Errorf("run %d: invalid without a reason", i)
					}
					got[i].Reason = ""
				}
			}
			if d := cmp.Diff(tt.want, got); d != "" {
				t.Errorf("runs (-want +got):\n%s", d)
			}
			if res.Status != tt.status || res.FoundBy != tt.foundBy {
				t.Errorf("status %v found by %q, want %v by %q", res.Status, res.FoundBy, tt.status, tt.foundBy)
			}
			if res.Status == engine.Solved {
				m, err := sokoban.Replay(l, res.Solution)
				if err != nil || !m.Solved || m != res.Metrics {
					t.Errorf("solution %s: replay %+v, %v; result metrics %+v", res.Solution, m, err, res.Metrics)
				}
				if res.FoundIn == PhasePlan && res.Optimal {
					t.Error("a planner's solution is claimed optimal")
				}
			}
		})
	}
}

// stepClock advances by step at every reading, so a search spends clock
// time without spending real time.
type stepClock struct {
	mu   sync.Mutex
	now  time.Time
	step time.Duration
}

func (c *stepClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(c.step)
	return c.now
}

// bigLevel is too large for the search to finish in a few hundred
// expansions.
const bigLevel = `
############
#          #
# $ # $ #  #
#   $   $  #
# # # # #  #
#  $  $    #
#.. ##### ##
#..@      #
#..########
####
`

func TestSearchShare(t *testing.T) {
	tests := []struct {
		objective engine.Objective
		share     int // 0: the objective's default
		want      int // percent of the 100 s the search should get
	}{
		{engine.ObjectivePushes, 0, 80},
		{engine.ObjectiveAny, 0, 10},
		{engine.ObjectivePushes, 20, 20},
		{engine.ObjectivePushes, 50, 50},
		{engine.ObjectivePushes, 90, 90},
		{engine.ObjectiveAny, 50, 50},
	}
	for _, tt := range tests {
		name := fmt.Sprintf("%v/%d", tt.objective, tt.share)
		t.Run(name, func(t *testing.T) {
			clock := &stepClock{now: time.Unix(0, 0), step: time.Second}
			var calls []string
			var budget time.Duration
			p := fakePlanner{name: "p", result: &sdk.PlanResult{Status: sdk.PlanGaveUp}, calls: &calls, budget: &budget}
			res, err := Solve(context.Background(), Request{
				Level: level(t, bigLevel), Objective: tt.objective, Heuristic: matching{},
				Planners: []Planner{{Name: "p", Planner: p}}, SearchShare: tt.share,
				Budget: Budget{Time: 100 * time.Second, Memory: 64 << 20}, Clock: clock.Now,
			})
			if err != nil {
				t.Fatal(err)
			}
			if res.Runs[0].Status != "gave_up" {
				t.Fatalf("the search ended %s (%s); the test needs it to run out of time", res.Runs[0].Status, res.Runs[0].Reason)
			}
			// The search stops at its share give or take a few clock
			// readings (a second each); the planner gets the rest of the
			// 100 s.
			const slack = 3 * time.Second
			searched := res.Search.Elapsed
			wantSearch := time.Duration(tt.want) * time.Second
			if searched < wantSearch || searched > wantSearch+slack {
				t.Errorf("search ran %v, want about %v", searched, wantSearch)
			}
			if left := 100*time.Second - wantSearch; budget > left || budget < left-slack {
				t.Errorf("planner budget %v, want about %v", budget, left)
			}
		})
	}
}

// TestPlannerShare checks that each planner but the last gets its share
// of the time left, and the last all of it: after a search that gives up at
// once, planners sharing 30% of 100 s get 30 s, then 21 s, then the rest.
func TestPlannerShare(t *testing.T) {
	tests := []struct {
		share int
		want  []time.Duration // each planner's budget
	}{
		{share: 30, want: []time.Duration{30 * time.Second, 21 * time.Second, 49 * time.Second}},
		{share: 100, want: []time.Duration{100 * time.Second, 0, 0}}, // the first spends it all
		// 0: DefaultPlannerShare, 80.
		{share: 0, want: []time.Duration{80 * time.Second, 16 * time.Second, 4 * time.Second}},
	}
	for _, tt := range tests {
		// The clock moves only when read, so a planner that answers at once
		// leaves almost all of its slice to the next; the one that waits
		// for its deadline spends it.
		clock := &stepClock{now: time.Unix(0, 0), step: time.Millisecond}
		var calls []string
		budgets := make([]time.Duration, 3)
		var planners []Planner
		for k := range budgets {
			p := fakePlanner{name: fmt.Sprint("p", k), result: &sdk.PlanResult{Status: sdk.PlanGaveUp}, calls: &calls, budget: &budgets[k]}
			planners = append(planners, Planner{Name: p.name, Planner: spendAll{p, clock}})
		}
		_, err := Solve(context.Background(), Request{
			Level: level(t, bigLevel), Objective: engine.ObjectivePushes, Heuristic: matching{},
			Planners: planners, PlannerShare: tt.share,
			Budget: Budget{Time: 100 * time.Second, Memory: 64 << 20, Nodes: 1}, Clock: clock.Now,
		})
		if err != nil {
			t.Fatal(err)
		}
		// Clock readings move time on by a millisecond each; a second
		// covers them.
		near := cmp.Comparer(func(a, b time.Duration) bool { return (a - b).Abs() < time.Second })
		if diff := cmp.Diff(tt.want, budgets, near); diff != "" {
			t.Errorf("share %d%%: planner budgets (-want +got):\n%s", tt.share, diff)
		}
	}
}

// spendAll is a planner that uses its whole time budget on clock, then
// answers as p.
type spendAll struct {
	p     fakePlanner
	clock *stepClock
}

func (s spendAll) Plan(ctx context.Context, req *sdk.PlanRequest, host sdk.Host, progress func(sdk.PlanProgress)) (*sdk.PlanResult, error) {
	s.clock.mu.Lock()
	s.clock.now = s.clock.now.Add(req.Budget.Time)
	s.clock.mu.Unlock()
	return s.p.Plan(ctx, req, host, progress)
}

func TestEventsNameTheComponent(t *testing.T) {
	var calls []string
	var events []Event
	p := fakePlanner{name: "fess", result: &sdk.PlanResult{Status: sdk.PlanGaveUp}, calls: &calls}
	clock := &stepClock{now: time.Unix(0, 0), step: time.Second}
	_, err := Solve(context.Background(), Request{
		Level: level(t, bigLevel), Objective: engine.ObjectivePushes, Heuristic: matching{},
		// 4 s of search on a clock that moves a second per reading: long
		// enough for the search to report.
		Planners: []Planner{{Name: "fess", Planner: p}}, SearchShare: 20,
		Budget: Budget{Time: 20 * time.Second, Memory: 64 << 20}, Clock: clock.Now,
		OnEvent: func(e Event) { events = append(events, e) },
	})
	if err != nil {
		t.Fatal(err)
	}
	seen := map[Phase]string{}
	for _, e := range events {
		seen[e.Phase] = e.Component
	}
	if d := cmp.Diff(map[Phase]string{PhaseSearch: "matching", PhasePlan: "fess"}, seen); d != "" {
		t.Errorf("phases and components (-want +got):\n%s", d)
	}
	if last := events[len(events)-1]; last.Phase != PhasePlan || last.Nodes != 7 || last.BoxesOnGoals != 1 {
		t.Errorf("last event %+v, want the planner's progress", last)
	}
}

func TestSearchEventsCarryThePosition(t *testing.T) {
	var events []Event
	clock := &stepClock{now: time.Unix(0, 0), step: time.Second}
	l := level(t, bigLevel)
	_, err := Solve(context.Background(), Request{
		Level: l, Objective: engine.ObjectivePushes, Heuristic: matching{},
		Budget: Budget{Time: 5 * time.Second, Memory: 64 << 20}, Clock: clock.Now,
		OnEvent: func(e Event) { events = append(events, e) },
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(events) == 0 {
		t.Fatal("no events")
	}
	for _, e := range events {
		p := e.Position
		if p == nil || len(p.Boxes) != l.Boxes() || e.Generated < e.Nodes {
			t.Fatalf("event %+v: want a position of %d boxes and generated >= nodes", e, l.Boxes())
		}
		for _, sq := range append([]Square{p.Player}, p.Boxes...) {
			if l.At(sq.X, sq.Y).Has(sokoban.Wall) {
				t.Errorf("event %+v: a piece on a wall at %+v", e, sq)
			}
		}
	}
}

func TestAlreadySolved(t *testing.T) {
	r, err := Solve(context.Background(), Request{Level: level(t, "#####\n#@**#\n#####\n"), Objective: engine.ObjectiveAny, Heuristic: matching{},
		Budget: Budget{Time: time.Second, Memory: 64 << 20}})
	if err != nil {
		t.Fatal(err)
	}
	want := &Result{Status: engine.Solved, Solution: sokoban.Solution{}, Metrics: sokoban.Metrics{Solved: true}, Optimal: true, Objective: engine.ObjectiveAny, Runs: []Run{}}
	if d := cmp.Diff(want, r); d != "" {
		t.Errorf("result (-want +got):\n%s", d)
	}
}

// blind is an admissible bound that knows only dead squares: every other
// cost is 0, so a pushes search on it is breadth-first and slow on any
// level of some size.
type blind struct{}

func (blind) Prepare(_ context.Context, b *engine.Board) (*engine.Heuristic, error) {
	h := heuristics.Simple(b)
	h.Name, h.RegionCosts = "blind", nil
	for i, c := range h.Costs {
		if c != engine.Inf {
			h.Costs[i] = 0
		}
	}
	return h, nil
}

// openRoom takes the matching search a moment and the blind one far
// longer than its planner.
const openRoom = `
##############
#            #
#  $  $  $   #
#            #
#   $   $    #
#            #
#           @#
#..  ####    #
#... #  #    #
######  ######
`

func TestPortfolio(t *testing.T) {
	gaveUp := &sdk.PlanResult{Status: sdk.PlanGaveUp, Reason: "no idea"}
	tests := []struct {
		name    string
		level   string
		nodes   int64
		planner fakePlanner
		// heuristic is the search's, matching when nil.
		heuristic Heuristic
		want      []Run // Elapsed and Nodes ignored
		status    engine.Status
		foundBy   string
	}{
		{
			// The search could run for minutes; the planner's solution
			// stops it.
			name: "planner solves during the search", level: openRoom, heuristic: blind{},
			planner: fakePlanner{name: "p", result: solved(solution(t, openRoom))},
			want: []Run{
				{Phase: PhaseSearch, Component: "blind", Status: "gave_up", Reason: "stopped: p solved the level"},
				{Phase: PhasePlan, Component: "p", Status: "solved"},
			},
			status: engine.Solved, foundBy: "p",
		},
		{
			name: "search solves, planner stopped", level: twoBoxes,
			planner: fakePlanner{name: "p", wait: true},
			want: []Run{
				{Phase: PhaseSearch, Component: "matching", Status: "solved"},
				{Phase: PhasePlan, Component: "p", Status: "gave_up", Reason: "stopped: the search settled the level"},
			},
			status: engine.Solved, foundBy: "matching",
		},
		{
			name: "search proves unsolvable, planner stopped", level: unsolvable,
			planner: fakePlanner{name: "p", wait: true},
			want: []Run{
				{Phase: PhaseSearch, Component: "matching", Status: "unsolvable", Reason: "the box at column 2, row 2 can never reach a goal"},
				{Phase: PhasePlan, Component: "p", Status: "gave_up", Reason: "stopped: the search settled the level"},
			},
			status: engine.Unsolvable, foundBy: "matching",
		},
		{
			name: "both give up", level: twoBoxes, nodes: 1,
			planner: fakePlanner{name: "p", result: gaveUp},
			want: []Run{
				{Phase: PhaseSearch, Component: "matching", Status: "gave_up", Reason: "node limit"},
				{Phase: PhasePlan, Component: "p", Status: "gave_up", Reason: "no idea"},
			},
			status: engine.GaveUp,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var calls []string
			var budget time.Duration
			tt.planner.calls, tt.planner.budget = &calls, &budget
			// Events come from two goroutines; the race detector checks
			// that Solve serialises them.
			var events []Event
			const limit = time.Minute
			if tt.heuristic == nil {
				tt.heuristic = matching{}
			}
			l := level(t, tt.level)
			res, err := Solve(context.Background(), Request{
				Level: l, Objective: engine.ObjectivePushes, Heuristic: tt.heuristic, Portfolio: true,
				Planners: []Planner{{Name: tt.planner.name, Planner: tt.planner}},
				Budget:   Budget{Nodes: tt.nodes, Memory: 64 << 20, Time: limit},
				OnEvent:  func(e Event) { events = append(events, e) },
			})
			if err != nil {
				t.Fatal(err)
			}
			got := append([]Run(nil), res.Runs...)
			for i := range got {
				got[i].Elapsed, got[i].Nodes = 0, 0
			}
			want := tt.want
			plannerRan := len(got) > 1
			if tt.foundBy == "matching" && !plannerRan {
				// The search settled the level before the planner's
				// goroutine began: it never runs, which is as good.
				want = want[:1]
			}
			if d := cmp.Diff(want, got); d != "" {
				t.Errorf("runs (-want +got):\n%s", d)
			}
			if res.Status != tt.status || res.FoundBy != tt.foundBy {
				t.Errorf("status %v found by %q, want %v by %q", res.Status, res.FoundBy, tt.status, tt.foundBy)
			}
			if res.Status == engine.Solved {
				if m, err := sokoban.Replay(l, res.Solution); err != nil || !m.Solved {
					t.Errorf("solution %s: replay %+v, %v", res.Solution, m, err)
				}
			}
			// Side by side, the planner is not left the search's
			// leftovers: it starts with (almost) the whole budget.
			if plannerRan && budget < limit-5*time.Second {
				t.Errorf("planner budget %v, want about %v", budget, limit)
			}
			if plannerRan && len(events) == 0 {
				t.Error("no progress events")
			}
		})
	}
}

// rowsLevel is a level with rows of boxes and each row's goals at its
// other end: many boxes, so that its analysis and the search's first
// steps each take seconds.
func rowsLevel(t *testing.T, rows, boxes, width int) *sokoban.Level {
	t.Helper()
	var sb strings.Builder
	sb.WriteString(strings.Repeat("#", width) + "\n")
	sb.WriteString("#@" + strings.Repeat(" ", width-3) + "#\n")
	for range rows {
		sb.WriteString("# " + strings.Repeat("$", boxes) + strings.Repeat(" ", width-3-2*boxes) + strings.Repeat(".", boxes) + "#\n")
		sb.WriteString("#" + strings.Repeat(" ", width-2) + "#\n")
	}
	sb.WriteString(strings.Repeat("#", width) + "\n")
	return level(t, sb.String())
}

// TestBudgetsHoldOnLargeLevels: a solve of a level with many boxes ends
// soon after its time budget whatever phase it is in (the analysis, the
// start's matching, an expansion), and a memory budget too small for the
// level's tables is refused before they are computed.
func TestBudgetsHoldOnLargeLevels(t *testing.T) {
	t.Run("time", func(t *testing.T) {
		l := rowsLevel(t, 20, 25, 64) // 500 boxes
		for _, budget := range []time.Duration{100 * time.Millisecond, 700 * time.Millisecond} {
			start := time.Now()
			res, err := Solve(context.Background(), Request{Level: l, Heuristic: matching{}, Budget: Budget{Time: budget, Memory: 1 << 30}})
			elapsed := time.Since(start)
			if err != nil {
				t.Fatal(err)
			}
			if res.Status != engine.GaveUp || !strings.HasPrefix(res.Reason, engine.ReasonDeadline) {
				t.Errorf("budget %v: %v (%s), want gave up for the time limit", budget, res.Status, res.Reason)
			}
			if elapsed > budget+time.Second {
				t.Errorf("budget %v: the solve returned after %v", budget, elapsed.Round(time.Millisecond))
			}
		}
	})
	t.Run("memory", func(t *testing.T) {
		l := rowsLevel(t, 60, 50, 128) // 3000 boxes: 90 MB per distance table
		start := time.Now()
		res, err := Solve(context.Background(), Request{Level: l, Heuristic: matching{}, Budget: Budget{Time: time.Minute, Memory: 64 << 20}})
		if err != nil {
			t.Fatal(err)
		}
		if res.Status != engine.GaveUp || !strings.HasPrefix(res.Reason, engine.ReasonMemory) {
			t.Errorf("%v (%s), want gave up for the memory budget", res.Status, res.Reason)
		}
		if elapsed := time.Since(start); elapsed > time.Second {
			t.Errorf("refusing took %v: the tables were computed", elapsed)
		}
	})
}
