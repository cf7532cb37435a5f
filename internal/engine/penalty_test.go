package engine

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/sokod/sokod/sokoban"
)

// TestPenaltyTracker moves boxes at random and compares the tracked penalty,
// by sync and by child, with the patterns counted afresh.
func TestPenaltyTracker(t *testing.T) {
	l := loadCollection(t, "testdata/small.xsb")[9] // four in a room
	b := mustAnalyze(t, l)
	rng := rand.New(rand.NewPCG(3, 4))
	var ps []Penalty
	for range 40 {
		// Overlapping patterns of one to four squares, some with a square
		// twice.
		p := Penalty{Cost: rng.IntN(5)}
		for range 1 + rng.IntN(4) {
			p.Squares = append(p.Squares, uint16(rng.IntN(b.Squares)))
		}
		ps = append(ps, p)
	}
	h := testHeuristic(b, RuleMatching)
	h.Penalties = ps
	if err := h.check(b); err != nil {
		t.Fatal(err)
	}
	fresh := func(boxes []uint16) int {
		sum := 0
		for _, p := range ps {
			if !slices.ContainsFunc(p.Squares, func(s uint16) bool { return !slices.Contains(boxes, s) }) {
				sum += p.Cost
			}
		}
		return sum
	}
	e := newEvaluator(b, h, len(b.StartBoxes))
	boxes := slices.Clone(b.StartBoxes)
	free := func(s uint16) bool { return !slices.Contains(boxes, s) }
	for step := range 2000 {
		if rng.IntN(3) == 0 {
			// Several boxes at once, as after a jump in the search.
			for i := range boxes {
				if s := uint16(rng.IntN(b.Squares)); free(s) {
					boxes[i] = s
				}
			}
		}
		e.pen.sync(boxes)
		if got, want := e.pen.sum, fresh(boxes); got != want {
			t.Fatalf("step %d: boxes %v: penalty %d, counted afresh %d", step, boxes, got, want)
		}
		i, to := rng.IntN(len(boxes)), uint16(rng.IntN(b.Squares))
		if !free(to) {
			continue
		}
		moved := slices.Clone(boxes)
		moved[i] = to
		if got, want := e.pen.child(i, to), fresh(moved); got != want {
			t.Fatalf("step %d: boxes %v, box %d to %d: child penalty %d, counted afresh %d", step, boxes, i, to, got, want)
		}
		if got, want := e.pen.sum, fresh(boxes); got != want {
			t.Fatalf("step %d: child changed the current penalty to %d, want %d", step, got, want)
		}
		boxes = moved
	}
}

// stateGraph is every position reachable from a level's start on the raw
// grid, with its pushes left to the goal (-1 when none): an oracle that,
// like oraclePushes, shares no code with the engine.
type stateGraph struct {
	w     int
	boxes [][]int // cells of the boxes of each state, sorted
	norm  []int   // the smallest cell the player reaches in each state
	left  []int   // fewest pushes to a solved state, -1 when unsolvable
}

// exploreStates builds the state graph of l, or nil when it has more than
// limit states.
func exploreStates(l *sokoban.Level, limit int) *stateGraph {
	w, h := l.Width(), l.Height()
	cells := l.Cells()
	wall := make([]bool, w*h)
	goal := make([]bool, w*h)
	var start []int
	for i, c := range cells {
		wall[i] = c.Has(sokoban.Wall)
		goal[i] = c.Has(sokoban.Goal)
		if c.Has(sokoban.Box) {
			start = append(start, i)
		}
	}
	step := func(i int, d sokoban.Direction) int {
		dx, dy := d.Delta()
		x, y := i%w+dx, i/w+dy
		if x < 0 || y < 0 || x >= w || y >= h || wall[y*w+x] {
			return -1
		}
		return y*w + x
	}
	occupied := make([]bool, w*h)
	reach := func(p int) []bool {
		seen := make([]bool, w*h)
		seen[p] = true
		for q := []int{p}; len(q) > 0; q = q[1:] {
			for d := sokoban.Left; d <= sokoban.Down; d++ {
				if n := step(q[0], d); n >= 0 && !seen[n] && !occupied[n] {
					seen[n] = true
					q = append(q, n)
				}
			}
		}
		return seen
	}
	g := &stateGraph{w: w}
	index := map[string]int{}
	var parents [][]int // states with a push to each state
	add := func(bx []int, p int) (int, bool) {
		for _, c := range bx {
			occupied[c] = true
		}
		norm := slices.Index(reach(p), true)
		for _, c := range bx {
			occupied[c] = false
		}
		k := fmt.Sprint(bx, norm)
		if i, ok := index[k]; ok {
			return i, false
		}
		index[k] = len(g.boxes)
		g.boxes = append(g.boxes, bx)
		g.norm = append(g.norm, norm)
		parents = append(parents, nil)
		return len(g.boxes) - 1, true
	}
	slices.Sort(start)
	px, py := l.Player()
	add(start, py*w+px)
	for s := 0; s < len(g.boxes); s++ {
		if len(g.boxes) > limit {
			return nil
		}
		bx := g.boxes[s]
		for _, c := range bx {
			occupied[c] = true
		}
		seen := reach(g.norm[s])
		type child struct {
			bx []int
			p  int
		}
		var children []child
		for bi, c := range bx {
			for d := sokoban.Left; d <= sokoban.Down; d++ {
				behind, to := step(c, d.Reverse()), step(c, d)
				if behind < 0 || !seen[behind] || to < 0 || occupied[to] {
					continue
				}
				nb := slices.Clone(bx)
				nb[bi] = to
				slices.Sort(nb)
				children = append(children, child{nb, c})
			}
		}
		for _, c := range bx {
			occupied[c] = false
		}
		for _, c := range children {
			i, _ := add(c.bx, c.p)
			parents[i] = append(parents[i], s)
		}
	}
	// Pushes left: breadth-first from the solved states, backwards.
	g.left = make([]int, len(g.boxes))
	var q []int
	for s, bx := range g.boxes {
		g.left[s] = -1
		if !slices.ContainsFunc(bx, func(c int) bool { return !goal[c] }) {
			g.left[s] = 0
			q = append(q, s)
		}
	}
	for ; len(q) > 0; q = q[1:] {
		for _, p := range parents[q[0]] {
			if g.left[p] < 0 {
				g.left[p] = g.left[q[0]] + 1
				q = append(q, p)
			}
		}
	}
	return g
}

// exactPenalties returns one pattern per box placement of g: its squares
// and the pushes left beyond h's bound, the least over the player's
// regions. A placement's pattern holds every box, so it matches that
// placement only, and h with the patterns is the exact pushes left up to
// where the player stands.
func exactPenalties(t *testing.T, b *Board, h *Heuristic, g *stateGraph) []Penalty {
	t.Helper()
	best := map[string]int{}
	var order []string
	for s, bx := range g.boxes {
		if g.left[s] < 0 {
			continue
		}
		sq := make([]uint16, len(bx))
		for i, c := range bx {
			sq[i] = uint16(b.SquareOf[c])
		}
		bound, ok, err := LowerBound(b, h, sq, uint16(b.SquareOf[g.norm[s]]))
		if err != nil {
			t.Fatal(err)
		}
		if !ok || bound > g.left[s] {
			t.Fatalf("boxes %v: bound %d (finite %v) over the %d pushes left: the base heuristic is not admissible", bx, bound, ok, g.left[s])
		}
		k := fmt.Sprint(sq)
		if v, seen := best[k]; !seen || g.left[s]-bound < v {
			if !seen {
				order = append(order, k)
			}
			best[k] = g.left[s] - bound
		}
	}
	var ps []Penalty
	for _, k := range order {
		var sq []uint16
		for _, f := range strings.Fields(strings.Trim(k, "[]")) {
			var v uint16
			fmt.Sscan(f, &v)
			sq = append(sq, v)
		}
		ps = append(ps, Penalty{Squares: sq, Cost: best[k]})
	}
	return ps
}

// TestExactPenaltiesAgainstOracle solves the small levels under objective
// pushes with penalties that make the matching bound exact (but for where
// the player stands), as a perfect pattern database would, and checks the
// push counts and the optimality claims against the breadth-first oracle:
// penalties that are admissible keep the proof of optimality true. The
// search must also expand no more positions than without them.
func TestExactPenaltiesAgainstOracle(t *testing.T) {
	levels := loadCollection(t, "testdata/small.xsb")
	rng := rand.New(rand.NewPCG(30, 1))
	for len(levels) < 60 {
		if src := randomLevel(rng); src != "" {
			if l, err := sokoban.Parse(src); err == nil && !l.Solved() {
				levels = append(levels, l)
			}
		}
	}
	fewer := 0
	for i, l := range levels {
		g := exploreStates(l, 200_000)
		if g == nil {
			continue
		}
		b := mustAnalyze(t, l)
		if b.Impossible != "" {
			continue
		}
		for _, strat := range []Strategy{StrategyAlternate, StrategyIDA} {
			t.Run(fmt.Sprintf("%d/%d", i+1, strat), func(t *testing.T) {
				plain := testHeuristic(b, RuleMatching)
				pen := testHeuristic(b, RuleMatching)
				pen.Penalties = exactPenalties(t, b, plain, g)
				opts := Options{Objective: ObjectivePushes, Strategy: strat, Budget: Budget{Memory: 8 << 20}}
				without, err := Solve(context.Background(), b, withHeuristic(opts, plain))
				if err != nil {
					t.Fatal(err)
				}
				with, err := Solve(context.Background(), b, withHeuristic(opts, pen))
				if err != nil {
					t.Fatal(err)
				}
				want := expectFromOracle(oraclePushes(l, 2_000_000))
				if diff := cmp.Diff(want, summarize(with)); diff != "" {
					t.Errorf("with penalties (-oracle +engine):\n%s", diff)
				}
				if diff := cmp.Diff(want, summarize(without)); diff != "" {
					t.Errorf("without penalties (-oracle +engine):\n%s", diff)
				}
				if with.Status == Solved {
					checkSolution(t, l, with)
				}
				if with.Stats.Nodes > without.Stats.Nodes {
					t.Errorf("%d nodes with exact penalties, %d without", with.Stats.Nodes, without.Stats.Nodes)
				}
				if with.Stats.Nodes < without.Stats.Nodes {
					fewer++
				}
			})
		}
	}
	if fewer == 0 {
		t.Error("exact penalties never saved a node")
	}
}

// withHeuristic returns opts with heuristic h.
func withHeuristic(opts Options, h *Heuristic) Options {
	opts.Heuristic = h
	return opts
}

func TestPenaltiesChecked(t *testing.T) {
	b := mustAnalyze(t, loadCollection(t, "testdata/small.xsb")[2])
	for _, p := range []Penalty{
		{Squares: nil, Cost: 1},
		{Squares: []uint16{0}, Cost: -1},
		{Squares: []uint16{0}, Cost: Inf},
		{Squares: []uint16{uint16(b.Squares)}, Cost: 1},
	} {
		h := testHeuristic(b, RuleMatching)
		h.Penalties = []Penalty{p}
		if _, err := Solve(context.Background(), b, Options{Heuristic: h}); err == nil {
			t.Errorf("penalty %+v accepted", p)
		}
	}
}
