package engine

import (
	"context"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/sokod/sokod/sokoban"
)

// Hand-made goal-area levels, each small enough for the oracle.
var goalAreaLevels = []struct {
	name  string
	level string
	// the expected goal areas: squares as "x,y" in the packing order, and
	// the entrances
	order, entrances [][]string
}{
	{
		// A column of goals filled from below, the boxes coming in from
		// the side as in Microban 153: each must go to the top first.
		name: "goal column filled from below",
		level: "" +
			"#######\n" +
			"#.#####\n" +
			"#.#####\n" +
			"#.#####\n" +
			"#.    #\n" +
			"# $ $ #\n" +
			"## $  #\n" +
			"##  $ #\n" +
			"##   @#\n" +
			"#######\n",
		order:     [][]string{{"1,1", "1,2", "1,3", "1,4"}},
		entrances: [][]string{{"2,4"}},
	},
	{
		// A two-by-two goal room open to the left and to the right: the
		// lower row first, and boxes come in from both sides.
		name: "goal room with two entrances",
		level: "" +
			"###########\n" +
			"#    #    #\n" +
			"#  $ .. $ #\n" +
			"#    ..   #\n" +
			"#  $ ## $ #\n" +
			"#@        #\n" +
			"###########\n",
		order:     [][]string{{"6,3", "5,3", "6,2", "5,2"}},
		entrances: [][]string{{"4,2", "7,2", "4,3", "7,3"}},
	},
	{
		// A dead-end row of goals: filling the goal nearest the entrance
		// first, as a greedy search likes to, blocks the other two; the
		// order fills the far end first.
		name: "greedy order blocks itself",
		level: "" +
			"##########\n" +
			"#        #\n" +
			"# $ $ $  #\n" +
			"#    @   #\n" +
			"#### ## ##\n" +
			"#...     #\n" +
			"##########\n",
		order:     [][]string{{"1,5", "2,5", "3,5"}},
		entrances: [][]string{{"4,5"}},
	},
}

// squareNames names squares as "x,y".
func squareNames(b *Board, sqs []uint16) []string {
	out := []string{}
	for _, sq := range sqs {
		x, y := b.XY(sq)
		out = append(out, fmt.Sprintf("%d,%d", x, y))
	}
	return out
}

func parseLevel(t *testing.T, src string) *sokoban.Level {
	t.Helper()
	l, err := sokoban.Parse(src)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// TestGoalAreas checks the goal areas, packing orders and entrances of the
// hand-made levels, and that every order is one the forward game can
// follow (checkOrder).
func TestGoalAreas(t *testing.T) {
	for _, tc := range goalAreaLevels {
		t.Run(tc.name, func(t *testing.T) {
			b := mustAnalyze(t, parseLevel(t, tc.level))
			var order, entrances [][]string
			for _, a := range b.Areas {
				order = append(order, squareNames(b, a.Order))
				entrances = append(entrances, squareNames(b, a.Entrances))
			}
			if diff := cmp.Diff(tc.order, order); diff != "" {
				t.Errorf("packing orders (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.entrances, entrances); diff != "" {
				t.Errorf("entrances (-want +got):\n%s", diff)
			}
			checkOrder(t, b)
		})
	}
}

// checkOrder checks every area's packing order by the forward game: on a
// board holding only the boxes on the goals before order[k], a box on some
// entrance, the player behind it, can be pushed to order[k] through the
// area.
func checkOrder(t *testing.T, b *Board) {
	t.Helper()
	for ai, a := range b.Areas {
		for k, target := range a.Order {
			s := newSearcher(b, plainHeuristic(b, RuleSumMin), Options{Objective: ObjectiveAny}, NewWorkspace(1<<20))
			if !s.gm.on {
				t.Fatal("goal macros are off under objective any")
			}
			for i := range s.boxAt[:b.Squares] {
				s.boxAt[i] = -1
			}
			for i, sq := range a.Order[:k] {
				s.boxAt[sq] = int16(i)
			}
			ok := false
			for _, e := range a.Entrances {
				for d := 0; d < 4 && !ok; d++ {
					behind := b.Nbr[int(e)*4+(d^2)]
					if behind == b.Wall() || b.InArea[b.Nbr[int(e)*4+d]] != int16(ai) {
						continue
					}
					s.boxAt[e] = int16(k)
					s.player = behind
					s.gm.home.tagged = false // boxAt was set by hand, the hash not kept
					// The box stands on e as if just pushed there from the
					// player's side.
					ok = s.goalPath(e, target, int16(ai), maxMacro)
					s.boxAt[e] = -1
				}
			}
			if !ok {
				t.Errorf("area %d: goal %s (number %d of the order) cannot be filled from an entrance", ai, squareNames(b, []uint16{target})[0], k)
			}
		}
	}
}

// TestGoalMacros solves the hand-made levels under objective any with and
// without goal macros, with every strategy: each must be solved, each
// solution replays, macros happen when on and never when off; under
// objective pushes they never happen and the optimum is the oracle's.
func TestGoalMacros(t *testing.T) {
	for _, tc := range goalAreaLevels {
		t.Run(tc.name, func(t *testing.T) {
			l := parseLevel(t, tc.level)
			b := mustAnalyze(t, l)
			want := oraclePushes(l, 2_000_000)
			if want < 0 {
				t.Fatalf("the oracle says %d; the level must be solvable and small", want)
			}
			var fired, homes int64
			for _, strategy := range []Strategy{StrategyAlternate, StrategyGreedy, StrategyWeighted, StrategyIDA} {
				for _, rule := range []Rule{RuleGreedy, RuleMatching} {
					for _, off := range []bool{false, true} {
						// The hand-made areas are small: let them have the
						// entrance macro too.
						r, err := Solve(context.Background(), b, Options{Objective: ObjectiveAny, Heuristic: testHeuristic(b, rule),
							Strategy: strategy, Weight: 2, Budget: Budget{Memory: 8 << 20}, Off: offIf(off, TechGoalMacros), macroGoals: 2})
						if err != nil {
							t.Fatal(err)
						}
						if r.Status != Solved {
							t.Fatalf("strategy %d/%s/no goal macros %v: %v (%s)", strategy, rule, off, r.Status, r.Reason)
						}
						checkSolution(t, l, r)
						if r.Metrics.Pushes < want {
							t.Errorf("%d pushes, fewer than the optimum %d", r.Metrics.Pushes, want)
						}
						if off && r.Stats.GoalMacros+r.Stats.HomeMoves != 0 {
							t.Errorf("%d goal macros and %d home moves with goal macros off", r.Stats.GoalMacros, r.Stats.HomeMoves)
						}
						if !off {
							fired += r.Stats.GoalMacros
							homes += r.Stats.HomeMoves
						}
					}
				}
			}
			if fired == 0 || homes == 0 {
				t.Errorf("%d goal macros and %d home moves; want some of both", fired, homes)
			}
			for _, strategy := range []Strategy{StrategyAlternate, StrategyIDA} {
				r, err := Solve(context.Background(), b, Options{Objective: ObjectivePushes, Heuristic: testHeuristic(b, RuleMatching),
					Strategy: strategy, Budget: Budget{Memory: 8 << 20}})
				if err != nil {
					t.Fatal(err)
				}
				if diff := cmp.Diff(expectFromOracle(want), summarize(r)); diff != "" {
					t.Errorf("objective pushes, strategy %d: (-oracle +engine):\n%s", strategy, diff)
				}
				if r.Stats.GoalMacros+r.Stats.HomeMoves != 0 {
					t.Errorf("objective pushes: %d goal macros and %d home moves", r.Stats.GoalMacros, r.Stats.HomeMoves)
				}
			}
		})
	}
}

// goalAreaLevel makes a random small room with a pocket of two to four
// goals off one side (a row or a two-row block, so it is a goal area),
// sometimes one more goal in the room, as many boxes, and the player. Half
// the levels are scrambled from the solved position (solvable by
// construction), the rest have boxes on random squares (often unsolvable).
func goalAreaLevel(rng *rand.Rand) string {
	w, h := 4+rng.IntN(4), 3+rng.IntN(3)
	depth := 2 + rng.IntN(2) // pocket length
	rows := 1 + rng.IntN(2)  // pocket height
	W, H := w+depth+2, h+2
	grid := make([][]byte, H)
	for y := range grid {
		grid[y] = []byte(strings.Repeat("#", W))
	}
	for y := 1; y <= h; y++ {
		for x := depth + 1; x <= depth+w; x++ {
			grid[y][x] = ' '
		}
	}
	// A wall or two inside the room.
	for range rng.IntN(3) {
		grid[1+rng.IntN(h)][depth+1+rng.IntN(w)] = '#'
	}
	y0 := 1 + rng.IntN(h-rows+1)
	goals := 0
	for y := y0; y < y0+rows; y++ {
		for x := 1; x <= depth; x++ {
			grid[y][x] = '.'
			goals++
		}
	}
	if goals > 4 {
		// Keep the oracle fast: the far column of the block is wall.
		for y := y0; y < y0+rows; y++ {
			grid[y][1] = '#'
			goals--
		}
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
	extra := rng.IntN(3) == 0
	boxes := goals
	if extra {
		boxes++
	}
	if len(floor) < boxes+2 {
		return ""
	}
	k := 0
	if extra {
		g := floor[k]
		grid[g[1]][g[0]] = '.'
		k++
	}
	p := floor[k]
	grid[p[1]][p[0]] = '@'
	k++
	for range boxes {
		b := floor[k]
		grid[b[1]][b[0]] = '$'
		k++
	}
	if rng.IntN(2) == 0 {
		scramble(rng, grid, 20+rng.IntN(80))
	}
	var sb strings.Builder
	for _, row := range grid {
		sb.Write(row)
		sb.WriteByte('\n')
	}
	return sb.String()
}

// TestGoalMacrosAgainstOracle solves random goal-area levels under
// objective any with goal macros: the verdict must be the oracle's, an
// Unsolvable verdict must rest on a search without goal macros whenever
// one fired, and every packing order must pass checkOrder.
func TestGoalMacrosAgainstOracle(t *testing.T) {
	skipUnderRace(t)
	n := 300
	if testing.Short() {
		n = 60
	}
	rng := rand.New(rand.NewPCG(7, 8))
	tried, unsolvable, reruns, fired := 0, 0, 0, int64(0)
	for tried < n {
		l, src := parseRandom(rng, goalAreaLevel)
		b := mustAnalyze(t, l)
		if len(b.Areas) == 0 {
			continue
		}
		want := oraclePushes(l, 300_000)
		if want == -2 {
			continue
		}
		tried++
		checkOrder(t, b)
		wantStatus := Solved
		if want == -1 {
			wantStatus = Unsolvable
			unsolvable++
		}
		for k, rule := range []Rule{RuleGreedy, RuleMatching} {
			strategy := []Strategy{StrategyAlternate, StrategyGreedy, StrategyWeighted, StrategyIDA}[(tried+k)%4]
			r, err := Solve(context.Background(), b, Options{Objective: ObjectiveAny, Heuristic: testHeuristic(b, rule),
				Strategy: strategy, Weight: 2, Budget: Budget{Memory: 4 << 20}, macroGoals: 2})
			if err != nil {
				t.Fatal(err)
			}
			if r.Status != wantStatus {
				t.Fatalf("level\n%s%s/strategy %d: got %v (%s), want %v", src, rule, strategy, r.Status, r.Reason, wantStatus)
			}
			if r.Status == Solved {
				checkSolution(t, l, r)
			}
			macros := r.Stats.GoalMacros + r.Stats.HomeMoves
			fired += macros
			if r.Status == Unsolvable && macros > 0 && !r.Stats.GoalMacroRerun {
				t.Fatalf("level\n%s: unsolvable after %d goal macros without a search without them", src, macros)
			}
			if r.Stats.GoalMacroRerun {
				reruns++
			}
		}
	}
	t.Logf("%d random goal-area levels, %d unsolvable; %d goal macros and home moves, %d searches run again without them", tried, unsolvable, fired, reruns)
	if fired == 0 || (reruns == 0 && !testing.Short()) {
		t.Error("the random levels do not exercise goal macros and the search run again")
	}
}

// TestGoalMacroSoundness: goal macros cut moves, so a search that exhausts
// its space with them must not answer Unsolvable; Solve searches again
// without them.
func TestGoalMacroSoundness(t *testing.T) {
	tests := []struct {
		name  string
		level string
		// order, when set, is the first area's packing order, as "x,y"
		order []string
		want  Status
		rerun bool       // the answer comes from the search run again
		off   Techniques // switched off, so that macros fire
	}{
		{
			// The order fills the lower goal first. The only push at the
			// start brings the right box to the entrance next to the upper
			// goal, and the macro takes it on to the lower one; but the
			// lower box can only go home left, so the right box must wait
			// on the entrance while the player walks round to push the
			// lower box in. Found by a random generator. The macro's child
			// is a frozen-goal deadlock, so the push is made without it
			// (pushChild) and the search with macros finds the solution.
			name: "a macro's deadlock",
			level: "" +
				"########\n" +
				"##     #\n" +
				"###. $@#\n" +
				"#  .$ ##\n" +
				"########\n",
			order: []string{"3,3", "3,2"},
			want:  Solved,
		},
		{
			// Unsolvable, which only the search finds out, and goal
			// macros fire on the way. Found by goalAreaLevel. The corral
			// sub-search proves it unsolvable before any macro fires, so
			// it is off.
			name: "unsolvable",
			level: "" +
				"########\n" +
				"#..    #\n" +
				"#..$$@ #\n" +
				"###  $##\n" +
				"###$   #\n" +
				"###  # #\n" +
				"########\n",
			want:  Unsolvable,
			rerun: true,
			off:   TechCorralDeadlocks,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			l := parseLevel(t, tc.level)
			if o := oraclePushes(l, 1_000_000); (o >= 0) != (tc.want == Solved) || o == -2 {
				t.Fatalf("the oracle says %d", o)
			}
			b := mustAnalyze(t, l)
			if len(b.Areas) == 0 || b.Impossible != "" {
				t.Fatalf("%d goal areas, impossible %q", len(b.Areas), b.Impossible)
			}
			if tc.order != nil {
				if diff := cmp.Diff(tc.order, squareNames(b, b.Areas[0].Order)); diff != "" {
					t.Fatalf("packing order (-want +got):\n%s", diff)
				}
			}
			opts := Options{Objective: ObjectiveAny, Heuristic: testHeuristic(b, RuleMatching), Strategy: StrategyGreedy,
				Budget: Budget{Memory: 4 << 20}, macroGoals: 2, Off: tc.off}
			r, err := Solve(context.Background(), b, opts)
			if err != nil {
				t.Fatal(err)
			}
			if r.Status != tc.want || r.Stats.GoalMacroRerun != tc.rerun || r.Stats.GoalMacros == 0 {
				t.Fatalf("got %v (%s) with %d goal macros, run again %v; want %v, run again %v",
					r.Status, r.Reason, r.Stats.GoalMacros, r.Stats.GoalMacroRerun, tc.want, tc.rerun)
			}
			if r.Status == Solved {
				checkSolution(t, l, r)
			}
			// With any smaller node budget the answer is a solution or
			// gave up, never unsolvable; and, when the answer comes from
			// the search run again, some budget runs out in it.
			gaveUpAgain := false
			for nodes := int64(1); nodes < r.Stats.Nodes; nodes++ {
				opts.Budget.Nodes = nodes
				rn, err := Solve(context.Background(), b, opts)
				if err != nil {
					t.Fatal(err)
				}
				if rn.Status == Unsolvable {
					t.Fatalf("%d nodes: unsolvable (%s); the full search needs %d", nodes, rn.Reason, r.Stats.Nodes)
				}
				if rn.Status == GaveUp && rn.Stats.GoalMacroRerun {
					gaveUpAgain = true
				}
			}
			if tc.rerun && !gaveUpAgain {
				t.Error("no node budget ran out in the search run again")
			}
			// Without goal macros the same verdict, and no rerun.
			opts.Budget.Nodes, opts.Off = 0, opts.Off|TechGoalMacros
			r, err = Solve(context.Background(), b, opts)
			if err != nil {
				t.Fatal(err)
			}
			if r.Status != tc.want || r.Stats.GoalMacroRerun {
				t.Errorf("without goal macros: %v, run again %v", r.Status, r.Stats.GoalMacroRerun)
			}
		})
	}
}

// TestGoalMacroAllocs: making goal macro and home move children, and
// making them again from their records, allocates nothing once the
// searcher's scratch is sized.
func TestGoalMacroAllocs(t *testing.T) {
	l := parseLevel(t, goalAreaLevels[1].level) // the goal room with two entrances
	b := mustAnalyze(t, l)
	s := newSearcher(b, testHeuristic(b, RuleMatching), Options{Objective: ObjectiveAny}, NewWorkspace(1<<20))
	made := 0
	expand := func() {
		s.renewGens()
		pnorm := s.reach(s.player)
		gen := s.gen
		player := s.player
		for _, p := range s.genMoves(gen, pnorm) {
			i := int(s.boxAt[p.from])
			to := s.nbr[int(p.from)*4+int(p.dir)]
			_, q, _, ok := s.pushChild(i, p, to, player, gen, pnorm)
			if !ok {
				continue
			}
			s.undoPush(q, player)
			if q.goal {
				made++
				r := s.redoGoal(recFrom(q, 0), q.dir)
				s.undoPush(r, player)
			}
		}
	}
	expand()
	if made == 0 {
		t.Fatal("no goal macro or home move at the start")
	}
	if allocs := testing.AllocsPerRun(100, expand); allocs != 0 {
		t.Errorf("%v allocations per expansion with goal macros, want 0", allocs)
	}
}

// TestFreeLabels checks the labels of homemove.go against flood fills: two
// free squares get the same label with a third blocked exactly when the
// player can walk from one to the other around the boxes and it.
func TestFreeLabels(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	levels := loadCollection(t, "testdata/bench.xsb")
	for len(levels) < 60 {
		if l, err := sokoban.Parse(goalAreaLevel(rng)); err == nil {
			levels = append(levels, l)
		}
	}
	for _, l := range levels {
		b := mustAnalyze(t, l)
		s := newSearcher(b, plainHeuristic(b, RuleSumMin), Options{Objective: ObjectiveAny}, NewWorkspace(1<<20))
		s.gm.home.init(b.Squares, len(b.StartBoxes))
		s.freeDFS(s.boxHash)
		var free []uint16
		for sq := uint16(0); int(sq) < b.Squares; sq++ {
			if s.boxAt[sq] == -1 {
				free = append(free, sq)
			}
		}
		for _, blocked := range free {
			// Flood every free square with blocked as a wall.
			region := make(map[uint16]int)
			for _, start := range free {
				if start == blocked || region[start] != 0 {
					continue
				}
				id := len(region) + 1
				stack := []uint16{start}
				region[start] = id
				for len(stack) > 0 {
					c := stack[len(stack)-1]
					stack = stack[:len(stack)-1]
					for d := 0; d < 4; d++ {
						m := b.Nbr[int(c)*4+d]
						if m != blocked && s.boxAt[m] == -1 && region[m] == 0 {
							region[m] = id
							stack = append(stack, m)
						}
					}
				}
			}
			for _, p := range free {
				for _, q := range free {
					if p == blocked || q == blocked {
						continue
					}
					same := region[p] == region[q]
					if got := s.gm.home.label(p, blocked) == s.gm.home.label(q, blocked); got != same {
						t.Fatalf("level\n%s: squares %v and %v with %v blocked: same label %v, same region %v",
							l.XSB(), squareNames(b, []uint16{p}), squareNames(b, []uint16{q}), squareNames(b, []uint16{blocked}), got, same)
					}
				}
			}
		}
	}
}

// TestGoalMacrosFollowThePlan: in a packing search the goal macros take
// the goals of an area in the fill plan's phases, the area's own order
// kept within a phase, and the board's order is left as it was. The plan
// is made up so that it differs from the area's order: its phases are the
// area's goals backwards, two to a phase.
func TestGoalMacrosFollowThePlan(t *testing.T) {
	l := loadCollection(t, "testdata/bench12.xsb")[0]
	b := mustAnalyze(t, l)
	real := newFillPlan(context.Background(), b)
	if real == nil || len(b.Areas) == 0 {
		t.Fatalf("no fill plan (%v) or no goal area (%d)", real != nil, len(b.Areas))
	}
	boardOrder := slices.Clone(b.Areas[0].Order)
	plan := &fillPlan{dist: real.dist}
	var want []uint16
	for i := len(boardOrder) - 1; i >= 0; i -= 2 {
		phase := []uint16{boardOrder[i]}
		if i > 0 {
			phase = append(phase, boardOrder[i-1])
			// Within a phase, the area's order.
			want = append(want, boardOrder[i-1])
		}
		want = append(want, boardOrder[i])
		plan.phases = append(plan.phases, phase)
	}
	s := newSearcher(b, testHeuristic(b, RuleMatching), Options{Objective: ObjectiveAny, Strategy: StrategyPacking, plan: plan, keying: packSubgoal}, NewWorkspace(1<<20))
	defer s.finish()
	if diff := cmp.Diff(want, s.gm.areas[0].Order); diff != "" {
		t.Errorf("the macros' order (-plan +got):\n%s", diff)
	}
	if diff := cmp.Diff(boardOrder, b.Areas[0].Order); diff != "" {
		t.Errorf("the board's order changed (-before +after):\n%s", diff)
	}
}

// TestGoalMacroFallsBack: at the root of XSokoban 69 the only push (a
// PI-corral's) brings a box into the goal room, and the entrance macro
// that takes it on to its goal makes a frozen-goal deadlock. The push
// without the macro is no deadlock: the search must make it instead of
// running out of positions at the root.
func TestGoalMacroFallsBack(t *testing.T) {
	levels := loadCollection(t, filepath.Join(levelsDir(t), "xsokoban90.xsb"))
	b := mustAnalyze(t, levels[68])
	s := newSearcher(b, testHeuristic(b, RuleMatching), Options{Objective: ObjectiveAny, Budget: Budget{Nodes: 500}}, NewWorkspace(64<<20))
	defer s.finish()
	st, reason, _ := s.run(context.Background())
	if st != GaveUp || reason != ReasonNodes {
		t.Errorf("%v (%s) after %d expansions, want gave up at the node limit", st, reason, s.nodes)
	}
	if s.gm.undone == 0 {
		t.Error("no macro was made again as a plain push")
	}
}
