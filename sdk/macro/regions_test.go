package macro

import (
	"math/rand/v2"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// testLevels are the boards of the region and move tests.
var testLevels = []struct{ name, text string }{
	{"test level", testLevel},
	{"ring", "#########\n#   #   #\n# $ $ $ #\n#   #   #\n## ### ##\n#  $ $ @#\n#  .....#\n#########\n"},
	{"corridors", "##########\n#@ $  #  #\n# ## $# .#\n#  $  $ .#\n## # ## .#\n#  $    .#\n#  ##   .#\n##########\n"},
	{"open room", "############\n#          #\n# $ $  $ $ #\n#  # $$ #  #\n# $  ..  $ #\n#   ....@  #\n# $  ..  $ #\n#  #    #  #\n#   $  $   #\n#   ....   #\n############\n"},
	{"xsokoban 1", "    #####\n    #   #\n    #$  #\n  ###  $##\n  #  $ $ #\n### # ## #   ######\n#   # ## #####  ..#\n# $  $          ..#\n##### ### #@##  ..#\n    #     #########\n    #######\n"},
}

// TestRegionsAfter checks the counts of regions after a move, Move.Regions
// and regionsAfter, against a flood of the child, for every move of every position
// along random walks: moves that cut a corridor, close and reopen rings,
// leave a box where it was with the player elsewhere.
func TestRegionsAfter(t *testing.T) {
	for _, lv := range testLevels {
		t.Run(lv.name, func(t *testing.T) {
			b := boardOf(t, lv.text)
			g := NewGen(b)
			pos := NewPos(b)
			rng := rand.New(rand.NewPCG(1, 2))
			checked := 0
			for walk := range 8 {
				pos.Set(b.StartBoxes, b.StartPlayer)
				for step := range 20 {
					moves := append([]Move(nil), g.Generate(pos, nil)...)
					if len(moves) == 0 {
						break
					}
					player := pos.Player
					for i := range moves {
						m := &moves[i]
						g.lift(pos, m.From)
						got := g.regionsAfter(m.To)
						pos.Apply(m)
						want := g.Regions(pos)
						pos.Undo(m, player)
						if int(m.Regions) != want {
							t.Fatalf("walk %d step %d: box %d to %d: Move.Regions %d, flood %d", walk, step, m.From, m.To, m.Regions, want)
						}
						if got != want {
							t.Fatalf("walk %d step %d: box %d to %d: regionsAfter %d, flood %d", walk, step, m.From, m.To, got, want)
						}
						checked++
					}
					pos.Apply(&moves[rng.IntN(len(moves))])
				}
			}
			// Filling a square where the box stood gives the parent's count.
			pos.Set(b.StartBoxes, b.StartPlayer)
			g.label(pos)
			for _, x := range pos.Boxes {
				g.lift(pos, x)
				if got, want := g.regionsAfter(x), g.Regions(pos); got != want {
					t.Errorf("box on %d put back: regionsAfter %d, flood %d", x, got, want)
				}
			}
			if checked < 50 {
				t.Errorf("only %d moves checked", checked)
			}
		})
	}
}

// TestLiftedMoves holds the generator's moves (liftedMoves) to the
// flood-based reference (boxMoves): the same moves, in the same order,
// with the same player regions and hashes, for every box of every
// position along random walks.
func TestLiftedMoves(t *testing.T) {
	for _, lv := range testLevels {
		t.Run(lv.name, func(t *testing.T) {
			b := boardOf(t, lv.text)
			g := NewGen(b)
			pos := NewPos(b)
			rng := rand.New(rand.NewPCG(3, 4))
			checked := 0
			for range 8 {
				pos.Set(b.StartBoxes, b.StartPlayer)
				for range 20 {
					base := BoxHash(b, pos.Boxes)
					g.label(pos)
					for i := range pos.Boxes {
						want := g.boxMoves(pos, i, base, nil, nil)
						got := g.liftedMoves(pos, i, base, nil)
						for j := range got {
							// The reference does not count regions;
							// TestRegionsAfter checks the count.
							got[j].Regions = -1
						}
						if diff := cmp.Diff(want, got); diff != "" {
							t.Fatalf("box on %d: moves (-flood +lifted):\n%s", pos.Boxes[i], diff)
						}
						checked += len(got)
					}
					moves := g.Generate(pos, nil)
					if len(moves) == 0 {
						break
					}
					pos.Apply(&moves[rng.IntN(len(moves))])
				}
			}
			if checked < 50 {
				t.Errorf("only %d moves checked", checked)
			}
		})
	}
}
