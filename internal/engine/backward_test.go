package engine

import (
	"context"
	"math/rand/v2"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/sokod/sokod/board"
	"github.com/sokod/sokod/sokoban"
)

// lonePushes is pullCosts' oracle: the fewest pushes that take a lone box
// from square from to each square, the player starting anywhere, by a 0-1
// breadth-first search over (box, player) pairs on the raw board.
func lonePushes(b *Board, from uint16) []uint16 {
	n := b.Squares
	wall := uint16(n)
	dist := make([]int, n*n) // by box*n+player; -1 unseen
	for i := range dist {
		dist[i] = -1
	}
	var front, next []int
	for p := 0; p < n; p++ {
		if p != int(from) {
			dist[int(from)*n+p] = 0
			front = append(front, int(from)*n+p)
		}
	}
	out := make([]uint16, n)
	for i := range out {
		out[i] = Inf
	}
	for d := 0; len(front) > 0; d++ {
		// Walks cost nothing: close the front under them first.
		for h := 0; h < len(front); h++ {
			st := front[h]
			box, pl := st/n, st%n
			out[box] = min(out[box], uint16(d))
			for e := 0; e < 4; e++ {
				m := b.Nbr[pl*4+e]
				if m == wall || int(m) == box || dist[box*n+int(m)] >= 0 {
					continue
				}
				dist[box*n+int(m)] = d
				front = append(front, box*n+int(m))
			}
		}
		next = next[:0]
		for _, st := range front {
			box, pl := st/n, st%n
			for e := 0; e < 4; e++ {
				if b.Nbr[pl*4+e] != uint16(box) {
					continue
				}
				to := b.Nbr[box*4+e]
				if to == wall || dist[int(to)*n+box] >= 0 {
					continue
				}
				dist[int(to)*n+box] = d + 1
				next = append(next, int(to)*n+box)
			}
		}
		front, next = next, front
	}
	return out
}

func TestPullCosts(t *testing.T) {
	for _, file := range []string{"testdata/small.xsb", "testdata/bench.xsb", "testdata/deadlocks.xsb"} {
		for i, l := range loadCollection(t, file) {
			b := mustAnalyze(t, l)
			costs := pullCosts(b, nil)
			g := len(b.Goals)
			for j, start := range b.StartBoxes {
				want := lonePushes(b, start)
				got := make([]uint16, b.Squares)
				for sq := range got {
					got[sq] = costs[sq*g+j]
				}
				if diff := cmp.Diff(want, got); diff != "" {
					t.Errorf("%s level %d, start box %d: pull costs (-lone pushes +got):\n%s", file, i+1, j, diff)
				}
			}
			for j := 0; j < g; j++ {
				if costs[b.Squares*g+j] != Inf {
					t.Errorf("%s level %d: the wall's row is %d, want Inf", file, i+1, costs[b.Squares*g+j])
				}
			}
		}
	}
}

// runPullSearch runs the backward search on b to its end: the solution's
// pushes, or nil; exhausted is set when the open lists ran empty.
func runPullSearch(t *testing.T, b *Board, ws *Workspace) (pushes []push, exhausted bool) {
	t.Helper()
	ws.reset()
	ps := newPullSearch(b, ws, nil)
	if ps == nil {
		return nil, true
	}
	ps.verifyNorm = true
	for {
		solved, end := ps.step()
		if solved {
			return ps.pushes(), false
		}
		if end {
			return nil, !ps.full
		}
	}
}

// TestPullSearchAgainstOracle runs the backward search to its end on the
// hand-made levels and on random cluttered ones, beside the breadth-first
// oracle: every solution it finds replays, and it runs out of positions
// exactly where the oracle finds no solution (its pruning is sound and
// its search complete).
func TestPullSearchAgainstOracle(t *testing.T) {
	ws := NewWorkspace(64 << 20)
	defer ws.Release()
	type level struct {
		l   *sokoban.Level
		src string
	}
	var levels []level
	for _, file := range []string{"testdata/small.xsb", "testdata/unsolvable.xsb"} {
		for _, l := range loadCollection(t, file) {
			levels = append(levels, level{l: l, src: file + ": " + l.Title})
		}
	}
	rng := rand.New(rand.NewPCG(60, 1))
	n := 150
	if testing.Short() {
		n = 40
	}
	for range n {
		l, src := parseRandom(rng, clutteredLevel)
		levels = append(levels, level{l: l, src: src})
	}
	var solved, unsolvable int
	for _, lv := range levels {
		want := oraclePushes(lv.l, 200000)
		if want == -2 {
			continue // too large for the oracle
		}
		b, err := board.Analyze(lv.l)
		if err != nil || b.Impossible != "" {
			continue
		}
		pushes, exhausted := runPullSearch(t, b, ws)
		switch {
		case pushes != nil:
			sol, err := buildSolution(b, pushes)
			if err != nil {
				t.Fatalf("%s: %v", lv.src, err)
			}
			m, err := sokoban.Replay(lv.l, sol)
			if err != nil || !m.Solved {
				t.Fatalf("%s: the backward search's solution does not replay: %v, solved %v", lv.src, err, m.Solved)
			}
			if want < 0 || m.Pushes < want {
				t.Fatalf("%s: solved in %d pushes, the oracle says %d", lv.src, m.Pushes, want)
			}
			solved++
		case exhausted:
			if want >= 0 {
				t.Fatalf("%s: the backward search ran out of positions; the oracle solves it in %d pushes", lv.src, want)
			}
			unsolvable++
		default:
			t.Fatalf("%s: the backward search filled its memory", lv.src)
		}
	}
	if solved < 10 || unsolvable < 3 {
		t.Errorf("solved %d, exhausted %d: the levels no longer test both outcomes", solved, unsolvable)
	}
	t.Logf("solved %d, exhausted %d", solved, unsolvable)
}

// TestPullStepAllocs proves the backward search's steady state allocates
// nothing per position. Its level cannot be solved (the four boxes at the
// top stand frozen off the goals, which no pull can leave), so the search
// runs through the positions of an open room until its memory is full.
func TestPullStepAllocs(t *testing.T) {
	l, err := sokoban.Parse(`
############
#          #
# $$       #
# $$    $  #
#     @    #
#    ...   #
#    ..    #
#          #
############
`)
	if err != nil {
		t.Fatal(err)
	}
	b := mustAnalyze(t, l)
	ws := NewWorkspace(256 << 20)
	defer ws.Release()
	ps := newPullSearch(b, ws, nil)
	if ps == nil {
		t.Fatal("no backward search")
	}
	for range 20000 {
		if _, end := ps.step(); end {
			t.Fatal("the backward search ended during warm-up")
		}
	}
	allocs := testing.AllocsPerRun(2000, func() {
		if _, end := ps.step(); end {
			t.Fatal("the backward search ended")
		}
	})
	if allocs != 0 {
		t.Errorf("%v allocations per backward step, want 0", allocs)
	}
}

// twoWayLevel is solved by the backward search alone in 10 positions, by
// the forward search alone in 28.
const twoWayLevel = `
#########
# ###@  #
#####$ ##
# $ .   #
#  **. ##
# $ . # #
#   ##  #
#########
`

// TestForwardMeetsBackward gives the forward search the positions of a
// backward search stopped after k expansions, for every k before it
// finds the start alone: every joined solution replays, and where the
// forward search meets the backward one it needs fewer expansions than
// alone.
func TestForwardMeetsBackward(t *testing.T) {
	l := parseLevel(t, twoWayLevel)
	b := mustAnalyze(t, l)
	forward := func(back *pullSearch) (s *searcher, goal uint32, nodes int) {
		opts := Options{Objective: ObjectiveAny, Heuristic: testHeuristic(b, RuleMatching)}
		s = newSearcher(b, opts.Heuristic, opts, NewWorkspace(16<<20))
		s.back = back
		st, _, goal, end := s.begin()
		for !end {
			st, _, goal, end = s.step()
		}
		if st != Solved {
			t.Fatalf("the forward search ends %v", st)
		}
		return s, goal, int(s.nodes)
	}
	_, _, alone := forward(nil)
	ws := NewWorkspace(16 << 20)
	defer ws.Release()
	met := 0
	for k := 1; ; k++ {
		ws.reset()
		ps := newPullSearch(b, ws, nil)
		solved := false
		for range k {
			if solved, _ = ps.step(); solved {
				break
			}
		}
		if solved {
			break
		}
		s, goal, nodes := forward(ps)
		if s.met == noRecord {
			continue
		}
		sol, err := buildSolution(b, ps.pushesFrom(s.pushPath(goal), s.met))
		if err != nil {
			t.Fatalf("k=%d: %v", k, err)
		}
		if m, err := sokoban.Replay(l, sol); err != nil || !m.Solved {
			t.Fatalf("k=%d: the joined solution does not replay: %v, solved %v", k, err, m.Solved)
		}
		if nodes >= alone {
			t.Errorf("k=%d: the forward search met the backward one after %d expansions, alone it needs %d", k, nodes, alone)
		}
		met++
	}
	if met == 0 {
		t.Error("the forward search never met the backward one")
	}
	t.Logf("alone: %d expansions; met the backward search for %d values of k", alone, met)
}

// TestSolveBackward runs Solve where the backward search, in turns of four
// positions with the forward search, reaches the start first (in 10
// positions against the forward search's 28): Solve takes its solution,
// which it replays like any other. Switched off, the forward search solves
// the level alone.
func TestSolveBackward(t *testing.T) {
	b := mustAnalyze(t, parseLevel(t, twoWayLevel))
	type outcome struct {
		Status   Status
		Backward bool
		Ran      bool // the backward search expanded positions
	}
	tests := []struct {
		off  Techniques
		want outcome
	}{
		{off: 0, want: outcome{Status: Solved, Backward: true, Ran: true}},
		{off: TechBackward, want: outcome{Status: Solved}},
	}
	for _, tc := range tests {
		r, err := Solve(context.Background(), b, Options{Objective: ObjectiveAny, Heuristic: testHeuristic(b, RuleMatching), Off: tc.off, turnNodes: 4})
		if err != nil {
			t.Fatal(err)
		}
		got := outcome{Status: r.Status, Backward: r.Stats.Backward, Ran: r.Stats.BackwardNodes > 0}
		if diff := cmp.Diff(tc.want, got); diff != "" {
			t.Errorf("off %v: outcome (-want +got):\n%s", tc.off, diff)
		}
	}
	// Under the other strategies and objectives it does not run.
	for _, o := range []Options{{Objective: ObjectivePushes}, {Objective: ObjectiveAny, Strategy: StrategyGreedy}} {
		o.Heuristic = testHeuristic(b, RuleMatching)
		r, err := Solve(context.Background(), b, o)
		if err != nil {
			t.Fatal(err)
		}
		if r.Status != Solved || r.Stats.BackwardNodes != 0 {
			t.Errorf("objective %v strategy %v: %v with %d backward positions, want solved with none", o.Objective, o.Strategy, r.Status, r.Stats.BackwardNodes)
		}
	}
}
