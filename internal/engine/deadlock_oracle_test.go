package engine

import (
	"context"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/sokod/sokod/sokoban"
)

// clutteredLevel returns a random small level crowded with boxes and walls,
// where boxes block each other in corrals, freeze on goals and lock
// themselves in: the positions the corral and frozen-goal deadlock rules
// judge. "" when the draw is unusable.
func clutteredLevel(rng *rand.Rand) string {
	w, h := 7+rng.IntN(3), 6+rng.IntN(3)
	grid := make([][]byte, h)
	var floor [][2]int
	for y := range grid {
		grid[y] = make([]byte, w)
		for x := range grid[y] {
			if x == 0 || y == 0 || x == w-1 || y == h-1 || rng.IntN(100) < 18 {
				grid[y][x] = '#'
				continue
			}
			grid[y][x] = ' '
			floor = append(floor, [2]int{x, y})
		}
	}
	boxes := 4 + rng.IntN(3)
	if len(floor) < 2*boxes+2 {
		return ""
	}
	rng.Shuffle(len(floor), func(i, j int) { floor[i], floor[j] = floor[j], floor[i] })
	p := floor[0]
	grid[p[1]][p[0]] = '@'
	for k := 0; k < boxes; k++ {
		b := floor[1+k]
		grid[b[1]][b[0]] = '$'
	}
	// Goals in a clump half of the time (a small goal room), else spread.
	goals := floor[1+boxes:]
	if rng.IntN(3) > 0 {
		sortByDistance(goals, [2]int{1, 1}) // a goal room in a corner
	}
	for k := 0; k < boxes; k++ {
		g := goals[k]
		if grid[g[1]][g[0]] == '@' {
			grid[g[1]][g[0]] = '+'
		} else {
			grid[g[1]][g[0]] = '.'
		}
	}
	if rng.IntN(3) > 0 {
		// Mostly solvable: boxes pulled away from their goals.
		scramble(rng, grid, 20+rng.IntN(60))
	}
	out := ""
	for _, row := range grid {
		out += string(row) + "\n"
	}
	return out
}

// sortByDistance orders squares by Manhattan distance from c.
func sortByDistance(sq [][2]int, c [2]int) {
	d := func(a [2]int) int { return abs(a[0]-c[0]) + abs(a[1]-c[1]) }
	for i := 1; i < len(sq); i++ {
		for j := i; j > 0 && d(sq[j]) < d(sq[j-1]); j-- {
			sq[j], sq[j-1] = sq[j-1], sq[j]
		}
	}
}

// TestDeadlockRulesAgainstOracle checks the corral and frozen-goal deadlock
// rules, and the packing search, against the breadth-first oracle on
// cluttered random levels: every verdict (solved with the fewest pushes, or
// unsolvable) must agree with the oracle's, with the rules on and off, and
// the rules must have fired.
func TestDeadlockRulesAgainstOracle(t *testing.T) {
	n := 120
	if v := soakLevels(); v > 0 {
		n = v
	}
	rng := rand.New(rand.NewPCG(11, 12))
	var locked, subDead, frozenGoals, cluster, packing int64
	tried := 0
	for tried < n {
		l, src := parseRandom(rng, clutteredLevel)
		want := oraclePushes(l, 1_000_000)
		if want == -2 {
			continue
		}
		tried++
		b := mustAnalyze(t, l)
		// The cluster test prunes most positions the corral rules would
		// judge, so they run without it too.
		for _, off := range []Techniques{0, TechClusterDeadlocks, TechCorralDeadlocks | TechFrozenGoals | TechClusterDeadlocks} {
			r, err := Solve(context.Background(), b, Options{Objective: ObjectivePushes, Heuristic: testHeuristic(b, RuleMatching),
				Budget: Budget{Memory: 8 << 20}, Off: off})
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(expectFromOracle(want), summarize(r)); diff != "" {
				t.Fatalf("level\n%soff %v: (-oracle +engine):\n%s", src, off, diff)
			}
			locked += r.Stats.LockedCorrals
			subDead += r.Stats.SubDead
			frozenGoals += r.Stats.FrozenGoals
			cluster += r.Stats.ClusterDead
		}
		for _, run := range []struct {
			strategy Strategy
			off      Techniques
		}{{StrategyAlternate, 0}, {StrategyPacking, 0}, {StrategyPacking, TechClusterDeadlocks}} {
			strategy := run.strategy
			r, err := Solve(context.Background(), b, Options{Objective: ObjectiveAny, Heuristic: testHeuristic(b, RuleMatching),
				Strategy: strategy, Budget: Budget{Memory: 8 << 20}, Off: run.off})
			if err != nil {
				t.Fatal(err)
			}
			wantStatus := Solved
			if want == -1 {
				wantStatus = Unsolvable
			}
			if r.Status != wantStatus {
				t.Fatalf("level\n%sany/strategy %d: got %v (%s), want %v", src, strategy, r.Status, r.Reason, wantStatus)
			}
			if r.Status == Solved {
				checkSolution(t, l, r)
			}
			locked += r.Stats.LockedCorrals
			subDead += r.Stats.SubDead
			frozenGoals += r.Stats.FrozenGoals
			cluster += r.Stats.ClusterDead
			if r.Stats.Packing {
				packing++
			}
		}
	}
	t.Logf("%d levels: %d locked corrals, %d corral sub-searches dead, %d frozen-goal prunes, %d cluster prunes, %d packing searches",
		tried, locked, subDead, frozenGoals, cluster, packing)
	// The corral sub-search seldom proves anything on boards this small;
	// TestCorralDeadlocksIndependently checks its verdicts on big ones.
	for name, fired := range map[string]int64{"locked corral": locked, "frozen goal": frozenGoals, "cluster": cluster, "packing search": packing} {
		if fired == 0 {
			t.Errorf("no %s fired: the levels do not exercise it", name)
		}
	}
}

// TestCorralDeadlocksIndependently checks, on the benchmark collections,
// every corral the search finds dead by its own boxes (a locked corral or a
// corral sub-search): those boxes alone on the board, the player where it
// stood, must be unable to reach goals, which a plain breadth-first search
// written here (no dead squares, no freeze test) confirms when it exhausts
// their positions. Skips without SOKOD_LEVELS.
func TestCorralDeadlocksIndependently(t *testing.T) {
	skipUnderRace(t)
	levels := loadCollection(t, filepath.Join(levelsDir(t), "xsokoban90.xsb"))
	claims, checked := 0, 0
	for _, l := range levels[:12] {
		b := mustAnalyze(t, l)
		got, _ := corralClaims(b, 3000, func(n int, k []uint16) bool { return n < 25 && len(k) <= 5 })
		claims += len(got)
		for _, c := range got {
			if confirmDead(t, b, c, 300_000, l.Title+": ") {
				checked++
			}
		}
	}
	t.Logf("%d dead corrals, %d confirmed by exhaustion", claims, checked)
	if checked == 0 {
		t.Error("no dead corral confirmed")
	}
}

// TestLearnedPruningIndependently checks the corral sub-search's pruning by
// learned deadlocks (subsearch.go): the corrals the search found dead are
// asked again of a sub-search with every set the search learned and of one
// with none, and the boxes of each that only the first proves, alone on the
// board with the player where it stood, must be unable to reach goals,
// which plainBoxSearch confirms when it exhausts their positions. Skips
// without SOKOD_LEVELS.
func TestLearnedPruningIndependently(t *testing.T) {
	skipUnderRace(t)
	levels := loadCollection(t, filepath.Join(levelsDir(t), "xsokoban90.xsb"))
	claims, checked := 0, 0
	// Levels where sets of a few boxes are proved only with the learned
	// sets within a short search.
	for _, n := range []int{16, 17} {
		l := levels[n-1]
		b := mustAnalyze(t, l)
		got, s := corralClaims(b, 5000, func(_ int, k []uint16) bool { return len(k) <= 6 })
		learned, alone := newSubSearch(b, &s.learned), newSubSearch(b, &learnedSets{})
		wall := uint16(b.Squares)
		for _, c := range got {
			if !learned.deadlocked(c.k, c.player, c.player, wall, subLimit) || alone.deadlocked(c.k, c.player, c.player, wall, subLimit) {
				continue
			}
			claims++
			if confirmDead(t, b, c, 300_000, l.Title+": ") {
				checked++
			}
		}
	}
	t.Logf("%d sets proved dead only with the learned sets, %d confirmed by exhaustion", claims, checked)
	if checked == 0 {
		t.Error("no set proved only with the learned sets was confirmed: the levels do not exercise the pruning")
	}
}

// deadClaim is a set of boxes a deadlock test found dead, with the player's
// square then.
type deadClaim struct {
	k      []uint16
	player uint16
}

// corralClaims runs the search on b for at most nodes expansions and
// returns the corrals it found dead by their own boxes that keep accepts
// (given how many it accepted before), and the searcher. Cluster deadlocks
// are off: they would prune many of the positions whose corrals these are
// (their own claims are checked by TestClusterDeadlocksIndependently).
func corralClaims(b *Board, nodes int, keep func(n int, k []uint16) bool) ([]deadClaim, *searcher) {
	var got []deadClaim
	s := runSteps(b, nodes, TechClusterDeadlocks, func(s *searcher) {
		s.onCorralDead = func(k []uint16, player uint16) {
			if keep(len(got), k) {
				got = append(got, deadClaim{append([]uint16(nil), k...), player})
			}
		}
	})
	return got, s
}

// confirmDead reports whether plainBoxSearch, within limit positions,
// finds that claim c's boxes alone cannot all reach goals, and fails the
// test when they can; level names the level in the failure.
func confirmDead(t *testing.T, b *Board, c deadClaim, limit int, level string) bool {
	t.Helper()
	switch plainBoxSearch(b, c.k, c.player, limit) {
	case 1:
		t.Fatalf("%sboxes %v with the player on %d were found dead, but can reach goals", level, squareNames(b, c.k), c.player)
	case 0:
		return true
	}
	return false
}

// TestClusterDeadlocksIndependently checks every cluster the search finds
// dead (cluster.go) on cluttered random levels: its boxes alone on the
// board, the player where it stood, must be unable to reach goals, which
// plainBoxSearch confirms when it exhausts their positions. The cluster
// search proves more than that (it removes boxes that leave its window),
// so a claim plainBoxSearch refutes is a bug.
func TestClusterDeadlocksIndependently(t *testing.T) {
	n := 300
	if v := soakLevels(); v > 0 {
		n = v
	}
	rng := rand.New(rand.NewPCG(21, 22))
	claims, checked := 0, 0
	for range n {
		l, src := parseRandom(rng, clutteredLevel)
		b := mustAnalyze(t, l)
		var got []deadClaim
		runSteps(b, 2000, 0, func(s *searcher) {
			s.onClusterDead = func(k []uint16, player uint16) {
				got = append(got, deadClaim{append([]uint16(nil), k...), player})
			}
		})
		claims += len(got)
		for _, c := range got {
			if confirmDead(t, b, c, 200_000, "level\n"+src) {
				checked++
			}
		}
	}
	t.Logf("%d dead clusters, %d confirmed by exhaustion", claims, checked)
	if checked == 0 {
		t.Error("no dead cluster confirmed")
	}
}

// skipUnderRace skips a long check of one goroutine's search under the race
// detector, which has nothing to find there and makes it several times
// slower; .ci/run runs the package again without -race, and so these.
func skipUnderRace(t *testing.T) {
	t.Helper()
	if raceDetector {
		t.Skip("one goroutine's search: checked without -race (.ci/run)")
	}
}

// runSteps runs the default search of ObjectiveAny, with the techniques off
// switched off, on b for at most nodes expansions, after setup has seen the
// searcher, and returns it.
func runSteps(b *Board, nodes int, off Techniques, setup func(*searcher)) *searcher {
	opts := Options{Objective: ObjectiveAny, Heuristic: testHeuristic(b, RuleMatching), Budget: Budget{Nodes: int64(nodes)}, Off: off}
	s := newSearcher(b, opts.Heuristic, opts, NewWorkspace(64<<20))
	if setup != nil {
		setup(s)
	}
	if _, _, _, end := s.begin(); !end {
		for i := 0; i < nodes; i++ {
			if _, _, _, end := s.step(); end {
				break
			}
		}
	}
	return s
}

// plainBoxSearch searches the positions of the boxes on squares k alone on
// b's board, the player starting on player, for one with every box on a
// goal: 1 found, 0 none exists, -1 more than limit positions. Positions are
// the boxes' squares and the player's square normalised to its region's
// smallest.
func plainBoxSearch(b *Board, k []uint16, player uint16, limit int) int {
	n := b.Squares
	occupied := func(boxes []uint16, sq uint16) bool {
		for _, x := range boxes {
			if x == sq {
				return true
			}
		}
		return false
	}
	stack := make([]uint16, 0, n)
	region := func(boxes []uint16, from uint16) []bool {
		seen := make([]bool, n+1)
		for _, x := range boxes {
			seen[x] = true // marked squares block the flood
		}
		stack = floodUnseen(b, from, seen, stack)
		for _, x := range boxes {
			seen[x] = false
		}
		return seen
	}
	keyOf := func(boxes []uint16, reach []bool) string {
		sorted := append([]uint16(nil), boxes...)
		slices.Sort(sorted)
		low := 0
		for low < len(reach) && !reach[low] {
			low++
		}
		key := make([]byte, 0, 2*len(sorted)+2)
		for _, x := range append(sorted, uint16(low)) {
			key = append(key, byte(x), byte(x>>8))
		}
		return string(key)
	}
	type node struct {
		boxes  []uint16
		player uint16
	}
	start := node{append([]uint16(nil), k...), player}
	seen := map[string]bool{keyOf(start.boxes, region(start.boxes, player)): true}
	queue := []node{start}
	for len(queue) > 0 {
		if len(seen) > limit {
			return -1
		}
		cur := queue[0]
		queue = queue[1:]
		all := true
		for _, x := range cur.boxes {
			if b.GoalIndex[x] < 0 {
				all = false
			}
		}
		if all {
			return 1
		}
		reach := region(cur.boxes, cur.player)
		for i, x := range cur.boxes {
			for d := 0; d < 4; d++ {
				to, side := b.Nbr[int(x)*4+d], b.Nbr[int(x)*4+(d^2)]
				if int(to) == n || int(side) == n || !reach[side] || occupied(cur.boxes, to) {
					continue
				}
				next := append([]uint16(nil), cur.boxes...)
				next[i] = to
				key := keyOf(next, region(next, x))
				if !seen[key] {
					seen[key] = true
					queue = append(queue, node{next, x})
				}
			}
		}
	}
	return 0
}

// floodUnseen marks in seen the squares the player reaches from p over
// squares not marked yet, so that marked squares block it as boxes do.
// stack is scratch, returned for reuse.
func floodUnseen(b *Board, p uint16, seen []bool, stack []uint16) []uint16 {
	stack = append(stack[:0], p)
	seen[p] = true
	for len(stack) > 0 {
		c := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		for d := 0; d < 4; d++ {
			m := b.Nbr[int(c)*4+d]
			if int(m) == b.Squares || seen[m] {
				continue
			}
			seen[m] = true
			stack = append(stack, m)
		}
	}
	return stack
}

// TestClusterSearchAgainstPlainSearch puts two to four boxes at random,
// close together, on cluttered random boards, the player at random, and
// checks every verdict
// of dead the cluster search gives against plainBoxSearch: the boxes alone
// must be unable to reach goals.
func TestClusterSearchAgainstPlainSearch(t *testing.T) {
	n := 10000
	if v := soakLevels(); v > 0 {
		n = 30 * v
	}
	rng := rand.New(rand.NewPCG(31, 32))
	dead, confirmed := 0, 0
	for tried := 0; tried < n; {
		l, src := parseRandom(rng, clutteredLevel)
		b := mustAnalyze(t, l)
		var free []uint16
		for sq := uint16(0); int(sq) < b.Squares; sq++ {
			if !b.Dead[sq] {
				free = append(free, sq)
			}
		}
		if len(free) < 6 {
			continue
		}
		tried++
		rng.Shuffle(len(free), func(i, j int) { free[i], free[j] = free[j], free[i] })
		// The first box, and others near it (as clusterDead takes them).
		x0, y0 := b.XY(free[0])
		k := free[:1]
		want := 2 + rng.IntN(3)
		for _, sq := range free[1:] {
			if x, y := b.XY(sq); len(k) < want && abs(x-x0) <= clusterRadius && abs(y-y0) <= clusterRadius {
				k = append(k, sq)
			}
		}
		if len(k) < 2 {
			continue
		}
		player := uint16(rng.IntN(b.Squares))
		if slices.Contains(k, player) {
			continue
		}
		cs := newClusterSearch(b)
		if d, _ := cs.deadlocked(k, player); !d {
			continue
		}
		dead++
		if confirmDead(t, b, deadClaim{k, player}, 300_000, "level\n"+src) {
			confirmed++
		}
	}
	t.Logf("%d dead verdicts, %d confirmed by exhaustion", dead, confirmed)
	if confirmed == 0 {
		t.Error("no dead verdict confirmed")
	}
}

// soakLevels is the number of random levels SOKOD_RANDOM_LEVELS asks for,
// for a longer soak run, or 0.
func soakLevels() int {
	if v, err := strconv.Atoi(os.Getenv("SOKOD_RANDOM_LEVELS")); err == nil && v > 0 {
		return v
	}
	return 0
}

// parseRandom returns the next level of gen's that parses, and its text
// for failure messages; gen returns "" when it made none.
func parseRandom(rng *rand.Rand, gen func(*rand.Rand) string) (*sokoban.Level, string) {
	for {
		if src := gen(rng); src != "" {
			if l, err := sokoban.Parse(src); err == nil {
				return l, src
			}
		}
	}
}

// TestCorralSubSearchIndependently checks the corral sub-search's verdicts
// on sets of boxes from cluttered random levels: a set it finds dead must
// be unable to reach goals alone on the board, which plainBoxSearch
// confirms when it exhausts their positions. Some of the sets must be
// proved dead after a box got out of the corral and left the search.
func TestCorralSubSearchIndependently(t *testing.T) {
	n := 300
	if v := soakLevels(); v > 0 {
		n = v
	}
	rng := rand.New(rand.NewPCG(31, 32))
	var dead, checked int
	var outDead int64
	for range n {
		l, src := parseRandom(rng, clutteredLevel)
		b := mustAnalyze(t, l)
		ss := newSubSearch(b, &learnedSets{})
		start := b.StartBoxes
		if len(start) < 2 {
			continue
		}
		for range 6 {
			k := make([]uint16, 0, maxQuickK)
			for _, i := range rng.Perm(len(start))[:2+rng.IntN(min(3, len(start)-1))] {
				k = append(k, start[i])
			}
			// The wall sentinel as the corral's square: the player never
			// gets there, so only the search decides.
			if !ss.deadlocked(k, b.StartPlayer, b.StartPlayer, uint16(b.Squares), subLimit) {
				continue
			}
			dead++
			if confirmDead(t, b, deadClaim{k, b.StartPlayer}, 200_000, "level\n"+src) {
				checked++
			}
		}
		outDead += ss.outDead
	}
	t.Logf("%d sets found dead (%d after a box got out), %d confirmed by exhaustion", dead, outDead, checked)
	if checked == 0 || outDead == 0 {
		t.Errorf("%d dead sets confirmed, %d proved after a box got out: the levels do not exercise the sub-search", checked, outDead)
	}
}

// TestSubBudget checks the corral sub-search's budget: while its positions
// stay within the search's expansions and the allowance, it follows the
// player into the corral (the wall as the square that ends it) and takes
// up to maxSubK boxes; after that it stops at the corral's square and
// takes at most cheapSubK.
func TestSubBudget(t *testing.T) {
	b := mustAnalyze(t, parseLevel(t, "#####\n#@$.#\n#####\n"))
	s := newSearcher(b, testHeuristic(b, RuleMatching), Options{Objective: ObjectiveAny}, NewWorkspace(1<<20))
	const sq = 2
	type budget struct {
		Inside uint16
		MaxK   int
	}
	within, past := budget{s.wall, maxSubK}, budget{sq, cheapSubK}
	for _, tc := range []struct {
		nodes, work int64
		want        budget
	}{
		{0, 0, within},
		{0, subAllowance, within},
		{0, subAllowance + 1, past},
		{1000, subAllowance + 1000, within},
		{1000, subAllowance + 1001, past},
	} {
		s.nodes, s.sub.work = tc.nodes, tc.work
		if diff := cmp.Diff(tc.want, budget{s.subInside(sq), s.subK()}); diff != "" {
			t.Errorf("%d expansions, %d sub-search positions (-want +got):\n%s", tc.nodes, tc.work, diff)
		}
	}
}
