package engine

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/sokod/sokod/sokoban"
)

// roomsLevel is a start room joined by a three-square corridor to a goal
// room of four squares.
const roomsLevel = "" +
	"##########\n" +
	"#@  ###  #\n" +
	"# $  $ ..#\n" +
	"#   ######\n" +
	"##########\n"

type xy struct{ X, Y int }

func squaresXY(b *Board, sqs []uint16) []xy {
	out := []xy{}
	for _, sq := range sqs {
		x, y := b.XY(sq)
		out = append(out, xy{x, y})
	}
	return out
}

func squareAt(t *testing.T, b *Board, x, y int) uint16 {
	t.Helper()
	sq := b.SquareOf[y*b.Width+x]
	if sq < 0 {
		t.Fatalf("no square at %d,%d", x, y)
	}
	return uint16(sq)
}

func TestBoardViews(t *testing.T) {
	l, err := sokoban.Parse(roomsLevel)
	if err != nil {
		t.Fatal(err)
	}
	b := mustAnalyze(t, l)

	var gates []uint16
	for sq := uint16(0); int(sq) < b.Squares; sq++ {
		if b.Gate(sq) {
			gates = append(gates, sq)
		}
	}
	if diff := cmp.Diff([]xy{{3, 2}, {4, 2}, {5, 2}, {6, 2}, {7, 2}}, squaresXY(b, gates)); diff != "" {
		t.Errorf("gates (-want +got):\n%s", diff)
	}
	if b.Gate(b.Wall()) {
		t.Error("the wall sentinel is a gate")
	}

	var tunnels [][]xy
	for _, run := range b.Tunnels() {
		tunnels = append(tunnels, squaresXY(b, run))
	}
	if diff := cmp.Diff([][]xy{{{4, 2}, {5, 2}, {6, 2}}}, tunnels); diff != "" {
		t.Errorf("tunnels (-want +got):\n%s", diff)
	}

	type room struct{ Squares, Goals, Entrances []xy }
	var rooms []room
	for _, r := range b.GoalRooms() {
		rooms = append(rooms, room{squaresXY(b, r.Squares), squaresXY(b, r.Goals), squaresXY(b, r.Entrances)})
	}
	want := []room{{
		Squares:   []xy{{7, 1}, {8, 1}, {7, 2}, {8, 2}},
		Goals:     []xy{{7, 2}, {8, 2}},
		Entrances: []xy{{6, 2}},
	}}
	if diff := cmp.Diff(want, rooms); diff != "" {
		t.Errorf("goal rooms (-want +got):\n%s", diff)
	}
}

func TestLowerBoundAndFindDeadlock(t *testing.T) {
	rooms, err := sokoban.Parse(roomsLevel)
	if err != nil {
		t.Fatal(err)
	}
	deadlocks := loadCollection(t, "testdata/deadlocks.xsb")
	unsolvable := loadCollection(t, "testdata/unsolvable.xsb")
	tests := []struct {
		name      string
		level     *sokoban.Level
		boxes     []xy // nil: the start position
		player    xy
		wantBound int // -1: infinite
		wantKind  DeadlockKind
		wantBoxes []xy
	}{
		{name: "start", level: rooms, wantBound: 8, wantKind: NoDeadlock},
		{name: "one push made", level: rooms, boxes: []xy{{2, 2}, {6, 2}}, player: xy{5, 2}, wantBound: 7, wantKind: NoDeadlock},
		{name: "dead square", level: rooms, boxes: []xy{{1, 2}, {5, 2}}, player: xy{2, 2}, wantBound: -1, wantKind: DeadSquare, wantBoxes: []xy{{1, 2}}},
		{name: "freeze", level: deadlocks[0], wantBound: -1, wantKind: Freeze, wantBoxes: []xy{{3, 1}, {4, 1}}},
		{name: "frozen on goals", level: deadlocks[1], wantBound: 0, wantKind: NoDeadlock},
		{name: "bipartite", level: unsolvable[0], wantBound: -1, wantKind: Bipartite},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			b := mustAnalyze(t, tc.level)
			h := testHeuristic(b, RuleMatching)
			boxes, player := b.StartBoxes, b.StartPlayer
			if tc.boxes != nil {
				boxes = nil
				for _, p := range tc.boxes {
					boxes = append(boxes, squareAt(t, b, p.X, p.Y))
				}
				player = squareAt(t, b, tc.player.X, tc.player.Y)
			}
			bound, ok, err := LowerBound(b, h, boxes, player)
			if err != nil {
				t.Fatal(err)
			}
			if !ok {
				bound = -1
			}
			if bound != tc.wantBound {
				t.Errorf("LowerBound = %d, want %d", bound, tc.wantBound)
			}
			d, err := FindDeadlock(b, h, boxes, player)
			if err != nil {
				t.Fatal(err)
			}
			if d.Kind != tc.wantKind {
				t.Errorf("FindDeadlock kind = %v, want %v", d.Kind, tc.wantKind)
			}
			if got := squaresXY(b, d.Boxes); tc.wantBoxes != nil || len(got) > 0 {
				if diff := cmp.Diff(tc.wantBoxes, got); diff != "" {
					t.Errorf("deadlocked boxes (-want +got):\n%s", diff)
				}
			}
		})
	}
}

func TestPositionChecked(t *testing.T) {
	l, err := sokoban.Parse(roomsLevel)
	if err != nil {
		t.Fatal(err)
	}
	b := mustAnalyze(t, l)
	h := testHeuristic(b, RuleMatching)
	a, c := squareAt(t, b, 2, 2), squareAt(t, b, 5, 2)
	tests := []struct {
		name   string
		boxes  []uint16
		player uint16
	}{
		{"too few boxes", []uint16{a}, b.StartPlayer},
		{"two boxes on one square", []uint16{a, a}, b.StartPlayer},
		{"box off the board", []uint16{a, b.Wall()}, b.StartPlayer},
		{"player on a box", []uint16{a, c}, c},
		{"player off the board", []uint16{a, c}, b.Wall()},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if _, _, err := LowerBound(b, h, tc.boxes, tc.player); err == nil {
				t.Error("LowerBound: no error")
			}
			if _, err := FindDeadlock(b, h, tc.boxes, tc.player); err == nil {
				t.Error("FindDeadlock: no error")
			}
		})
	}
}
