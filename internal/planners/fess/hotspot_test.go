package fess

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/sokod/sokod/board"
	"github.com/sokod/sokod/internal/planners/packing"
	"github.com/sokod/sokod/sokoban"
)

// TestHotspots counts the hotspots of box placements on a board whose two
// rows let a box move only along its row: a box between another and that
// row's goal is a hotspot, and so is one on the square its neighbour's
// pusher needs.
func TestHotspots(t *testing.T) {
	b := analyze(t, `
########
#@ $ $.#
#     .#
########`)
	sq := func(x, y int) uint16 { return uint16(b.SquareOf[y*b.Width+x]) }
	h := newHotspots(b)
	for _, tc := range []struct {
		name  string
		boxes []uint16
		want  int32
	}{
		{"the second box in the first's way", []uint16{sq(3, 1), sq(5, 1)}, 1},
		{"on different rows", []uint16{sq(3, 1), sq(5, 2)}, 0},
		{"each in the other's way", []uint16{sq(4, 2), sq(5, 2)}, 2},
		{"a box on a goal blocks nothing", []uint16{sq(3, 1), sq(6, 1)}, 0},
		{"a lone box", []uint16{sq(3, 1)}, 0},
	} {
		if diff := cmp.Diff(tc.want, h.count(tc.boxes)); diff != "" {
			t.Errorf("%s: hotspots (-want +got):\n%s", tc.name, diff)
		}
	}
}

// TestHotspotsLargeBoard checks that a board past maxHotspotWork gets no
// table, and so no hotspots, rather than a long wait.
func TestHotspotsLargeBoard(t *testing.T) {
	const boxes = 70
	b := walledBoard(t, 42, 32, func(x, y int) byte {
		switch {
		case y == 2 && x >= 2 && x < 2+boxes/2, y == 4 && x >= 2 && x < 2+boxes/2:
			return '$'
		case y == 8 && x >= 2 && x < 2+boxes/2, y == 10 && x >= 2 && x < 2+boxes/2:
			return '.'
		case y == 20 && x == 20:
			return '@'
		}
		return ' '
	})
	if b.Squares*b.Squares*len(b.Goals) <= maxHotspotWork {
		t.Fatalf("the board is within maxHotspotWork: %d squares, %d goals", b.Squares, len(b.Goals))
	}
	hs := newHotspots(b)
	if hs.cuts != nil || hs.count(b.StartBoxes) != 0 {
		t.Errorf("a board past maxHotspotWork got a hotspot table")
	}
}

// walledBoard analyses a w by h level walled all round, the square at
// column x and row y inside being cell(x, y).
func walledBoard(t *testing.T, w, h int, cell func(x, y int) byte) *board.Board {
	t.Helper()
	var sb strings.Builder
	for y := range h {
		for x := range w {
			if x == 0 || y == 0 || x == w-1 || y == h-1 {
				sb.WriteByte('#')
			} else {
				sb.WriteByte(cell(x, y))
			}
		}
		sb.WriteByte('\n')
	}
	return analyze(t, sb.String())
}

// analyze parses and analyses the level src.
func analyze(t *testing.T, src string) *board.Board {
	t.Helper()
	l, err := sokoban.Parse(src)
	if err != nil {
		t.Fatal(err)
	}
	b, err := board.Analyze(l)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestAdviseHotspots checks the hotspot advisor: of the children not known
// yet, it proposes the one that leaves the fewest hotspots, and none when
// no child leaves fewer than the parent.
func TestAdviseHotspots(t *testing.T) {
	parent := features{hotspots: 3}
	for _, tc := range []struct {
		name     string
		children []features
		known    []bool
		want     int
	}{
		{"the child with the fewest", []features{{hotspots: 2}, {hotspots: 0}, {hotspots: 1}}, []bool{false, false, false}, 1},
		{"a known child is not proposed", []features{{hotspots: 2}, {hotspots: 0}}, []bool{false, true}, 0},
		{"none fewer than the parent", []features{{hotspots: 3}, {hotspots: 4}}, []bool{false, false}, -1},
	} {
		s := &search{plan: &packing.Plan{}, childFeat: tc.children, known: tc.known, opens: make([]bool, len(tc.known))}
		if diff := cmp.Diff(tc.want, s.advise(nil, parent)[advHotspots]); diff != "" {
			t.Errorf("%s: the hotspot advisor's move (-want +got):\n%s", tc.name, diff)
		}
	}
}

// loneBoxBoard returns an open square board of side n inside its walls,
// with one box and one goal.
func loneBoxBoard(t *testing.T, n int) *board.Board {
	t.Helper()
	return walledBoard(t, n, n, func(x, y int) byte {
		switch {
		case x == 3 && y == 3:
			return '@'
		case x == 5 && y == 5:
			return '$'
		case x == 9 && y == 9:
			return '.'
		}
		return ' '
	})
}
