package fess

import (
	"context"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/sokod/sokod/internal/planners/packing"
	"github.com/sokod/sokod/sdk/macro"
)

// TestOpensPush checks the explorer's test on a board of two rooms joined
// by one door, box A in the door, B in the right room and C in the left:
// taking A into the right room lets the player in to push B; taking it
// one square, or moving C, opens nothing new; and only a box that could
// come back counts as reversible.
func TestOpensPush(t *testing.T) {
	b := analyze(t, `
###########
#.  #     #
# $ #     #
#@  $   $ #
#.  #     #
#.  #     #
###########`)
	sq := func(x, y int) uint16 { return uint16(b.SquareOf[y*b.Width+x]) }
	plan := packing.Order(context.Background(), b)
	s := newSearch(b, plan, newTables(b, plan), 1<<10, false)
	s.pos.Set(b.StartBoxes, b.StartPlayer)
	s.markReach()
	moves := s.gen.Generate(s.pos, nil)
	for _, tc := range []struct {
		name     string
		from, to uint16
		want     bool
	}{
		{"A into the room: B's far sides open", sq(4, 3), sq(6, 3), true},
		{"A one square on: the player stays in the door", sq(4, 3), sq(5, 3), false},
		{"C within the left room: A's side was open before", sq(2, 2), sq(2, 3), false},
	} {
		i := slices.IndexFunc(moves, func(m macro.Move) bool { return m.From == tc.from && m.To == tc.to })
		if i < 0 {
			t.Fatalf("%s: no move from %d to %d", tc.name, tc.from, tc.to)
		}
		m := &moves[i]
		s.pos.Apply(m)
		got := s.opensPush(m)
		s.pos.Undo(m, b.StartPlayer)
		if diff := cmp.Diff(tc.want, got); diff != "" {
			t.Errorf("%s: opens a push (-want +got):\n%s", tc.name, diff)
		}
	}
	for _, tc := range []struct {
		name     string
		from, to uint16
		want     bool
	}{
		{"back along the row", sq(4, 3), sq(6, 3), true},
		{"back out of a corner", sq(4, 3), sq(9, 1), false},
	} {
		if diff := cmp.Diff(tc.want, s.ways.reversible(tc.from, tc.to)); diff != "" {
			t.Errorf("%s: reversible (-want +got):\n%s", tc.name, diff)
		}
	}
}

// TestOpen checks the opener on a corridor whose next packing square is
// its left end: it proposes the move that starts nearest that square and
// takes its box no nearer, the farther of two such, and nothing when a
// child packs, when the square is taken, or when every move would cost a
// feature.
func TestOpen(t *testing.T) {
	b := analyze(t, `
#########
#..@ $ $#
#########`)
	sq := func(x int) uint16 { return uint16(b.SquareOf[1*b.Width+x]) }
	plan := &packing.Plan{Steps: []packing.Step{{From: -1, To: sq(1)}, {From: -1, To: sq(2)}}}
	parent := features{packed: 0, regions: 2, doors: 1}
	mv := func(from, to int) macro.Move { return macro.Move{From: sq(from), To: sq(to)} }
	for _, tc := range []struct {
		name     string
		moves    []macro.Move
		children []features
		boxOnT   bool
		want     int
	}{
		{"the move starting nearest", []macro.Move{mv(5, 6), mv(3, 4)}, []features{parent, parent}, false, 1},
		{"the farther of two from one square", []macro.Move{mv(3, 4), mv(3, 6)}, []features{parent, parent}, false, 1},
		{"none that brings its box nearer", []macro.Move{mv(4, 3)}, []features{parent}, false, -1},
		{"none when a child packs", []macro.Move{mv(3, 4), mv(4, 1)}, []features{parent, {packed: 1, regions: 2, doors: 1}}, false, -1},
		{"none when the square is taken", []macro.Move{mv(3, 4)}, []features{parent}, true, -1},
		{"none adding a region", []macro.Move{mv(3, 4)}, []features{{regions: 3, doors: 1}}, false, -1},
		{"none adding a door", []macro.Move{mv(3, 4)}, []features{{regions: 2, doors: 2}}, false, -1},
	} {
		s := &search{b: b, plan: plan, ways: newWays(b, plan), pos: macro.NewPos(b), childFeat: tc.children, known: make([]bool, len(tc.moves))}
		if tc.boxOnT {
			s.pos.Set([]uint16{sq(1)}, sq(2))
		}
		if diff := cmp.Diff(tc.want, s.open(tc.moves, parent)); diff != "" {
			t.Errorf("%s: the opener's move (-want +got):\n%s", tc.name, diff)
		}
	}
}

// TestOpensPushOracle holds opensPush to the plain definition, two full
// floods per move, on every move of positions along random walks over the
// planners' fixtures.
func TestOpensPushOracle(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	checked, opened := 0, 0
	for _, name := range []string{"corridor.xsb", "goalroom.xsb", "rooms.xsb", "wide.xsb", "frozen.xsb"} {
		b := fixtureBoard(t, name)
		plan := packing.Order(context.Background(), b)
		s := newSearch(b, plan, newTables(b, plan), 1<<10, false)
		for walk := range 20 {
			s.pos.Set(b.StartBoxes, b.StartPlayer)
			for step := range 30 {
				s.markReach()
				moves := slices.Clone(s.gen.Generate(s.pos, nil))
				if len(moves) == 0 {
					break
				}
				player := s.pos.Player
				for i := range moves {
					m := &moves[i]
					s.pos.Apply(m)
					got, want := s.opensPush(m), plainOpensPush(s, m)
					s.pos.Undo(m, player)
					if got != want {
						t.Fatalf("%s walk %d step %d: move %d→%d opens a push: got %v, want %v", name, walk, step, m.From, m.To, got, want)
					}
					checked++
					if want {
						opened++
					}
				}
				s.pos.Apply(&moves[rng.IntN(len(moves))])
			}
		}
	}
	if opened == 0 || opened == checked {
		t.Fatalf("%d of %d moves open a push: the fixtures no longer test both answers", opened, checked)
	}
}

// plainOpensPush is opensPush's definition: the player floods the parent
// and the child, and some box that stood in both has a side reached only
// in the child from which it can be pushed.
func plainOpensPush(s *search, m *macro.Move) bool {
	b, pos := s.b, s.pos
	s.gen.Flood(pos, pos.Player)
	for i, x := range pos.Boxes {
		if i == int(m.Box) {
			continue
		}
		for d := range 4 {
			p := b.Nbr[int(x)*4+d]
			if p == m.From || p == m.To || pos.BoxAt[p] != -1 || s.reach[p] || !s.gen.Reached(p) {
				continue
			}
			if pos.BoxAt[b.Nbr[int(x)*4+(d^2)]] == -1 {
				return true
			}
		}
	}
	return false
}

// TestWaysLargeBoard checks that a board with more squares than the
// reversibility rows may take gets none, and so no explorer, rather than
// rows as large as the plan's positions.
func TestWaysLargeBoard(t *testing.T) {
	b := loneBoxBoard(t, 68)
	if b.Squares*b.Squares <= maxHotspotWork {
		t.Fatalf("the board is within the rows' bound: %d squares", b.Squares)
	}
	w := newWays(b, &packing.Plan{})
	if w.back != nil || w.reversible(b.StartBoxes[0], b.StartBoxes[0]+1) {
		t.Errorf("a board of %d squares got reversibility rows", b.Squares)
	}
}
