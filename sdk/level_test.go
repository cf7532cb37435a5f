package sdk_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/sokod/sokod/sdk"
	"github.com/sokod/sokod/sokoban"
)

// testXSB has 2 boxes and 2 goals; its interior is numbered row by row:
//
//	#######
//	#@ $ .#   squares 0..4   (player 0, box 2, goal 4)
//	# $ . #   squares 5..9   (box 6, goal 8)
//	#######
const testXSB = "#######\n#@ $ .#\n# $ . #\n#######\n"

func testLevel(t testing.TB) *sdk.Level {
	t.Helper()
	sl, err := sokoban.Parse(testXSB)
	if err != nil {
		t.Fatal(err)
	}
	l, err := sdk.LevelFromSokoban(sl)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

func TestSideOf(t *testing.T) {
	// #######
	// #@ $ .#   squares 0..4
	// # $ . #   squares 5..9
	// #######
	l := testLevel(t)
	tests := []struct {
		box, player, want int
	}{
		{box: 2, player: 0, want: int(sokoban.Left)},  // left of it, and around: left comes first
		{box: 2, player: 4, want: int(sokoban.Left)},  // the board stays connected around the box
		{box: 0, player: 4, want: int(sokoban.Right)}, // a corner box: its right and down neighbours
		{box: 5, player: 9, want: int(sokoban.Up)},    // up comes before right
		{box: 1, player: 1, want: -1},                 // the player on the box
		{box: 6, player: 0, want: int(sokoban.Left)},
	}
	for _, tt := range tests {
		if got := l.SideOf(tt.box, tt.player); got != tt.want {
			t.Errorf("SideOf(%d, %d) = %d, want %d", tt.box, tt.player, got, tt.want)
		}
	}
	// A corridor: a box in it cuts the board in two.
	sl, err := sokoban.Parse("#######\n#@ $ .#\n#######\n")
	if err != nil {
		t.Fatal(err)
	}
	c, err := sdk.LevelFromSokoban(sl)
	if err != nil {
		t.Fatal(err)
	}
	if got := c.SideOf(2, 0); got != int(sokoban.Left) {
		t.Errorf("corridor, player left: side %d", got)
	}
	if got := c.SideOf(2, 4); got != int(sokoban.Right) {
		t.Errorf("corridor, player right: side %d", got)
	}
}

func TestXSBFromSquares(t *testing.T) {
	l := testLevel(t)
	sl, err := sokoban.Parse(l.XSBFromSquares())
	if err != nil {
		t.Fatal(err)
	}
	again, err := sdk.LevelFromSokoban(sl)
	if err != nil {
		t.Fatal(err)
	}
	again.XSB, l.XSB = "", ""
	if diff := cmp.Diff(l, again, cmpopts.IgnoreUnexported(sdk.Level{})); diff != "" {
		t.Errorf("round trip (-want +got):\n%s", diff)
	}
	want := &sdk.Level{Width: 7, Height: 4, Squares: []int{8, 9, 10, 11, 12, 15, 16, 17, 18, 19}, Goals: []int{4, 8}, Boxes: []int{2, 6}, Player: 0}
	if diff := cmp.Diff(want, l, cmpopts.IgnoreUnexported(sdk.Level{})); diff != "" {
		t.Errorf("numbering (-want +got):\n%s", diff)
	}
}
