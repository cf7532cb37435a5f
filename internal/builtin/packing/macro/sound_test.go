package macro

import (
	"context"
	"testing"

	"github.com/sokod/sokod/internal/engine"
)

// TestDeadlockTestsSound replays a solution of each test level, found by
// the engine's search, and checks that neither deadlock test calls any
// position on it dead: every one of them is solvable.
func TestDeadlockTestsSound(t *testing.T) {
	levels := append([]struct{ name, text string }{
		{"pushed in, open", "#########\n####    #\n#@ $ .$$#\n######..#\n#########\n"},
		{"fence free", "########\n#.     #\n#  @   #\n# $    #\n## #  ##\n## #####\n########\n"},
		{"goal open", "#########\n###     #\n#.*.$ $@#\n#########\n"},
	}, testLevels...)
	for _, lv := range levels {
		t.Run(lv.name, func(t *testing.T) {
			b := boardOf(t, lv.text)
			h := &engine.Heuristic{Name: "push distance", Costs: b.Dist, Rule: engine.RuleSumMin}
			res, err := engine.Solve(context.Background(), b, engine.Options{Objective: engine.ObjectiveAny, Heuristic: h, Budget: engine.Budget{Memory: 64 << 20}})
			if err != nil {
				t.Fatal(err)
			}
			if res.Status == engine.Unsolvable {
				t.Skipf("no solution to replay: %s", res.Reason)
			}
			if res.Status != engine.Solved {
				t.Fatalf("search: %v (%s)", res.Status, res.Reason)
			}
			g := NewGen(b)
			pos := NewPos(b)
			pos.Set(b.StartBoxes, b.StartPlayer)
			boxes := append([]uint16(nil), b.StartBoxes...)
			player := b.StartPlayer
			checked := 0
			for i, st := range res.Solution {
				to := b.Nbr[int(player)*4+int(st.Dir)]
				player = to
				if !st.Push {
					continue
				}
				boxes[pos.BoxAt[to]] = b.Nbr[int(to)*4+int(st.Dir)]
				pos.Set(boxes, player)
				if !g.Matchable(pos) {
					t.Errorf("step %d: Matchable calls a position on the solution dead", i+1)
				}
				if g.CorralDeadlock(pos) {
					t.Errorf("step %d: CorralDeadlock calls a position on the solution dead", i+1)
				}
				checked++
			}
			if checked == 0 {
				t.Fatal("the solution has no pushes")
			}
		})
	}
}
