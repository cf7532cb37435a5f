package enginetables_test

import (
	"os"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/sokod/sokod/board"
	"github.com/sokod/sokod/internal/engine"
	"github.com/sokod/sokod/internal/enginetables"
	"github.com/sokod/sokod/internal/heuristics"
	"github.com/sokod/sokod/sdk"
	"github.com/sokod/sokod/sokoban"
)

func fixtureBoards(t *testing.T) []*engine.Board {
	t.Helper()
	var boards []*engine.Board
	for _, f := range []string{"../engine/testdata/small.xsb", "../engine/testdata/bench.xsb"} {
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		c, err := sokoban.ParseCollection(string(src))
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range c.Levels {
			b, err := board.Analyze(l)
			if err != nil {
				t.Fatal(err)
			}
			boards = append(boards, b)
		}
	}
	return boards
}

// TestSidesMatchRegions checks the protocol's definition of a player side
// against the engine's regions: for every box square and every player
// square, the side row that sdk.Level.SideOf names holds the costs of the
// engine's row for the player's region.
func TestSidesMatchRegions(t *testing.T) {
	for i, b := range fixtureBoards(t) {
		h := heuristics.Matching(b)
		if h.RegionCosts == nil {
			t.Fatalf("board %d: no region costs", i)
		}
		tables, err := enginetables.Tables(b, h)
		if err != nil {
			t.Fatal(err)
		}
		l := sdk.LevelFromBoard(b)
		g := len(b.Goals)
		for sq := range b.Squares {
			for p := range b.Squares {
				k := l.SideOf(sq, p)
				if p == sq {
					continue
				}
				if k < 0 {
					t.Fatalf("board %d: player on %d has no side of box %d", i, p, sq)
				}
				want := h.RegionCosts[(sq*engine.Regions+int(b.Region(uint16(sq), uint16(p))))*g:][:g]
				got := tables.SideCosts[(sq*sdk.Sides+k)*g:][:g]
				if diff := cmp.Diff(want, got); diff != "" {
					t.Fatalf("board %d, box %d, player %d (side %d): (-engine +protocol)\n%s", i, sq, p, k, diff)
				}
			}
		}
	}
}

// TestRoundTrip converts built-in tables to the protocol and back and
// checks that the engine sees the same costs in every row it can use.
func TestRoundTrip(t *testing.T) {
	for i, b := range fixtureBoards(t) {
		for _, spec := range heuristics.All() {
			h, err := spec.Prepare(b)
			if err != nil {
				t.Fatal(err)
			}
			tables, err := enginetables.Tables(b, h)
			if err != nil {
				t.Fatal(err)
			}
			if err := tables.Validate(b.Squares, len(b.Goals)); err != nil {
				t.Fatal(err)
			}
			back, err := enginetables.Heuristic(h.Name, b, &sdk.PreparedHeuristic{Admissible: h.Admissible, Tables: tables})
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(h.Costs, back.Costs); diff != "" || h.Rule != back.Rule || h.Admissible != back.Admissible {
				t.Fatalf("board %d %s: costs, rule or admissibility differ:\n%s", i, spec.Name, diff)
			}
			g := len(b.Goals)
			for sq := range b.Squares {
				for d := range 4 {
					nb := b.Nbr[sq*4+d]
					if int(nb) >= b.Squares {
						continue
					}
					r := (sq*engine.Regions + int(b.Region(uint16(sq), nb))) * g
					if diff := cmp.Diff(h.RegionCosts[r:][:g], back.RegionCosts[r:][:g]); diff != "" {
						t.Fatalf("board %d %s: square %d region row differs:\n%s", i, spec.Name, sq, diff)
					}
				}
			}
		}
	}
}

// TestPenalties: penalty patterns carry over both ways, and the engine's
// bound includes them.
func TestPenalties(t *testing.T) {
	b := fixtureBoards(t)[0]
	plain := heuristics.Simple(b)
	tables, err := enginetables.Tables(b, plain)
	if err != nil {
		t.Fatal(err)
	}
	// A pattern of the start position's boxes, and one that never matches
	// it (a square no box starts on).
	var start []int
	free := -1
	for sq := range b.Squares {
		if slices.Contains(b.StartBoxes, uint16(sq)) {
			start = append(start, sq)
		} else if free < 0 {
			free = sq
		}
	}
	tables.Penalties = []sdk.Penalty{{Squares: start, Cost: 3}, {Squares: []int{start[0], free}, Cost: 5}}
	h, err := enginetables.Heuristic("x", b, &sdk.PreparedHeuristic{Admissible: true, Tables: tables})
	if err != nil {
		t.Fatal(err)
	}
	back, err := enginetables.Tables(b, h)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(tables.Penalties, back.Penalties); diff != "" {
		t.Errorf("penalties after a round trip (-sent +back):\n%s", diff)
	}
	want, _, err := engine.LowerBound(b, plain, b.StartBoxes, b.StartPlayer)
	if err != nil {
		t.Fatal(err)
	}
	got, _, err := engine.LowerBound(b, h, b.StartBoxes, b.StartPlayer)
	if err != nil {
		t.Fatal(err)
	}
	if got != want+3 {
		t.Errorf("bound with penalties %d, want %d + 3", got, want)
	}
}

func TestDeadlocks(t *testing.T) {
	got := enginetables.Deadlocks("d", &sdk.DeadlockTables{
		DeadSquares: []int{3},
		Sets: []sdk.DeadlockSet{
			{Squares: []int{1, 2}, Capacity: 1},
			{Squares: []int{4}, Capacity: 0, LastPush: sdk.Right},
			{Squares: []int{5}, Capacity: 0, LastPush: sdk.Left},
		},
		Limits: []sdk.RegionLimit{{Squares: []int{6, 7}, Bound: sdk.AtMost, Boxes: 1}, {Squares: []int{8}, Bound: sdk.AtLeast, Boxes: 1}},
	})
	want := &engine.Deadlocks{
		Name: "d",
		Dead: []uint16{3},
		Sets: []engine.DeadlockSet{
			{Squares: []uint16{1, 2}, Capacity: 1, LastPush: -1},
			{Squares: []uint16{4}, LastPush: int8(sokoban.Right)},
			{Squares: []uint16{5}, LastPush: int8(sokoban.Left)},
		},
		Limits: []engine.RegionLimit{{Squares: []uint16{6, 7}, AtMost: true, Boxes: 1}, {Squares: []uint16{8}, Boxes: 1}},
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
}
