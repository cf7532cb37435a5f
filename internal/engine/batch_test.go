package engine

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/sokod/sokod/sokoban"
)

// tablesEstimator answers in batches with a heuristic's tables, as a plugin
// wrapping a built-in would: the same bound through the batch path.
type tablesEstimator struct {
	e     *evaluator
	scale int // bounds are multiplied by it (1: the tables' own)
	calls int
	sizes []int
}

func newTablesEstimator(b *Board, h *Heuristic, scale int) *tablesEstimator {
	return &tablesEstimator{e: newEvaluator(b, h, len(b.StartBoxes)), scale: scale}
}

func (t *tablesEstimator) Estimate(_ context.Context, states Batch, out []uint32) error {
	t.calls++
	if len(t.sizes) < 64 {
		t.sizes = append(t.sizes, states.Len())
	}
	stride := 1 + states.Boxes
	for k := range out {
		pos := states.Data[k*stride : (k+1)*stride]
		v := t.e.sync(pos[1:], pos[0])
		if v >= infCost {
			out[k] = DeadEnd
		} else {
			out[k] = uint32(v * t.scale)
		}
	}
	return nil
}

// estimated returns a heuristic that gives the bound of h in batches.
func estimated(b *Board, h *Heuristic, scale int) (*Heuristic, *tablesEstimator) {
	te := newTablesEstimator(b, h, scale)
	return &Heuristic{Name: h.Name + "-batch", Admissible: h.Admissible && scale == 1, Estimator: te}, te
}

// oracleLevels returns the small levels and random ones, solvable or not.
func oracleLevels(t *testing.T, random int) []*sokoban.Level {
	levels := loadCollection(t, "testdata/small.xsb")
	rng := rand.New(rand.NewPCG(30, 2))
	for n := 0; n < random; {
		if src := randomLevel(rng); src != "" {
			if l, err := sokoban.Parse(src); err == nil && !l.Solved() {
				levels = append(levels, l)
				n++
			}
		}
	}
	return levels
}

// TestBatchEstimatorAgainstOracle solves with the matching bound given in
// batches, under objective pushes, and checks push counts, optimality and
// unsolvability against the oracle at several batch sizes. With batches of
// one the search is the in-process search exactly: the same positions
// expanded.
func TestBatchEstimatorAgainstOracle(t *testing.T) {
	n := 60
	if testing.Short() {
		n = 20
	}
	for i, l := range oracleLevels(t, n) {
		want := expectFromOracle(oraclePushes(l, 2_000_000))
		b := mustAnalyze(t, l)
		opts := Options{Objective: ObjectivePushes, Budget: Budget{Memory: 8 << 20}}
		plain, err := Solve(context.Background(), b, withHeuristic(opts, testHeuristic(b, RuleMatching)))
		if err != nil {
			t.Fatal(err)
		}
		for _, size := range []int{1, 7, 1024} {
			t.Run(fmt.Sprintf("%d/batch%d", i+1, size), func(t *testing.T) {
				h, te := estimated(b, testHeuristic(b, RuleMatching), 1)
				o := withHeuristic(opts, h)
				o.BatchSize = size
				r, err := Solve(context.Background(), b, o)
				if err != nil {
					t.Fatal(err)
				}
				if diff := cmp.Diff(want, summarize(r)); diff != "" {
					t.Errorf("(-oracle +engine):\n%s", diff)
				}
				if r.Status == Solved {
					checkSolution(t, l, r)
				}
				if b.Impossible != "" {
					return
				}
				if int64(te.calls) != r.Stats.Batches || r.Stats.Batches == 0 {
					t.Errorf("Stats.Batches %d, estimator called %d times", r.Stats.Batches, te.calls)
				}
				if slices.ContainsFunc(te.sizes, func(n int) bool { return n > size }) {
					t.Errorf("batch sizes %v, want at most %d", te.sizes, size)
				}
				if size == 1 && r.Stats.Nodes != plain.Stats.Nodes {
					t.Errorf("%d nodes in batches of one, %d in process", r.Stats.Nodes, plain.Stats.Nodes)
				}
			})
		}
	}
}

// TestBatchEstimatorOrders runs greedy, weighted and the default
// alternation under objective any with the bound in batches: every
// solution replays, no level is claimed unsolvable that the oracle solves,
// and batches of one expand what the in-process search expands.
func TestBatchEstimatorOrders(t *testing.T) {
	for i, l := range oracleLevels(t, 20) {
		want := oraclePushes(l, 2_000_000)
		b := mustAnalyze(t, l)
		for _, strat := range []Strategy{StrategyAlternate, StrategyGreedy, StrategyWeighted} {
			opts := Options{Objective: ObjectiveAny, Strategy: strat, Weight: 2, Off: TechPacking, Budget: Budget{Memory: 8 << 20}}
			plain, err := Solve(context.Background(), b, withHeuristic(opts, testHeuristic(b, RuleMatching)))
			if err != nil {
				t.Fatal(err)
			}
			for _, size := range []int{1, 64} {
				t.Run(fmt.Sprintf("%d/%d/batch%d", i+1, strat, size), func(t *testing.T) {
					h, _ := estimated(b, testHeuristic(b, RuleMatching), 1)
					o := withHeuristic(opts, h)
					o.BatchSize = size
					r, err := Solve(context.Background(), b, o)
					if err != nil {
						t.Fatal(err)
					}
					if (want >= 0) != (r.Status == Solved) || r.Optimal {
						t.Fatalf("oracle %d, engine %v (optimal %v)", want, r.Status, r.Optimal)
					}
					if r.Status == Solved {
						checkSolution(t, l, r)
					}
					if size == 1 && r.Stats.Nodes != plain.Stats.Nodes {
						t.Errorf("%d nodes in batches of one, %d in process", r.Stats.Nodes, plain.Stats.Nodes)
					}
				})
			}
		}
	}
}

// TestBatchUntrustedEstimator: a bound that is not admissible is refused
// under objective pushes; under objective any, its dead ends prove nothing.
func TestBatchUntrustedEstimator(t *testing.T) {
	levels := loadCollection(t, "testdata/unsolvable.xsb")
	for i, l := range levels {
		b := mustAnalyze(t, l)
		if b.Impossible != "" {
			continue
		}
		h, _ := estimated(b, testHeuristic(b, RuleMatching), 2)
		if _, err := Solve(context.Background(), b, Options{Objective: ObjectivePushes, Heuristic: h}); err == nil {
			t.Errorf("level %d: objective pushes accepted a bound that is not admissible", i+1)
		}
		r, err := Solve(context.Background(), b, Options{Objective: ObjectiveAny, Heuristic: h, Budget: Budget{Memory: 8 << 20}})
		if err != nil {
			t.Fatal(err)
		}
		if r.Status == Unsolvable && r.Stats.BatchPruned > 0 || r.Status == GaveUp && r.Stats.BatchPruned > 0 && !strings.Contains(r.Reason, "no proof") {
			t.Errorf("level %d: %v, %q after %d positions pruned by the untrusted bound", i+1, r.Status, r.Reason, r.Stats.BatchPruned)
		}
	}
}

// gridChecker judges positions with the state graph of exploreStates: a
// position is dead when no solution is reachable from it (exact), or,
// with lie set, also when it is on some path the oracle counts as
// shortest (a detector that is wrong).
type gridChecker struct {
	b     *Board
	g     *stateGraph
	index map[string]int
	lie   bool
	dist  []int // pushes from the start, for lie
	calls int
}

func newGridChecker(t *testing.T, l *sokoban.Level, b *Board, lie bool) *gridChecker {
	g := exploreStates(l, 200_000)
	if g == nil {
		t.Skip("level too large for the state graph")
	}
	c := &gridChecker{b: b, g: g, index: map[string]int{}, lie: lie}
	for s := range g.boxes {
		c.index[fmt.Sprint(g.boxes[s], g.norm[s])] = s
	}
	return c
}

func (c *gridChecker) Check(_ context.Context, states Batch, out []bool) error {
	c.calls++
	stride := 1 + states.Boxes
	for k := range out {
		pos := states.Data[k*stride : (k+1)*stride]
		s, ok := c.index[c.key(pos[1:], pos[0])]
		if !ok {
			return fmt.Errorf("position %v not in the state graph", pos)
		}
		out[k] = c.g.left[s] < 0 || (c.lie && c.g.left[s] > 0 && c.g.left[s]%3 == 0)
	}
	return nil
}

// key is the state graph's key of a position given in squares.
func (c *gridChecker) key(boxes []uint16, player uint16) string {
	b := c.b
	cells := make([]int, len(boxes))
	occupied := make(map[int]bool)
	for i, s := range boxes {
		cells[i] = int(b.Cell[s])
		occupied[cells[i]] = true
	}
	slices.Sort(cells)
	// The smallest cell the player reaches, as exploreStates normalises.
	seen := map[uint16]bool{player: true}
	norm := int(b.Cell[player])
	for q := []uint16{player}; len(q) > 0; q = q[1:] {
		for d := range 4 {
			n := b.Nbr[int(q[0])*4+d]
			if int(n) < b.Squares && !seen[n] && !occupied[int(b.Cell[n])] {
				seen[n] = true
				norm = min(norm, int(b.Cell[n]))
				q = append(q, n)
			}
		}
	}
	return fmt.Sprint(cells, norm)
}

// TestBatchChecker: a checker that is right and trusted may prove levels
// unsolvable, and optimality survives it; one that is wrong and untrusted
// never makes the search claim anything it did not prove.
func TestBatchChecker(t *testing.T) {
	levels := oracleLevels(t, 12)
	levels = append(levels, loadCollection(t, "testdata/unsolvable.xsb")...)
	for i, l := range levels {
		b := mustAnalyze(t, l)
		if b.Impossible != "" {
			continue
		}
		want := expectFromOracle(oraclePushes(l, 2_000_000))
		for _, lie := range []bool{false, true} {
			t.Run(fmt.Sprintf("%d/lie %v", i+1, lie), func(t *testing.T) {
				c := newGridChecker(t, l, b, lie)
				d := &Deadlocks{Name: "grid", Trusted: !lie, Checker: c}
				r, err := Solve(context.Background(), b, Options{Objective: ObjectivePushes, Heuristic: testHeuristic(b, RuleMatching),
					Deadlocks: []*Deadlocks{d}, BatchSize: 16, Budget: Budget{Memory: 8 << 20}})
				if err != nil {
					t.Fatal(err)
				}
				if r.Status == Solved {
					checkSolution(t, l, r)
				}
				if !lie {
					if diff := cmp.Diff(want, summarize(r)); diff != "" {
						t.Errorf("(-oracle +engine):\n%s", diff)
					}
					return
				}
				switch {
				case r.Status == Unsolvable && (r.Stats.BatchPruned > 0 || want.Status != Unsolvable):
					t.Errorf("claimed unsolvable on an untrusted checker's word: %s", r.Reason)
				case r.Optimal && r.Stats.BatchPruned > 0:
					t.Errorf("claimed optimal after the untrusted checker pruned %d positions", r.Stats.BatchPruned)
				case r.Optimal && r.Metrics.Pushes != want.Pushes:
					t.Errorf("claimed optimal with %d pushes, oracle %d", r.Metrics.Pushes, want.Pushes)
				case r.Status == GaveUp && !strings.Contains(r.Reason, "no proof"):
					t.Errorf("gave up without saying why: %q", r.Reason)
				}
			})
		}
	}
}

// failingEstimator fails, or answers out of range, on its nth call.
type failingEstimator struct {
	inner Estimator
	n     int
	how   string // "error", "range", "cancel"
	calls int
	stop  context.CancelFunc
}

func (f *failingEstimator) Estimate(ctx context.Context, states Batch, out []uint32) error {
	f.calls++
	if f.calls < f.n {
		return f.inner.Estimate(ctx, states, out)
	}
	switch f.how {
	case "range":
		if err := f.inner.Estimate(ctx, states, out); err != nil {
			return err
		}
		out[len(out)-1] = MaxEstimate + 1
		return nil
	case "cancel":
		f.stop()
		return ctx.Err()
	}
	return errors.New("the plugin died")
}

// TestBatchFailures: a failing estimator ends the solve with a BatchError
// and no result; one whose context ends during a call only gives up.
func TestBatchFailures(t *testing.T) {
	l := loadCollection(t, "testdata/small.xsb")[9]
	b := mustAnalyze(t, l)
	for _, tc := range []struct {
		how  string
		n    int
		want string // error text, or "" for a result
	}{
		{how: "error", n: 1, want: "the plugin died"},
		{how: "error", n: 3, want: "the plugin died"},
		{how: "range", n: 1, want: "above the largest"},
		{how: "range", n: 2, want: "above the largest"},
		{how: "cancel", n: 2},
	} {
		t.Run(fmt.Sprintf("%s/%d", tc.how, tc.n), func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			inner, _ := estimated(b, testHeuristic(b, RuleMatching), 1)
			f := &failingEstimator{inner: inner.Estimator, n: tc.n, how: tc.how, stop: cancel}
			h := &Heuristic{Name: "flaky", Admissible: true, Estimator: f}
			r, err := Solve(ctx, b, Options{Objective: ObjectivePushes, Heuristic: h, BatchSize: 4})
			if tc.want == "" {
				if err != nil || r.Status != GaveUp || r.Reason != ReasonCancelled {
					t.Fatalf("got %v, %v; want gave up, cancelled", r, err)
				}
				return
			}
			var be *BatchError
			if !errors.As(err, &be) || be.Component != "flaky" || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("got result %v, error %v; want a BatchError saying %q", r, err, tc.want)
			}
		})
	}
}

// TestBatchOptionsChecked: the strategies that cannot batch refuse batch
// components, and a heuristic cannot have both an estimator and tables.
func TestBatchOptionsChecked(t *testing.T) {
	b := mustAnalyze(t, loadCollection(t, "testdata/small.xsb")[2])
	h, _ := estimated(b, testHeuristic(b, RuleMatching), 1)
	both := *h
	both.Costs = testHeuristic(b, RuleMatching).Costs
	check := &Deadlocks{Name: "c", Checker: &gridChecker{}}
	for name, opts := range map[string]Options{
		"ida":         {Heuristic: h, Strategy: StrategyIDA},
		"ida checker": {Heuristic: testHeuristic(b, RuleMatching), Strategy: StrategyIDA, Deadlocks: []*Deadlocks{check}},
		"packing":     {Heuristic: h, Strategy: StrategyPacking},
		"both":        {Heuristic: &both},
		"size":        {Heuristic: h, BatchSize: -1},
	} {
		if _, err := Solve(context.Background(), b, opts); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}

// TestBatchProgress: progress reports count the batches and the time
// spent in them, and LowerBound covers the children waiting.
func TestBatchProgress(t *testing.T) {
	l := loadCollection(t, "testdata/bench.xsb")[0]
	b := mustAnalyze(t, l)
	inner, _ := estimated(b, testHeuristic(b, RuleMatching), 1)
	slow := &slowEstimator{inner: inner.Estimator}
	var now time.Time
	clock := func() time.Time { now = now.Add(time.Millisecond); return now }
	var reports []Progress
	_, err := Solve(context.Background(), b, Options{Objective: ObjectivePushes, Heuristic: &Heuristic{Name: "slow", Admissible: true, Estimator: slow},
		BatchSize: 32, Budget: Budget{Nodes: 3000}, Clock: clock, ProgressInterval: 10 * time.Millisecond,
		OnProgress: func(p Progress) { reports = append(reports, p) }})
	if err != nil {
		t.Fatal(err)
	}
	if len(reports) < 2 {
		t.Fatalf("%d progress reports", len(reports))
	}
	last := reports[len(reports)-1]
	if last.Batches == 0 || last.BatchWait < time.Duration(last.Batches)*time.Millisecond {
		t.Errorf("last report: %d batches, %v waiting; want each batch's millisecond counted", last.Batches, last.BatchWait)
	}
}

// slowEstimator is an estimator through which the test's clock advances.
type slowEstimator struct{ inner Estimator }

func (s *slowEstimator) Estimate(ctx context.Context, states Batch, out []uint32) error {
	return s.inner.Estimate(ctx, states, out)
}

// TestBatchAllocs: with an estimator in process, the search's steady
// state allocates nothing, batches included (measured as TestExpandAllocs
// measures the search without them).
func TestBatchAllocs(t *testing.T) {
	l := loadCollection(t, "testdata/bench12.xsb")[0]
	b := mustAnalyze(t, l)
	h, _ := estimated(b, testHeuristic(b, RuleMatching), 1)
	s := newSearcher(b, h, Options{Objective: ObjectivePushes, BatchSize: 64}, NewWorkspace(64<<20))
	s.watch(context.Background())
	if _, _, _, end := s.begin(); end {
		t.Fatal("decided at the root")
	}
	step := func() {
		if st, reason, _, end := s.step(); end {
			t.Fatalf("search ended: %v %s", st, reason)
		}
	}
	for range 20000 {
		step()
	}
	batches := s.bt.batches
	if allocs := testing.AllocsPerRun(5000, step); allocs != 0 {
		t.Errorf("%v allocations per expansion with batches, want 0", allocs)
	}
	if s.bt.batches == batches {
		t.Error("no batch sent in the measured expansions")
	}
}

// TestEvaluator: the reusable evaluator agrees with LowerBound on random
// positions visited one after another, and refuses bad ones.
func TestEvaluator(t *testing.T) {
	rng := rand.New(rand.NewPCG(30, 3))
	for i, l := range loadCollection(t, "testdata/small.xsb") {
		b := mustAnalyze(t, l)
		if b.Impossible != "" || len(b.Goals) >= b.Squares {
			continue
		}
		for _, rule := range []Rule{RuleSumMin, RuleGreedy, RuleMatching} {
			h := testHeuristic(b, rule)
			h.Penalties = []Penalty{{Squares: b.StartBoxes[:1], Cost: 2}}
			v, err := NewEvaluator(b, h)
			if err != nil {
				t.Fatal(err)
			}
			for range 200 {
				perm := rng.Perm(b.Squares)
				boxes := make([]uint16, len(b.Goals))
				for k := range boxes {
					boxes[k] = uint16(perm[k])
				}
				player := uint16(perm[len(boxes)])
				got, gotOK, err := v.Bound(boxes, player)
				if err != nil {
					t.Fatal(err)
				}
				want, wantOK, err := LowerBound(b, h, boxes, player)
				if err != nil {
					t.Fatal(err)
				}
				if got != want || gotOK != wantOK {
					t.Fatalf("level %d rule %v boxes %v player %d: evaluator %d (%v), LowerBound %d (%v)", i+1, rule, boxes, player, got, gotOK, want, wantOK)
				}
			}
			if len(b.Goals) > 1 {
				twice := slices.Repeat(b.StartBoxes[:1], len(b.Goals))
				if _, _, err := v.Bound(twice, b.StartPlayer); err == nil {
					t.Errorf("level %d: two boxes on one square accepted", i+1)
				}
			}
			if _, _, err := v.Bound(b.StartBoxes, b.StartBoxes[0]); err == nil {
				t.Errorf("level %d: the player on a box accepted", i+1)
			}
		}
	}
}
