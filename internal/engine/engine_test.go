package engine

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/sokod/sokod/board"
	"github.com/sokod/sokod/sokoban"
)

// Heuristics built here from the board tables, the same way
// internal/heuristics compiles them (that package imports this one, so the
// tests cannot import it).
func testHeuristic(b *Board, rule Rule) *Heuristic {
	h := plainHeuristic(b, rule)
	h.RegionCosts = append([]uint16(nil), b.RegionDist[:b.Squares*Regions*len(b.Goals)]...)
	return h
}

// plainHeuristic is testHeuristic without region costs.
func plainHeuristic(b *Board, rule Rule) *Heuristic {
	costs := append([]uint16(nil), b.Dist[:b.Squares*len(b.Goals)]...)
	return &Heuristic{Name: rule.String(), Costs: costs, Rule: rule, Admissible: rule != RuleGreedy}
}

// offIf returns t when off is set, else nothing.
func offIf(off bool, t Techniques) Techniques {
	if off {
		return t
	}
	return 0
}

func loadCollection(t testing.TB, path string) []*sokoban.Level {
	t.Helper()
	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	c, err := sokoban.ParseCollection(string(src))
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return c.Levels
}

func mustAnalyze(t testing.TB, l *sokoban.Level) *Board {
	t.Helper()
	b, err := board.Analyze(l)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func solve(t testing.TB, b *Board, rule Rule, obj Objective, budget Budget) *Result {
	t.Helper()
	r, err := Solve(context.Background(), b, Options{Objective: obj, Heuristic: testHeuristic(b, rule), Budget: budget})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// checkSolution replays a solved result independently of Solve's own check.
func checkSolution(t *testing.T, l *sokoban.Level, r *Result) {
	t.Helper()
	m, err := sokoban.Replay(l, r.Solution)
	if err != nil {
		t.Fatalf("solution %s does not replay: %v", r.Solution, err)
	}
	if !m.Solved {
		t.Fatalf("solution %s does not solve the level", r.Solution)
	}
	if diff := cmp.Diff(r.Metrics, m); diff != "" {
		t.Errorf("metrics differ from replay (-result +replay):\n%s", diff)
	}
}

// summary is what the tests compare for one solve.
type summary struct {
	Status  Status
	Pushes  int
	Optimal bool
}

func summarize(r *Result) summary {
	return summary{Status: r.Status, Pushes: r.Metrics.Pushes, Optimal: r.Optimal}
}

// expectFromOracle turns the oracle's answer into the expected push-optimal
// summary.
func expectFromOracle(o int) summary {
	if o < 0 {
		return summary{Status: Unsolvable}
	}
	return summary{Status: Solved, Pushes: o, Optimal: true}
}

func TestPushOptimalAgainstOracle(t *testing.T) {
	levels := loadCollection(t, "testdata/small.xsb")
	for i, l := range levels {
		want := oraclePushes(l, 2_000_000)
		if want < 0 {
			t.Fatalf("level %d (%s): the oracle says %d; these fixtures must be solvable and small", i+1, l.Title, want)
		}
		for _, rule := range []Rule{RuleSumMin, RuleMatching} {
			t.Run(fmt.Sprintf("%d-%s/%s", i+1, strings.ReplaceAll(l.Title, " ", "_"), rule), func(t *testing.T) {
				b := mustAnalyze(t, l)
				r := solve(t, b, rule, ObjectivePushes, Budget{Memory: 8 << 20})
				if diff := cmp.Diff(expectFromOracle(want), summarize(r)); diff != "" {
					t.Errorf("(-oracle +engine):\n%s", diff)
				}
				if r.Status == Solved {
					checkSolution(t, l, r)
				}
			})
		}
	}
}

// randomLevel builds a random small room. Some are unsolvable, some have
// boxes walled in; all are valid levels.
func randomLevel(rng *rand.Rand) string {
	w, h := 5+rng.IntN(4), 5+rng.IntN(3)
	grid := make([][]byte, h)
	var floor [][2]int
	for y := range grid {
		grid[y] = make([]byte, w)
		for x := range grid[y] {
			switch {
			case x == 0 || y == 0 || x == w-1 || y == h-1 || rng.IntN(100) < 10:
				grid[y][x] = '#'
			default:
				grid[y][x] = ' '
				floor = append(floor, [2]int{x, y})
			}
		}
	}
	rng.Shuffle(len(floor), func(i, j int) { floor[i], floor[j] = floor[j], floor[i] })
	boxes := 1 + rng.IntN(3)
	if len(floor) < boxes*2+1 {
		return ""
	}
	p := floor[0]
	grid[p[1]][p[0]] = '@'
	for k := 0; k < boxes; k++ {
		b := floor[1+k]
		grid[b[1]][b[0]] = '$'
	}
	// Goals: mostly on free squares, sometimes under a box.
	for k := 0; k < boxes; k++ {
		var g [2]int
		if rng.IntN(6) == 0 {
			g = floor[1+k]
		} else {
			g = floor[1+boxes+k]
		}
		switch grid[g[1]][g[0]] {
		case '$':
			grid[g[1]][g[0]] = '*'
		case '@':
			grid[g[1]][g[0]] = '+'
		default:
			grid[g[1]][g[0]] = '.'
		}
	}
	if rng.IntN(2) == 0 {
		scramble(rng, grid, 1+rng.IntN(25))
	}
	var sb strings.Builder
	for _, row := range grid {
		sb.Write(row)
		sb.WriteByte('\n')
	}
	return sb.String()
}

// tunnelLevel builds two random rooms joined by a corridor walled on both
// sides, one to four squares long, along a row or (transposed) a column.
// Sometimes a second corridor makes a loop, whose corridor squares are no
// tunnel squares. Boxes, goals (sometimes in a corridor) and the player go
// on random floor squares, as in randomLevel.
func tunnelLevel(rng *rand.Rand) string {
	wa, ha := 2+rng.IntN(3), 2+rng.IntN(3)
	wb, hb := 2+rng.IntN(3), 2+rng.IntN(3)
	length := 1 + rng.IntN(4)
	w, h := wa+length+wb+2, max(ha, hb)+2
	grid := make([][]byte, h)
	for y := range grid {
		grid[y] = []byte(strings.Repeat("#", w))
	}
	carve := func(x0, y0, x1, y1 int) {
		for y := y0; y <= y1; y++ {
			for x := x0; x <= x1; x++ {
				grid[y][x] = ' '
			}
		}
	}
	carve(1, 1, wa, ha)
	carve(wa+length+1, 1, wa+length+wb, hb)
	rows := min(ha, hb)
	y := 1 + rng.IntN(rows)
	carve(wa+1, y, wa+length, y)
	if rows > 1 && rng.IntN(4) == 0 {
		y2 := 1 + rng.IntN(rows)
		carve(wa+1, y2, wa+length, y2)
	}
	if rng.IntN(2) == 0 { // transpose
		t := make([][]byte, w)
		for x := range t {
			t[x] = make([]byte, h)
			for y := range t[x] {
				t[x][y] = grid[y][x]
			}
		}
		grid = t
	}
	var floor [][2]int
	for y, row := range grid {
		for x, c := range row {
			if c == ' ' {
				floor = append(floor, [2]int{x, y})
			}
		}
	}
	rng.Shuffle(len(floor), func(i, j int) { floor[i], floor[j] = floor[j], floor[i] })
	boxes := 1 + rng.IntN(3)
	if len(floor) < boxes*2+1 {
		return ""
	}
	p := floor[0]
	grid[p[1]][p[0]] = '@'
	for k := 0; k < boxes; k++ {
		b := floor[1+k]
		grid[b[1]][b[0]] = '$'
	}
	for k := 0; k < boxes; k++ {
		g := floor[1+boxes+k]
		if grid[g[1]][g[0]] == '@' {
			grid[g[1]][g[0]] = '+'
		} else {
			grid[g[1]][g[0]] = '.'
		}
	}
	if rng.IntN(4) != 0 {
		scramble(rng, grid, 1+rng.IntN(60))
	}
	var sb strings.Builder
	for _, row := range grid {
		sb.Write(row)
		sb.WriteByte('\n')
	}
	return sb.String()
}

// scramble makes a level solvable by construction: it puts every box on a
// goal and then lets the player pull boxes at random, so the pushes back
// solve it.
func scramble(rng *rand.Rand, grid [][]byte, pulls int) {
	var goals, boxes [][2]int
	px, py := 0, 0
	for y, row := range grid {
		for x, c := range row {
			switch c {
			case '.', '+', '*':
				goals = append(goals, [2]int{x, y})
			}
			switch c {
			case '$', '*':
				boxes = append(boxes, [2]int{x, y})
			case '@', '+':
				px, py = x, y
			}
			switch c {
			case '$', '@':
				row[x] = ' '
			case '*', '+':
				row[x] = '.'
			}
		}
	}
	box := map[[2]int]bool{}
	for _, g := range goals {
		box[g] = true
	}
	free := func(x, y int) bool { return grid[y][x] != '#' && !box[[2]int{x, y}] }
	if !free(px, py) {
		// Put the player on some free square.
		for y := range grid {
			for x := range grid[y] {
				if free(x, y) {
					px, py = x, y
				}
			}
		}
	}
	if !free(px, py) {
		return
	}
	dirs := [][2]int{{-1, 0}, {0, -1}, {1, 0}, {0, 1}}
	for k := 0; k < pulls; k++ {
		// Walk the player a few random steps, then try to pull.
		for range 4 {
			d := dirs[rng.IntN(4)]
			if free(px+d[0], py+d[1]) {
				px, py = px+d[0], py+d[1]
			}
		}
		d := dirs[rng.IntN(4)]
		// The box is on the far side of the player from d: player at
		// p, box at p-d; the player steps to p+d, the box follows to p.
		bx, by := px-d[0], py-d[1]
		if box[[2]int{bx, by}] && free(px+d[0], py+d[1]) {
			delete(box, [2]int{bx, by})
			box[[2]int{px, py}] = true
			px, py = px+d[0], py+d[1]
		}
	}
	for y, row := range grid {
		for x := range row {
			if row[x] == '#' {
				continue
			}
			on := box[[2]int{x, y}]
			goal := row[x] == '.'
			switch {
			case x == px && y == py && goal:
				row[x] = '+'
			case x == px && y == py:
				row[x] = '@'
			case on && goal:
				row[x] = '*'
			case on:
				row[x] = '$'
			}
		}
	}
}

// TestRandomLevelsAgainstOracle solves random small rooms with every
// admissible rule and checks the push counts and the solvable/unsolvable
// verdict against the oracle; objective any must agree on solvability.
func TestRandomLevelsAgainstOracle(t *testing.T) {
	n := 400
	if v, err := strconv.Atoi(os.Getenv("SOKOD_RANDOM_LEVELS")); err == nil && v > 0 {
		n = v // for a longer soak run
	}
	if testing.Short() {
		n = 60
	}
	rng := rand.New(rand.NewPCG(1, 2))
	tried, unsolvable := 0, 0
	corrals, reopened, macros, packing := int64(0), int64(0), int64(0), 0
	var locked, subDead, frozenGoals int64 // the corral and frozen-goal deadlock rules
	for tried < n {
		src := randomLevel(rng)
		if tried%2 == 1 {
			src = tunnelLevel(rng) // every other level: rooms and a tunnel
		}
		if src == "" {
			continue
		}
		l, err := sokoban.Parse(src)
		if err != nil {
			continue // e.g. the player's region is tiny; not interesting
		}
		tried++
		want := oraclePushes(l, 500_000)
		if want == -2 {
			continue
		}
		if want == -1 {
			unsolvable++
		}
		b := mustAnalyze(t, l)
		for _, rule := range []Rule{RuleSumMin, RuleMatching} {
			r := solve(t, b, rule, ObjectivePushes, Budget{Memory: 4 << 20})
			if diff := cmp.Diff(expectFromOracle(want), summarize(r)); diff != "" {
				t.Fatalf("level\n%s%s: (-oracle +engine):\n%s", src, rule, diff)
			}
			corrals += r.Stats.Corrals
			reopened += r.Stats.Reopened
			macros += r.Stats.Macros
			locked += r.Stats.LockedCorrals
			subDead += r.Stats.SubDead
			frozenGoals += r.Stats.FrozenGoals
			// Without region costs (and without corral pruning or tunnel
			// macros).
			// The matching rule here also defers every child bound the dual
			// potentials leave open to the child's pop, as on big boards.
			r, err := Solve(context.Background(), b, Options{Objective: ObjectivePushes, Heuristic: plainHeuristic(b, rule),
				Budget: Budget{Memory: 4 << 20}, Off: TechPICorrals | TechTunnels, lazyBound: true})
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(expectFromOracle(want), summarize(r)); diff != "" {
				t.Fatalf("level\n%s%s without corral pruning: (-oracle +engine):\n%s", src, rule, diff)
			}
			if r.Status == Solved {
				checkSolution(t, l, r)
			}
		}
		for k, rule := range []Rule{RuleGreedy, RuleMatching, RuleGreedy, RuleMatching} {
			// Every strategy for objective any, with both bounds.
			strategy := []Strategy{StrategyAlternate, StrategyGreedy, StrategyWeighted, StrategyPacking}[(tried+k)%4]
			r, err := Solve(context.Background(), b, Options{Objective: ObjectiveAny, Heuristic: testHeuristic(b, rule),
				Strategy: strategy, Weight: 2, Budget: Budget{Memory: 4 << 20}, lazyBound: k >= 2})
			if err != nil {
				t.Fatal(err)
			}
			wantStatus := Solved
			if want == -1 {
				wantStatus = Unsolvable
			}
			if r.Status != wantStatus || r.Optimal {
				t.Fatalf("level\n%sany/%s/strategy %d: got %v optimal=%v, want %v", src, rule, strategy, r.Status, r.Optimal, wantStatus)
			}
			if r.Stats.Packing {
				packing++
			}
			if r.Status == Solved {
				checkSolution(t, l, r)
				if r.Metrics.Pushes < want {
					t.Fatalf("level\n%sany/%s: %d pushes, fewer than the optimum %d", src, rule, r.Metrics.Pushes, want)
				}
			}
		}
	}
	t.Logf("%d random levels, %d unsolvable; %d expansions restricted by a PI-corral, %d tunnel macros, %d packing searches", tried, unsolvable, corrals, macros, packing)
	if corrals == 0 {
		t.Error("no PI-corral pruning happened; the test does not exercise it")
	}
	if macros == 0 {
		t.Error("no tunnel macro happened; the test does not exercise them")
	}
	if packing == 0 {
		t.Error("no packing search ran; the test does not exercise it")
	}
	t.Logf("deadlock rules fired: %d locked corrals, %d corral sub-searches dead, %d frozen-goal prunes", locked, subDead, frozenGoals)
	if reopened != 0 {
		t.Errorf("%d states re-opened: the region-aware bounds should be consistent", reopened)
	}
	if unsolvable == 0 || unsolvable == tried {
		t.Errorf("random levels are all one kind (%d of %d unsolvable); the generator needs tuning", unsolvable, tried)
	}
}

func TestUnsolvable(t *testing.T) {
	levels := loadCollection(t, "testdata/unsolvable.xsb")
	for i, l := range levels {
		if o := oraclePushes(l, 1_000_000); o != -1 {
			t.Fatalf("fixture %d (%s) is not unsolvable: oracle says %d", i+1, l.Title, o)
		}
		for _, rule := range []Rule{RuleSumMin, RuleGreedy, RuleMatching} {
			obj := ObjectivePushes
			if rule == RuleGreedy {
				obj = ObjectiveAny
			}
			b := mustAnalyze(t, l)
			r := solve(t, b, rule, obj, Budget{Memory: 1 << 20})
			if r.Status != Unsolvable {
				t.Errorf("%s/%s: got %v (%s), want unsolvable", l.Title, rule, r.Status, r.Reason)
			}
		}
	}
}

func TestBipartiteDeadlock(t *testing.T) {
	l := loadCollection(t, "testdata/unsolvable.xsb")[0]
	b := mustAnalyze(t, l)
	// The matching bound proves it at the root, without search.
	r := solve(t, b, RuleMatching, ObjectivePushes, Budget{})
	if r.Status != Unsolvable || r.Stats.Nodes != 0 {
		t.Errorf("matching: got %v after %d nodes, want unsolvable at the root", r.Status, r.Stats.Nodes)
	}
	// The sum of minima cannot see it and must search the space out.
	r = solve(t, b, RuleSumMin, ObjectivePushes, Budget{})
	if r.Status != Unsolvable || r.Stats.Nodes == 0 {
		t.Errorf("sum-min: got %v after %d nodes, want unsolvable after a search", r.Status, r.Stats.Nodes)
	}
	e := newEvaluator(b, testHeuristic(b, RuleMatching), len(b.StartBoxes))
	if got := e.sync(b.StartBoxes, b.StartPlayer); got < infCost {
		t.Errorf("matching bound = %d, want infinite", got)
	}
}

func TestFreezeDeadlock(t *testing.T) {
	levels := loadCollection(t, "testdata/deadlocks.xsb")
	tests := []struct {
		level int
		x, y  int // the box checked
		want  bool
	}{
		{1, 3, 1, true},  // pair under a wall, off goals
		{1, 4, 1, true},  // the same pair, from the other box
		{2, 3, 1, false}, // the pair on goals
		{3, 4, 1, true},  // one of the pair off goal
		{3, 3, 1, true},  // checked from the box that is on its goal
		{4, 3, 2, false}, // L of three: the near miss
		{4, 4, 2, false},
		{4, 3, 3, false},
		{5, 3, 2, true}, // 2x2 block
		{5, 4, 3, true},
	}
	for _, tc := range tests {
		t.Run(fmt.Sprintf("level%d-%d,%d", tc.level, tc.x, tc.y), func(t *testing.T) {
			l := levels[tc.level-1]
			b := mustAnalyze(t, l)
			s := newSearcher(b, testHeuristic(b, RuleSumMin), Options{}, NewWorkspace(1<<16))
			sq := b.SquareOf[tc.y*b.Width+tc.x]
			if sq < 0 || s.boxAt[sq] < 0 {
				t.Fatalf("no box at %d,%d", tc.x, tc.y)
			}
			if got := s.freezeDeadlock(uint16(sq)); got != tc.want {
				t.Errorf("freezeDeadlock = %v, want %v", got, tc.want)
			}
			// A failed check leaves no box marked.
			if got := s.freezeDeadlock(uint16(sq)); got != tc.want {
				t.Errorf("second freezeDeadlock = %v, want %v", got, tc.want)
			}
		})
	}
}

func TestAnalyzeDistances(t *testing.T) {
	// The box in the doorway of "gate" can reach the goal on the right only
	// when the player is on the left; with the player on the right it must
	// be pushed left first. Both sides are reachable from the start, so the
	// bound is the smaller distance, 2.
	l := loadCollection(t, "testdata/small.xsb")[4]
	b := mustAnalyze(t, l)
	box := b.StartBoxes[0]
	if got := b.Dist[int(box)*len(b.Goals)]; got != 2 {
		t.Errorf("distance from the doorway = %d, want 2", got)
	}
	// Squares of the corridor level: the box can be pushed right only.
	l = loadCollection(t, "testdata/small.xsb")[8]
	b = mustAnalyze(t, l)
	var dead []int
	for sq := 0; sq < b.Squares; sq++ {
		if b.Dead[sq] {
			x, _ := b.XY(uint16(sq))
			dead = append(dead, x)
		}
	}
	if diff := cmp.Diff([]int{1}, dead); diff != "" {
		t.Errorf("dead squares by column (-want +got):\n%s", diff)
	}
}

func TestNonAdmissibleRefused(t *testing.T) {
	l := loadCollection(t, "testdata/small.xsb")[0]
	b := mustAnalyze(t, l)
	_, err := Solve(context.Background(), b, Options{Objective: ObjectivePushes, Heuristic: testHeuristic(b, RuleGreedy)})
	if err == nil || !strings.Contains(err.Error(), "admissible") {
		t.Errorf("got %v, want an error about admissibility", err)
	}
}

// busyLevel needs thousands of expansions with the weak bound.
const busyLevel = `
###########
#         #
# $ $ $ $ #
#    @    #
# $ $ $ $ #
#         #
# ........#
###########
`

func TestBudgets(t *testing.T) {
	l, err := sokoban.Parse(busyLevel)
	if err != nil {
		t.Fatal(err)
	}
	b := mustAnalyze(t, l)
	t.Run("nodes", func(t *testing.T) {
		r := solve(t, b, RuleSumMin, ObjectivePushes, Budget{Nodes: 100})
		if r.Status != GaveUp || r.Reason != ReasonNodes || r.Stats.Nodes != 100 {
			t.Errorf("got %v (%s) after %d nodes, want gave up at the node limit 100", r.Status, r.Reason, r.Stats.Nodes)
		}
	})
	t.Run("memory", func(t *testing.T) {
		r := solve(t, b, RuleSumMin, ObjectivePushes, Budget{Memory: 4096})
		if r.Status != GaveUp || r.Reason != ReasonMemory {
			t.Errorf("got %v (%s), want gave up for memory", r.Status, r.Reason)
		}
		if r.Stats.MemoryReserved > 4096 {
			t.Errorf("table uses %d bytes, budget 4096", r.Stats.MemoryReserved)
		}
	})
	t.Run("cancelled", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		r, err := Solve(ctx, b, Options{Objective: ObjectivePushes, Heuristic: testHeuristic(b, RuleSumMin)})
		if err != nil {
			t.Fatal(err)
		}
		if r.Status != GaveUp || r.Reason != ReasonCancelled {
			t.Errorf("got %v (%s), want gave up, cancelled", r.Status, r.Reason)
		}
	})
	t.Run("deadline and progress", func(t *testing.T) {
		// A fake clock: every reading advances it by 100 ms.
		now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
		clock := func() time.Time { now = now.Add(100 * time.Millisecond); return now }
		var reports []Progress
		r, err := Solve(context.Background(), b, Options{
			Objective: ObjectivePushes, Heuristic: testHeuristic(b, RuleSumMin),
			Budget:     Budget{Deadline: now.Add(2 * time.Second)},
			Clock:      clock,
			OnProgress: func(p Progress) { reports = append(reports, p) },
		})
		if err != nil {
			t.Fatal(err)
		}
		if r.Status != GaveUp || r.Reason != ReasonDeadline {
			t.Fatalf("got %v (%s), want gave up at the time limit", r.Status, r.Reason)
		}
		if len(reports) == 0 {
			t.Fatal("no progress reports")
		}
		for i := 1; i < len(reports); i++ {
			if reports[i].Nodes < reports[i-1].Nodes || reports[i].Elapsed < reports[i-1].Elapsed+250*time.Millisecond {
				t.Errorf("report %d %+v does not follow %+v by 250 ms", i, reports[i], reports[i-1])
			}
		}
		// Each report carries a position a GUI can draw: every box on its
		// own floor square, the player on a free one.
		for i, p := range reports {
			seen := map[uint16]bool{}
			for _, sq := range p.Boxes {
				if int(sq) >= b.Squares || seen[sq] {
					t.Errorf("report %d: boxes %v are not distinct floor squares", i, p.Boxes)
					break
				}
				seen[sq] = true
			}
			if len(p.Boxes) != len(b.StartBoxes) || int(p.Player) >= b.Squares || seen[p.Player] {
				t.Errorf("report %d: %d boxes (want %d), player on %d", i, len(p.Boxes), len(b.StartBoxes), p.Player)
			}
			if p.Generated < p.Nodes {
				t.Errorf("report %d: %d pushes generated for %d expansions", i, p.Generated, p.Nodes)
			}
		}
	})
	t.Run("deadline without clock", func(t *testing.T) {
		_, err := Solve(context.Background(), b, Options{Objective: ObjectiveAny, Heuristic: testHeuristic(b, RuleSumMin),
			Budget: Budget{Deadline: time.Now()}})
		if err == nil {
			t.Error("no error for a deadline without a clock")
		}
	})
}

// TestDeterministic: the same search twice gives the same result and stats.
func TestDeterministic(t *testing.T) {
	l, err := sokoban.Parse(busyLevel)
	if err != nil {
		t.Fatal(err)
	}
	b := mustAnalyze(t, l)
	r1 := solve(t, b, RuleMatching, ObjectiveAny, Budget{})
	r2 := solve(t, b, RuleMatching, ObjectiveAny, Budget{})
	if diff := cmp.Diff(r1, r2); diff != "" {
		t.Errorf("two runs differ:\n%s", diff)
	}
	if r1.Status != Solved {
		t.Errorf("busy level: %v", r1.Status)
	}
}

func levelsDir(t testing.TB) string {
	dir := os.Getenv("SOKOD_LEVELS")
	if dir == "" {
		t.Skip("SOKOD_LEVELS is not set; skipping the corpus test (point it at the benchmark level collections)")
	}
	return dir
}

// TestMicrobanCorpus solves the first 20 Microban I levels push-optimally.
func TestMicrobanCorpus(t *testing.T) {
	levels := loadCollection(t, filepath.Join(levelsDir(t), "microban1.xsb"))
	for i, l := range levels[:20] {
		t.Run(fmt.Sprint(i+1), func(t *testing.T) {
			b := mustAnalyze(t, l)
			r := solve(t, b, RuleMatching, ObjectivePushes, Budget{Nodes: 2_000_000, Memory: 64 << 20})
			if r.Status != Solved || !r.Optimal {
				t.Fatalf("got %v (%s) optimal=%v", r.Status, r.Reason, r.Optimal)
			}
			checkSolution(t, l, r)
		})
	}
}

// TestWorkspaceReuse: one workspace serves consecutive searches with the
// same results as fresh ones.
func TestWorkspaceReuse(t *testing.T) {
	levels := loadCollection(t, "testdata/small.xsb")
	ws := NewWorkspace(1 << 20)
	for round := 0; round < 3; round++ {
		for i, l := range levels {
			b := mustAnalyze(t, l)
			h := testHeuristic(b, RuleMatching)
			fresh, err := Solve(context.Background(), b, Options{Objective: ObjectivePushes, Heuristic: h, Budget: Budget{Memory: 1 << 20}})
			if err != nil {
				t.Fatal(err)
			}
			reused, err := Solve(context.Background(), b, Options{Objective: ObjectivePushes, Heuristic: h, Workspace: ws})
			if err != nil {
				t.Fatal(err)
			}
			fresh.Stats.MemoryUsed, reused.Stats.MemoryUsed = 0, 0
			if diff := cmp.Diff(fresh, reused); diff != "" {
				t.Fatalf("round %d level %d: reused workspace differs (-fresh +reused):\n%s", round, i+1, diff)
			}
		}
	}
}

// TestGenerationWrap runs a search across the generation counter's
// restart and checks it still matches a search that never restarts.
func TestGenerationWrap(t *testing.T) {
	l := loadCollection(t, "testdata/small.xsb")[9]
	b := mustAnalyze(t, l)
	want := solve(t, b, RuleMatching, ObjectivePushes, Budget{})
	s := newSearcher(b, testHeuristic(b, RuleMatching), Options{Objective: ObjectivePushes}, NewWorkspace(1<<20))
	s.gen = ^uint32(0) - genHeadroom - 3 // restarts within the first expansions
	st, _, goal, end := s.begin()
	for !end {
		st, _, goal, end = s.step()
	}
	if st != Solved || len(s.pushPath(goal)) != want.Metrics.Pushes || s.gen > genHeadroom {
		t.Errorf("got %v with %d pushes (gen %d), want solved with %d", st, len(s.pushPath(goal)), s.gen, want.Metrics.Pushes)
	}
}

// TestCorralPruningKeepsOptimality compares push-optimal solutions with and
// without PI-corral pruning on Microban I: both are proofs, so the push
// counts must be equal wherever both finish.
func TestCorralPruningKeepsOptimality(t *testing.T) {
	skipUnderRace(t)
	levels := loadCollection(t, filepath.Join(levelsDir(t), "microban1.xsb"))
	if testing.Short() {
		levels = levels[:30]
	}
	var with, without int64
	compared := 0
	for i, l := range levels {
		b := mustAnalyze(t, l)
		h := testHeuristic(b, RuleMatching)
		budget := Budget{Nodes: 200_000, Memory: 64 << 20}
		ws := NewWorkspace(budget.Memory)
		r1, err := Solve(context.Background(), b, Options{Objective: ObjectivePushes, Heuristic: h, Budget: budget, Workspace: ws})
		if err != nil {
			t.Fatal(err)
		}
		if r1.Status == GaveUp {
			continue // nothing to compare: the search without the pruning is not run
		}
		r2, err := Solve(context.Background(), b, Options{Objective: ObjectivePushes, Heuristic: h, Budget: budget, Workspace: ws, Off: TechPICorrals})
		if err != nil {
			t.Fatal(err)
		}
		if r2.Status == GaveUp {
			continue
		}
		compared++
		with += r1.Stats.Nodes
		without += r2.Stats.Nodes
		if diff := cmp.Diff(summarize(r2), summarize(r1)); diff != "" {
			t.Errorf("level %d: (-without +with corral pruning):\n%s", i+1, diff)
		}
	}
	t.Logf("%d levels compared; nodes with PI-corral pruning %d, without %d", compared, with, without)
}

// TestChildNorm checks the normalised player square computed without a full
// search against a full search for every child generated while solving
// the fixtures, random rooms and (when available) Microban I.
func TestChildNorm(t *testing.T) {
	levels := loadCollection(t, "testdata/small.xsb")
	levels = append(levels, loadCollection(t, "testdata/bench.xsb")...)
	if dir := os.Getenv("SOKOD_LEVELS"); dir != "" {
		levels = append(levels, loadCollection(t, filepath.Join(dir, "microban1.xsb"))...)
	}
	rng := rand.New(rand.NewPCG(3, 4))
	for len(levels) < 400 {
		if l, err := sokoban.Parse(randomLevel(rng)); err == nil {
			levels = append(levels, l)
		}
	}
	var fast, join, seek, slow int64
	ws := NewWorkspace(16 << 20)
	for _, l := range levels {
		b := mustAnalyze(t, l)
		if b.Impossible != "" {
			continue
		}
		// Without goal macros and corral deadlocks: home moves solve many
		// of these levels in a few expansions, and the corral tests prune
		// most of the rest, leaving too few children to exercise every case
		// without Microban.
		s := newSearcher(b, testHeuristic(b, RuleMatching), Options{Objective: ObjectiveAny, Budget: Budget{Nodes: 3000}, Off: TechGoalMacros | TechCorralDeadlocks}, ws)
		s.verifyNorm = true
		s.run(context.Background())
		s.finish()
		fast, join, seek, slow = fast+s.fastNorm, join+s.joinNorm, seek+s.seekNorm, slow+s.slowNorm
	}
	t.Logf("children: %d without search, %d joins, %d seeks, %d full searches", fast, join, seek, slow)
	if fast == 0 || join == 0 || seek == 0 || slow == 0 {
		t.Error("some case of childNorm was never exercised")
	}
}

// TestRegions checks Board.Region against a brute-force flood fill of the
// board with one square blocked, and RegionDist against the consistency
// property the search relies on: a push from s to t changes the pushed
// box's distance by at most one.
func TestRegions(t *testing.T) {
	levels := loadCollection(t, "testdata/small.xsb")
	levels = append(levels, loadCollection(t, "testdata/bench.xsb")...)
	rng := rand.New(rand.NewPCG(5, 6))
	for len(levels) < 150 {
		if l, err := sokoban.Parse(randomLevel(rng)); err == nil {
			levels = append(levels, l)
		}
	}
	for li, l := range levels {
		b := mustAnalyze(t, l)
		n, g := b.Squares, len(b.Goals)
		comp := make([]int, n)
		for q := 0; q < n; q++ {
			// Flood the board minus q; squares in one component must get
			// one label, squares in different components different ones.
			for i := range comp {
				comp[i] = -1
			}
			comp[q] = -2
			next := 0
			for start := 0; start < n; start++ {
				if comp[start] != -1 {
					continue
				}
				stack := []int{start}
				comp[start] = next
				for len(stack) > 0 {
					c := stack[len(stack)-1]
					stack = stack[:len(stack)-1]
					for d := 0; d < 4; d++ {
						m := int(b.Nbr[c*4+d])
						if m < n && comp[m] == -1 {
							comp[m] = next
							stack = append(stack, m)
						}
					}
				}
				next++
			}
			label := map[int]uint8{}
			seen := map[uint8]int{}
			for p := 0; p < n; p++ {
				if p == q {
					continue
				}
				r := b.Region(uint16(q), uint16(p))
				if want, ok := label[comp[p]]; ok && want != r {
					t.Fatalf("level %d: square %d, box on %d: region %d, but %d elsewhere in its component", li+1, p, q, r, want)
				}
				if c, ok := seen[r]; ok && c != comp[p] {
					t.Fatalf("level %d: box on %d: region %d names two components", li+1, q, r)
				}
				label[comp[p]], seen[r] = r, comp[p]
			}
		}
		// Consistency of RegionDist over every push on an empty board.
		for s := 0; s < n; s++ {
			for d := 0; d < 4; d++ {
				side, to := b.Nbr[s*4+(d^2)], b.Nbr[s*4+d]
				if int(side) >= n || int(to) >= n {
					continue
				}
				rs := (s*Regions + int(b.Region(uint16(s), side))) * g
				rt := (int(to)*Regions + int(b.Region(to, uint16(s)))) * g
				for j := 0; j < g; j++ {
					ds, dt := b.RegionDist[rs+j], b.RegionDist[rt+j]
					if dt != Inf && (ds == Inf || int(ds) > int(dt)+1) {
						t.Fatalf("level %d: push %d->%d: goal %d distance %d then %d", li+1, s, to, j, ds, dt)
					}
					if ds < b.Dist[s*g+j] {
						t.Fatalf("level %d: region distance %d below the minimum %d", li+1, ds, b.Dist[s*g+j])
					}
				}
			}
		}
	}
}

// TestDualRowBound checks the per-child matching bound from the dual
// potentials against a full repair on random cost tables: never above it,
// equal when it says it is exact, infinite only when the repair is.
func TestDualRowBound(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	tight, loose := 0, 0
	for trial := 0; trial < 300; trial++ {
		n := 1 + rng.IntN(9)
		rows := 3 * n
		costs := make([]uint16, rows*n)
		for k := range costs {
			if rng.IntN(6) == 0 {
				costs[k] = Inf
			} else {
				costs[k] = uint16(rng.IntN(12))
			}
		}
		m := newMatcher(n, n, costs)
		cur := make([]int32, n)
		for step := 0; step < 40; step++ {
			for i := range cur {
				if step == 0 || rng.IntN(n) == 0 {
					cur[i] = int32(rng.IntN(rows))
				}
			}
			h := m.sync(cur)
			if h >= infCost {
				continue
			}
			for probe := 0; probe < 10; probe++ {
				i, to := rng.IntN(n), int32(rng.IntN(rows))
				lb, exact := m.dualRow(h, i, to)
				want := m.tryRow(i, to)
				switch {
				case lb > want:
					t.Fatalf("trial %d: dual bound %d above the matching %d", trial, lb, want)
				case exact && lb != want:
					t.Fatalf("trial %d: dual bound %d said exact, matching %d", trial, lb, want)
				case lb >= infCost && want < infCost:
					t.Fatalf("trial %d: dual bound infinite, matching %d", trial, want)
				}
				if exact {
					tight++
				} else {
					loose++
				}
			}
			if got := m.sync(cur); got != h {
				t.Fatalf("trial %d: tryRow changed the matching: %d, was %d", trial, got, h)
			}
		}
	}
	if tight == 0 || loose == 0 {
		t.Errorf("the test exercises one case only: %d exact, %d lower bounds", tight, loose)
	}
}

// TestMonotoneTables checks that the region push distances pass the
// monotonicity check the lazy matching bound relies on, and that a table
// where one push lowers a cost by two does not.
func TestMonotoneTables(t *testing.T) {
	brokenLevels := 0
	for i, l := range loadCollection(t, "testdata/small.xsb") {
		b := mustAnalyze(t, l)
		if len(b.Goals) == 0 || b.Impossible != "" {
			continue
		}
		h := testHeuristic(b, RuleMatching)
		if e := newEvaluator(b, h, len(b.StartBoxes)); !e.monotone {
			t.Errorf("level %d: region push distances not monotone", i+1)
		}
		// Set a push's child cost to zero where its parent's is two or
		// more: that push now lowers the cost by two or more.
		broken := false
		for sq := 0; sq < b.Squares && !broken; sq++ {
			for d := 0; d < 4 && !broken; d++ {
				to, side := b.Nbr[sq*4+d], b.Nbr[sq*4+d^2]
				if int(to) >= b.Squares || int(side) >= b.Squares || b.Dead[to] {
					continue
				}
				r := (int(to)*Regions + int(b.Region(to, uint16(sq)))) * len(b.Goals)
				pr := (sq*Regions + int(b.Region(uint16(sq), side))) * len(b.Goals)
				if c, cp := h.RegionCosts[r], h.RegionCosts[pr]; c != Inf && cp != Inf && cp >= 2 {
					h.RegionCosts[r] = 0
					broken = true
				}
			}
		}
		if broken {
			brokenLevels++
			if e := newEvaluator(b, h, len(b.StartBoxes)); e.monotone {
				t.Errorf("level %d: a table lowered by two still counts as monotone", i+1)
			}
		}
	}
	if brokenLevels == 0 {
		t.Error("no level had a cost to break")
	}
}
