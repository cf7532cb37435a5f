package macro

import (
	"math/rand/v2"
	"testing"

	"github.com/sokod/sokod/internal/engine"
	"github.com/sokod/sokod/sokoban"
)

// TestRegionsAfter checks the count RegionsAfter derives from the parent
// against a flood of the child, for every move of every position
// along random walks: moves that cut a corridor, close and reopen rings,
// leave a box where it was with the player elsewhere.
func TestRegionsAfter(t *testing.T) {
	levels := []struct{ name, text string }{
		{"test level", testLevel},
		{"ring", "#########\n#   #   #\n# $ $ $ #\n#   #   #\n## ### ##\n#  $ $ @#\n#  .....#\n#########\n"},
		{"corridors", "##########\n#@ $  #  #\n# ## $# .#\n#  $  $ .#\n## # ## .#\n#  $    .#\n#  ##   .#\n##########\n"},
		{"xsokoban 1", "    #####\n    #   #\n    #$  #\n  ###  $##\n  #  $ $ #\n### # ## #   ######\n#   # ## #####  ..#\n# $  $          ..#\n##### ### #@##  ..#\n    #     #########\n    #######\n"},
	}
	for _, lv := range levels {
		t.Run(lv.name, func(t *testing.T) {
			l, err := sokoban.Parse(lv.text)
			if err != nil {
				t.Fatal(err)
			}
			b, err := engine.Analyze(l)
			if err != nil {
				t.Fatal(err)
			}
			g := NewGen(b)
			pos := NewPos(b)
			rng := rand.New(rand.NewPCG(1, 2))
			checked := 0
			for walk := range 20 {
				pos.Set(b.StartBoxes, b.StartPlayer)
				for step := range 30 {
					moves := append([]Move(nil), g.Generate(pos, nil)...)
					if len(moves) == 0 {
						break
					}
					player := pos.Player
					for i := range moves {
						m := &moves[i]
						g.Lift(pos, m.From)
						got := g.RegionsAfter(m.To)
						pos.Apply(m)
						want := g.Regions(pos)
						pos.Undo(m, player)
						if got != want {
							t.Fatalf("walk %d step %d: box %d to %d: RegionsAfter %d, flood %d", walk, step, m.From, m.To, got, want)
						}
						checked++
					}
					pos.Apply(&moves[rng.IntN(len(moves))])
				}
			}
			// Filling a square where the box stood gives the parent's count.
			pos.Set(b.StartBoxes, b.StartPlayer)
			for _, x := range pos.Boxes {
				g.Lift(pos, x)
				if got, want := g.RegionsAfter(x), g.Regions(pos); got != want {
					t.Errorf("box on %d put back: RegionsAfter %d, flood %d", x, got, want)
				}
			}
			if checked < 50 {
				t.Errorf("only %d moves checked", checked)
			}
		})
	}
}
