package engine

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/sokod/sokod/sokoban"
)

// tunnelSquaresBrute lists the tunnel squares of b by the definition in
// tunnel.go, with a flood fill of the floor without t per square: t not a
// goal, t-d and t+d floor, and no floor neighbour of t but t-d reachable
// from t-d.
func tunnelSquaresBrute(b *Board) []string {
	out := []string{}
	wall := b.Wall()
	for t := uint16(0); int(t) < b.Squares; t++ {
		for d := 0; d < 4; d++ {
			a, ahead := b.Nbr[int(t)*4+(d^2)], b.Nbr[int(t)*4+d]
			if b.GoalIndex[t] >= 0 || a == wall || ahead == wall {
				continue
			}
			seen := make([]bool, b.Squares+1)
			seen[t], seen[a] = true, true
			stack := []uint16{a}
			for len(stack) > 0 {
				c := stack[len(stack)-1]
				stack = stack[:len(stack)-1]
				for e := 0; e < 4; e++ {
					if m := b.Nbr[int(c)*4+e]; m != wall && !seen[m] {
						seen[m] = true
						stack = append(stack, m)
					}
				}
			}
			ok := true
			for e := 0; e < 4; e++ {
				if m := b.Nbr[int(t)*4+e]; e != d^2 && m != wall && seen[m] {
					ok = false
				}
			}
			if ok {
				out = append(out, tunnelName(b, t, d))
			}
		}
	}
	return out
}

// tunnelName names a square and a push direction: "x,y,R".
func tunnelName(b *Board, sq uint16, d int) string {
	x, y := b.XY(sq)
	return fmt.Sprintf("%d,%d,%c", x, y, "LURD"[d])
}

// tunnelSquares lists the tunnel squares Board.TunnelSquare reports.
func tunnelSquares(b *Board) []string {
	out := []string{}
	for t := uint16(0); int(t) < b.Squares; t++ {
		for d := 0; d < 4; d++ {
			if b.TunnelSquare(t, d) {
				out = append(out, tunnelName(b, t, d))
			}
		}
	}
	return out
}

// TestTunnelSquaresDefinition checks the tunnel squares computed from the
// side labels against the definition, by brute force, on the fixtures and
// on random rooms with and without tunnels.
func TestTunnelSquaresDefinition(t *testing.T) {
	levels := loadCollection(t, "testdata/small.xsb")
	levels = append(levels, loadCollection(t, "testdata/bench.xsb")...)
	rng := rand.New(rand.NewPCG(5, 6))
	for len(levels) < 300 {
		src := randomLevel(rng)
		if len(levels)%2 == 0 {
			src = tunnelLevel(rng)
		}
		if l, err := sokoban.Parse(src); src != "" && err == nil {
			levels = append(levels, l)
		}
	}
	total := 0
	for _, l := range levels {
		b := mustAnalyze(t, l)
		want := tunnelSquaresBrute(b)
		total += len(want)
		if diff := cmp.Diff(want, tunnelSquares(b)); diff != "" {
			t.Fatalf("level\n%s(-definition +TunnelSquare):\n%s", l.XSB(), diff)
		}
	}
	if total == 0 {
		t.Error("no tunnel squares at all; the test does not exercise them")
	}
}

// TestTunnelMacros solves hand-made levels with and without tunnel macros,
// with A* and IDA* for push-optimality and with greedy search for any
// solution: the results must agree with the oracle, and macros must happen
// exactly where the level has a tunnel the solution goes through.
func TestTunnelMacros(t *testing.T) {
	tests := []struct {
		name  string
		level string
		// tunnel squares that must be (or, in notTunnel, must not be)
		// reported, as "x,y,dir"
		tunnel, notTunnel []string
		macros            bool // whether some solve makes a macro
		stuck             bool // some solve must prune a box stuck in a tunnel
		// off is switched off in every solve: the corral deadlock tests
		// can prove dead the positions the stuck test is to see first.
		off Techniques
	}{
		{
			// The box is pushed into the door (6,2) and on to (7,2), the
			// first square of the goal room, where the player is shut out of
			// the room; it stops at (8,2), where the room opens.
			name: "door into a room",
			level: "" +
				"############\n" +
				"#     #   .#\n" +
				"#@$        #\n" +
				"#     #    #\n" +
				"############\n",
			tunnel:    []string{"6,2,R", "7,2,R", "6,2,L", "5,2,L"},
			notTunnel: []string{"5,2,R", "8,2,R", "4,2,L"},
			macros:    true,
		},
		{
			// A dead-end corridor with both goals at its end: the first
			// box stops on the goal (12,2), a goal is no tunnel square, and
			// must be pushed on by a plain push to (13,2).
			name: "goals in a tunnel",
			level: "" +
				"###############\n" +
				"#    ##########\n" +
				"#@$         ..#\n" +
				"#  $ ##########\n" +
				"#    ##########\n" +
				"###############\n",
			tunnel:    []string{"5,2,R", "11,2,R"},
			notTunnel: []string{"12,2,R", "4,2,R"},
			macros:    true,
		},
		{
			// A corridor walled on both sides on a loop: the player can
			// walk round and push the box back, so it is no tunnel; the
			// box stops wherever the search likes.
			name: "corridor on a loop",
			level: "" +
				"#########\n" +
				"#       #\n" +
				"# ##### #\n" +
				"#@$   . #\n" +
				"#########\n",
			notTunnel: []string{"3,3,R", "4,3,R", "5,3,R", "4,3,L"},
			macros:    false,
		},
		{
			// A box already in the tunnel: the box pushed in after it stops
			// behind it at (5,2), a deadlock the search prunes, so it is
			// moved out first, and slides on into the goal room to (10,2),
			// where the room opens.
			name: "a box in the tunnel",
			level: "" +
				"#############\n" +
				"#    ####   #\n" +
				"#@$   $    .#\n" +
				"#    ####  .#\n" +
				"#############\n",
			tunnel:    []string{"5,2,R", "7,2,R", "8,2,R", "9,2,R"},
			notTunnel: []string{"10,2,R", "4,2,R"},
			macros:    true,
			stuck:     true,
			off:       TechCorralDeadlocks,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			l, err := sokoban.Parse(tc.level)
			if err != nil {
				t.Fatal(err)
			}
			b := mustAnalyze(t, l)
			got := map[string]bool{}
			for _, s := range tunnelSquares(b) {
				got[s] = true
			}
			for _, s := range tc.tunnel {
				if !got[s] {
					t.Errorf("%s is no tunnel square; want one (tunnel squares: %v)", s, tunnelSquares(b))
				}
			}
			for _, s := range tc.notTunnel {
				if got[s] {
					t.Errorf("%s is a tunnel square; want none", s)
				}
			}
			want := oraclePushes(l, 2_000_000)
			if want < 0 {
				t.Fatalf("the oracle says %d; the level must be solvable and small", want)
			}
			var macros, stuck int64
			for _, c := range []struct {
				obj      Objective
				rule     Rule
				strategy Strategy
			}{
				{ObjectivePushes, RuleMatching, StrategyAlternate},
				{ObjectivePushes, RuleSumMin, StrategyAlternate},
				{ObjectivePushes, RuleMatching, StrategyIDA},
				{ObjectiveAny, RuleGreedy, StrategyGreedy},
				{ObjectiveAny, RuleGreedy, StrategyIDA},
			} {
				for _, off := range []bool{false, true} {
					r, err := Solve(context.Background(), b, Options{Objective: c.obj, Heuristic: testHeuristic(b, c.rule),
						Strategy: c.strategy, Budget: Budget{Memory: 8 << 20}, Off: offIf(off, TechTunnels) | tc.off})
					if err != nil {
						t.Fatal(err)
					}
					if r.Status != Solved {
						t.Fatalf("%v/%s/strategy %d/no macros %v: %v (%s)", c.obj, c.rule, c.strategy, off, r.Status, r.Reason)
					}
					checkSolution(t, l, r)
					if c.obj == ObjectivePushes {
						if diff := cmp.Diff(expectFromOracle(want), summarize(r)); diff != "" {
							t.Errorf("%s/strategy %d/no macros %v: (-oracle +engine):\n%s", c.rule, c.strategy, off, diff)
						}
					}
					if off && (r.Stats.Macros != 0 || r.Stats.Stuck != 0) {
						t.Errorf("%d macros, %d stuck with macros off", r.Stats.Macros, r.Stats.Stuck)
					}
					macros += r.Stats.Macros
					stuck += r.Stats.Stuck
				}
			}
			if (macros > 0) != tc.macros {
				t.Errorf("%d macros; want some: %v", macros, tc.macros)
			}
			if tc.stuck && stuck == 0 {
				t.Error("no box pruned as stuck in a tunnel; want some")
			}
		})
	}
}
