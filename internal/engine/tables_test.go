package engine

import (
	"context"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/sokod/sokod/sokoban"
)

// wallPairs returns true knowledge for b: two squares side by side along a
// wall, neither a goal, hold at most one box (two would freeze each other
// off their goals).
func wallPairs(b *Board, trusted bool) *Deadlocks {
	d := &Deadlocks{Name: "wall pairs", Trusted: trusted}
	for sq := 0; sq < b.Squares; sq++ {
		for _, along := range []sokoban.Direction{sokoban.Right, sokoban.Down} {
			next := b.Neighbour(uint16(sq), along)
			if next == b.Wall() || b.GoalIndex[sq] >= 0 || b.GoalIndex[next] >= 0 {
				continue
			}
			for _, side := range []sokoban.Direction{(along + 1) % 4, (along + 3) % 4} {
				if b.Neighbour(uint16(sq), side) == b.Wall() && b.Neighbour(next, side) == b.Wall() {
					d.Sets = append(d.Sets, DeadlockSet{Squares: []uint16{uint16(sq), next}, Capacity: 1, LastPush: -1})
					break
				}
			}
		}
	}
	return d
}

// allSquares lists every square of b.
func allSquares(b *Board) []uint16 {
	out := make([]uint16, b.Squares)
	for i := range out {
		out[i] = uint16(i)
	}
	return out
}

// TestTrueTablesKeepResults runs random levels against the oracle with
// true knowledge in tables: results must not change, and proofs hold.
func TestTrueTablesKeepResults(t *testing.T) {
	// All 150 even under -short: they are quick, and fewer levels may
	// give the tables nothing to prune.
	const n = 150
	rng := rand.New(rand.NewPCG(7, 8))
	tried := 0
	var pruned int64
	for tried < n {
		l, src := parseRandom(rng, randomLevel)
		tried++
		want := oraclePushes(l, 500_000)
		if want == -2 {
			continue
		}
		b := mustAnalyze(t, l)
		boxes := len(b.StartBoxes)
		d := wallPairs(b, true)
		// Limits that every position meets.
		d.Limits = []RegionLimit{{Squares: allSquares(b), AtMost: true, Boxes: boxes}, {Squares: allSquares(b), Boxes: boxes}}
		for _, noMacros := range []bool{false, true} {
			// Tunnel macros skip some positions the tables would prune:
			// with and without them.
			r, err := Solve(context.Background(), b, Options{Objective: ObjectivePushes, Heuristic: testHeuristic(b, RuleSumMin),
				Budget: Budget{Memory: 4 << 20}, Deadlocks: []*Deadlocks{d}, Off: offIf(noMacros, TechTunnels)})
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(expectFromOracle(want), summarize(r)); diff != "" {
				t.Fatalf("level\n%s(-oracle +engine with tables, no macros %v):\n%s", src, noMacros, diff)
			}
			pruned += r.Stats.Tables
		}
	}
	if pruned == 0 {
		t.Error("the tables pruned nothing; the test does not exercise them")
	}
}

func TestUntrustedTablesAreNoProof(t *testing.T) {
	l := loadCollection(t, "testdata/small.xsb")[2] // two boxes
	b := mustAnalyze(t, l)
	goals := make([]uint16, len(b.Goals))
	for i, g := range b.Goals {
		goals[i] = uint16(g)
	}
	boxes := len(b.StartBoxes)
	tests := []struct {
		name    string
		d       Deadlocks
		status  Status
		reason  string // a part
		optimal bool
	}{
		{"no box may reach a goal, trusted", Deadlocks{Name: "x", Trusted: true, Limits: []RegionLimit{{Squares: goals, AtMost: true}}},
			Unsolvable, "every reachable position was searched", false},
		{"no box may reach a goal, untrusted", Deadlocks{Name: "x", Limits: []RegionLimit{{Squares: goals, AtMost: true}}},
			GaveUp, "deadlock detector x, which sokod cannot check", false},
		{"start breaks a limit, trusted", Deadlocks{Name: "y", Trusted: true, Limits: []RegionLimit{{Squares: allSquares(b), Boxes: boxes + 1}}},
			Unsolvable, "the start position is a deadlock for detector y", false},
		{"start breaks a limit, untrusted", Deadlocks{Name: "y", Limits: []RegionLimit{{Squares: allSquares(b), Boxes: boxes + 1}}},
			GaveUp, "no proof", false},
		{"untrusted but never used", Deadlocks{Name: "z", Sets: []DeadlockSet{{Squares: allSquares(b), Capacity: boxes, LastPush: -1}}},
			Solved, "", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := Solve(context.Background(), b, Options{Objective: ObjectivePushes, Heuristic: testHeuristic(b, RuleMatching),
				Budget: Budget{Memory: 4 << 20}, Deadlocks: []*Deadlocks{&tt.d}})
			if err != nil {
				t.Fatal(err)
			}
			if r.Status != tt.status || !strings.Contains(r.Reason, tt.reason) || r.Optimal != tt.optimal {
				t.Errorf("got %v (%q) optimal=%v, want %v (%q) optimal=%v", r.Status, r.Reason, r.Optimal, tt.status, tt.reason, tt.optimal)
			}
		})
	}
}

// TestUntrustedPruningVoidsOptimality: a dead square the engine does not
// know of, declared by an untrusted detector, still lets the level be
// solved, but the solution may no longer be claimed push-optimal.
func TestUntrustedPruningVoidsOptimality(t *testing.T) {
	l := loadCollection(t, "testdata/small.xsb")[2]
	b := mustAnalyze(t, l)
	want := oraclePushes(l, 1_000_000)
	voided := 0
	for sq := 0; sq < b.Squares; sq++ {
		if b.Dead[sq] || b.GoalIndex[sq] >= 0 {
			continue
		}
		for _, trusted := range []bool{false, true} {
			d := &Deadlocks{Name: "one", Trusted: trusted, Dead: []uint16{uint16(sq)}}
			r, err := Solve(context.Background(), b, Options{Objective: ObjectivePushes, Heuristic: testHeuristic(b, RuleMatching),
				Budget: Budget{Memory: 4 << 20}, Deadlocks: []*Deadlocks{d}})
			if err != nil {
				t.Fatal(err)
			}
			if r.Status != Solved {
				continue // that square was needed
			}
			checkSolution(t, l, r)
			if !trusted && r.Optimal && r.Metrics.Pushes != want {
				t.Fatalf("square %d: %d pushes claimed optimal, the optimum is %d", sq, r.Metrics.Pushes, want)
			}
			if !trusted && !r.Optimal {
				voided++
			}
			if trusted && !r.Optimal {
				t.Errorf("square %d, trusted: optimality not claimed", sq)
			}
		}
	}
	if voided == 0 {
		t.Error("no untrusted dead square ever voided the optimality claim; the test does not exercise it")
	}
}

func TestCountersDirection(t *testing.T) {
	l := loadCollection(t, "testdata/small.xsb")[2]
	b := mustAnalyze(t, l)
	sq := b.StartBoxes[0]
	set := DeadlockSet{Squares: []uint16{sq}, Capacity: 0, LastPush: int8(sokoban.Right)}
	c := newCounters(b, []*Deadlocks{{Name: "d", Sets: []DeadlockSet{set}}})
	c.place(sq, 1)
	left := b.Neighbour(sq, sokoban.Left)
	up := b.Neighbour(sq, sokoban.Up)
	got := []int32{
		c.violated(left, sq, uint8(sokoban.Right)),
		c.violated(up, sq, uint8(sokoban.Down)),
		c.violatedAtStart(),
	}
	if d := cmp.Diff([]int32{0, -1, -1}, got); d != "" {
		t.Errorf("violations (-want +got):\n%s", d)
	}
}

func TestTablesChecked(t *testing.T) {
	b := mustAnalyze(t, loadCollection(t, "testdata/small.xsb")[0])
	for _, d := range []*Deadlocks{
		{Name: "a", Dead: []uint16{uint16(b.Squares)}},
		{Name: "b", Sets: []DeadlockSet{{Squares: []uint16{0}, Capacity: -1, LastPush: -1}}},
		{Name: "c", Sets: []DeadlockSet{{Squares: []uint16{0}, LastPush: 4}}},
		{Name: "d", Limits: []RegionLimit{{Squares: []uint16{0}, Boxes: -2}}},
	} {
		if _, err := Solve(context.Background(), b, Options{Heuristic: testHeuristic(b, RuleMatching), Deadlocks: []*Deadlocks{d}}); err == nil {
			t.Errorf("%s: accepted %+v", d.Name, d)
		}
	}
}
