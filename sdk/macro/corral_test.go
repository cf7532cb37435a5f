package macro

import (
	"math/rand/v2"
	"testing"
)

// TestCorralCache holds the cached corral test to an uncached one: along
// random walks, a generator that has seen many positions (its cache warm)
// gives every position the verdict a fresh generator gives it. A key that
// missed something the verdict depends on would show as a mismatch.
func TestCorralCache(t *testing.T) {
	for _, lv := range testLevels {
		t.Run(lv.name, func(t *testing.T) {
			b := boardOf(t, lv.text)
			warm := NewGen(b)
			pos := NewPos(b)
			rng := rand.New(rand.NewPCG(5, 6))
			dead := 0
			for range 30 {
				pos.Set(b.StartBoxes, b.StartPlayer)
				for range 20 {
					moves := warm.Generate(pos, nil)
					if len(moves) == 0 {
						break
					}
					m := moves[rng.IntN(len(moves))]
					pos.Apply(&m)
					got := warm.CorralDeadlock(pos)
					if want := NewGen(b).CorralDeadlock(pos); got != want {
						t.Fatalf("boxes %v player %d: cached verdict %v, fresh %v", pos.Boxes, pos.Player, got, want)
					}
					if got {
						dead++
					}
				}
			}
			t.Logf("%d dead positions met", dead)
		})
	}
}
