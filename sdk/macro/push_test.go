package macro

import (
	"math/rand/v2"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestPushes checks Gen.Pushes against the rules, by a flood of its own
// per position, on the positions of random walks over the test levels.
func TestPushes(t *testing.T) {
	for _, lv := range testLevels {
		t.Run(lv.name, func(t *testing.T) {
			b := boardOf(t, lv.text)
			g := NewGen(b)
			pos := NewPos(b)
			pos.Set(b.StartBoxes, b.StartPlayer)
			rng := rand.New(rand.NewPCG(3, 4))
			checked := 0
			for range 30 {
				reach := flood(b.Nbr, pos, pos.Player)
				type push struct{ From, To, Norm uint16 }
				var want []push
				for _, x := range pos.Boxes {
					for d := range 4 {
						to, behind := b.Nbr[int(x)*4+d], b.Nbr[int(x)*4+d^2]
						if int(behind) < b.Squares && reach[behind] && pos.BoxAt[to] == -1 {
							child := *pos
							child.BoxAt = append([]int16(nil), pos.BoxAt...)
							child.BoxAt[x], child.BoxAt[to] = -1, 0
							norm := uint16(b.Squares)
							for s, ok := range flood(b.Nbr, &child, x) {
								if ok {
									norm = min(norm, uint16(s))
								}
							}
							want = append(want, push{x, to, norm})
						}
					}
				}
				var got []push
				moves := g.Pushes(pos, nil)
				for _, m := range moves {
					got = append(got, push{m.From, m.To, m.Norm})
					if m.Hash != Hash(b, appliedBoxes(pos, m), m.Norm) {
						t.Fatalf("push %d->%d: wrong hash", m.From, m.To)
					}
				}
				if diff := cmp.Diff(want, got); diff != "" {
					t.Fatalf("Pushes (-want +got):\n%s", diff)
				}
				checked += len(got)
				if len(moves) == 0 {
					break
				}
				pos.Apply(&moves[rng.IntN(len(moves))])
			}
			if checked == 0 {
				t.Error("no pushes checked")
			}
		})
	}
}

// flood returns the squares the player on from reaches in pos.
func flood(nbr []uint16, pos *Pos, from uint16) []bool {
	seen := make([]bool, len(pos.BoxAt))
	seen[from] = true
	stack := []uint16{from}
	for len(stack) > 0 {
		q := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		for d := range 4 {
			if n := nbr[int(q)*4+d]; pos.BoxAt[n] == -1 && !seen[n] {
				seen[n] = true
				stack = append(stack, n)
			}
		}
	}
	return seen
}

// appliedBoxes returns the boxes of pos after move m.
func appliedBoxes(pos *Pos, m Move) []uint16 {
	boxes := append([]uint16(nil), pos.Boxes...)
	boxes[m.Box] = m.To
	return boxes
}
