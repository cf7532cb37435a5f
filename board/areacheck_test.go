package board

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/sokod/sokod/sokoban"
)

// areaRoom is a goal room of six goals in two columns, entered from below.
const areaRoom = `
##########
#..  #   #
#..  $   #
#..  $$  #
###   $  #
  #  $ $ #
  #   @  #
  ########
`

// TestAreaCheck checks which fillings of a goal room can still be completed
// from its entrance with the boxes on goals standing still.
func TestAreaCheck(t *testing.T) {
	l, err := sokoban.Parse(areaRoom)
	if err != nil {
		t.Fatal(err)
	}
	b, err := Analyze(l)
	if err != nil {
		t.Fatal(err)
	}
	// Boxes off the goals fill the position up to six.
	spare := []xy{{5, 2}, {5, 3}, {6, 3}, {6, 4}, {5, 5}, {7, 5}}
	tests := []struct {
		name  string
		goals []xy // the goals filled
		dead  bool
	}{
		{"none", nil, false},
		{"back column first", []xy{{1, 1}, {1, 2}, {1, 3}}, false},
		{"all but the front corner", []xy{{1, 1}, {1, 2}, {1, 3}, {2, 1}, {2, 2}}, false},
		// The back corner (1,1) can only be reached through (2,1) or (1,2).
		{"back corner walled in", []xy{{2, 1}, {1, 2}}, true},
		// (1,2) then lies behind a full front column and a filled (1,3).
		{"front column before the back", []xy{{2, 1}, {2, 2}, {2, 3}, {1, 3}}, true},
		{"all", []xy{{1, 1}, {1, 2}, {1, 3}, {2, 1}, {2, 2}, {2, 3}}, false},
	}
	c := NewAreaCheck(b)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var boxes []uint16
			for _, g := range tt.goals {
				boxes = append(boxes, squareAt(t, b, g.X, g.Y))
			}
			for _, s := range spare[:6-len(tt.goals)] {
				boxes = append(boxes, squareAt(t, b, s.X, s.Y))
			}
			// The second answer comes from the memo.
			got := []bool{c.Dead(boxes), c.Dead(boxes)}
			if diff := cmp.Diff([]bool{tt.dead, tt.dead}, got); diff != "" {
				t.Errorf("dead, asked twice (-want +got):\n%s", diff)
			}
		})
	}
}

// TestAreaCheckOff checks that an area whose start position fails the
// check is left alone: there, boxes on goals must move again.
func TestAreaCheckOff(t *testing.T) {
	// areaRoom with the back corner walled in by boxes on goals.
	l, err := sokoban.Parse(`
##########
#.*  #   #
#*.  $   #
#..  $$  #
###      #
  #  $   #
  #   @  #
  ########
`)
	if err != nil {
		t.Fatal(err)
	}
	b, err := Analyze(l)
	if err != nil {
		t.Fatal(err)
	}
	if got := NewAreaCheck(b).Dead(b.StartBoxes); got {
		t.Error("the start position is dead; the area should be left alone")
	}
}

// TestVerdicts checks the memo table through its growth.
func TestVerdicts(t *testing.T) {
	var v verdicts
	want := map[uint64]bool{}
	for i := range uint64(1000) {
		k := i * 0x9e3779b97f4a7c15 // spread, and 0 for the first
		want[k] = i%3 == 0
		v.add(k, want[k])
	}
	got := map[uint64]bool{}
	for k := range want {
		dead, ok := v.find(k)
		if !ok {
			t.Fatalf("key %x lost", k)
		}
		got[k] = dead
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("verdicts (-want +got):\n%s", diff)
	}
	if _, ok := v.find(12345); ok {
		t.Error("found a key never added")
	}
}

type xy struct{ X, Y int }

func squareAt(t *testing.T, b *Board, x, y int) uint16 {
	t.Helper()
	sq := b.SquareOf[y*b.Width+x]
	if sq < 0 {
		t.Fatalf("no square at %d,%d", x, y)
	}
	return uint16(sq)
}
