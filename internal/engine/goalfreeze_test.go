package engine

import (
	"math/rand/v2"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/sokod/sokod/sokoban"
)

// TestPullReach checks the frozen-goal test's reach sets, whose player
// regions are flooded once per frozen set and shared by the goals, against
// the fill plan's pull distances, which flood per goal: for random frozen
// sets of goals on the fixture levels and random rooms, the same squares reach each goal.
func TestPullReach(t *testing.T) {
	levels := loadCollection(t, "testdata/small.xsb")
	levels = append(levels, loadCollection(t, "testdata/bench.xsb")...)
	levels = append(levels, loadCollection(t, "testdata/bench12.xsb")...)
	// A pocket off a corridor that a box pulled along the corridor passes
	// but cannot enter: the player would have to stand in it. (The level
	// itself is unsolvable.)
	levels = append(levels, parseLevel(t, ""+
		"#######\n"+
		"#.@ $ #\n"+
		"### ###\n"+
		"### ###\n"+
		"#######\n"))
	rng := rand.New(rand.NewPCG(11, 12))
	for len(levels) < 200 {
		if l, err := sokoban.Parse(randomLevel(rng)); err == nil {
			levels = append(levels, l)
		}
	}
	checked := 0
	for li, l := range levels {
		b := mustAnalyze(t, l)
		s := newSearcher(b, testHeuristic(b, RuleMatching), Options{Objective: ObjectiveAny}, NewWorkspace(1<<20))
		g := &s.gf
		for round := 0; round < 8; round++ {
			clear(g.ps.filled)
			for _, goal := range b.Goals {
				if rng.IntN(3) == 0 {
					g.ps.filled[goal] = true
				}
			}
			g.sideGen++
			for _, goal := range b.Goals {
				if g.ps.filled[goal] {
					continue
				}
				reach := make([]uint64, g.words)
				s.pullReach(goal, reach)
				dist := g.ps.pullDistancesInto(goal, make([]uint16, b.Squares+1))
				var got, want []int
				for sq := 0; sq < b.Squares; sq++ {
					if reach[sq/64]&(1<<(sq%64)) != 0 {
						got = append(got, sq)
					}
					if dist[sq] != Inf {
						want = append(want, sq)
					}
				}
				if diff := cmp.Diff(want, got); diff != "" {
					t.Errorf("level %d, goal %d, frozen %v (-pull distances +pullReach):\n%s", li+1, goal, filledGoals(b, g.ps.filled), diff)
				}
				checked++
			}
		}
		s.finish()
	}
	if checked == 0 {
		t.Fatal("no goal checked")
	}
	t.Logf("%d goals' reach sets compared", checked)
}

// filledGoals lists the goals marked in filled.
func filledGoals(b *Board, filled []bool) []uint16 {
	var out []uint16
	for _, g := range b.Goals {
		if filled[g] {
			out = append(out, g)
		}
	}
	return out
}
