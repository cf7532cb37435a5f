package sdk_test

import (
	"context"
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/sokod/sokod/board"
	"github.com/sokod/sokod/sdk"
	"github.com/sokod/sokod/sokoban"
)

// TestAnalyzeKeepsNumbering checks that a level numbered from a board
// analyses to the same board, and that Analyze refuses a numbering the
// board package does not share.
func TestAnalyzeKeepsNumbering(t *testing.T) {
	sl, err := sokoban.Parse(testXSB)
	if err != nil {
		t.Fatal(err)
	}
	want, err := board.Analyze(sl)
	if err != nil {
		t.Fatal(err)
	}
	l := sdk.LevelFromBoard(want)
	got, err := l.Analyze(context.Background())
	if err != nil {
		t.Fatalf("own numbering refused: %v", err)
	}
	if diff := cmp.Diff(want.Dist, got.Dist); diff != "" {
		t.Errorf("distances differ (-want +got):\n%s", diff)
	}
	// Cell 0, the top-left corner, is never interior: listed as a square,
	// it is one the player cannot reach, which the board does not number.
	l.Squares = append([]int{0}, l.Squares...)
	if _, err := l.Analyze(context.Background()); err == nil {
		t.Error("a level with a square outside the player's reach was accepted")
	}
	bad := sdk.LevelFromBoard(want)
	bad.Boxes = nil
	if _, err := bad.Analyze(context.Background()); !errors.Is(err, sdk.ErrBadRequest) {
		t.Errorf("a level without boxes: got %v, want ErrBadRequest", err)
	}
}

// TestLevelFromBoardMatchesSokoban checks that the board package numbers
// levels as the SDK does, boxes on goals and cells out of reach included.
func TestLevelFromBoardMatchesSokoban(t *testing.T) {
	for i, src := range []string{
		"#######\n#@ $ .#\n# $ . #\n#######\n",
		"  ####\n###  ####\n#     $ #\n# #  #$ #\n# . .#@ #\n#########\n",
		"#######\n#.@ # #\n#$* $ #\n#   $ #\n# ..  #\n#  *  #\n#######\n",
	} {
		sl, err := sokoban.Parse(src)
		if err != nil {
			t.Fatal(err)
		}
		b, err := board.Analyze(sl)
		if err != nil {
			t.Fatal(err)
		}
		want, err := sdk.LevelFromSokoban(sl)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(want, sdk.LevelFromBoard(b), cmpopts.IgnoreUnexported(sdk.Level{})); diff != "" {
			t.Errorf("level %d: the board's numbering differs from the SDK's (-sdk +board):\n%s", i+1, diff)
		}
	}
}

// TestAnalyzeSharesTheHostsBoard: a level numbered from a board in this
// process gives that board back, and a copy whose start was changed is
// analysed afresh.
func TestAnalyzeSharesTheHostsBoard(t *testing.T) {
	sl, err := sokoban.Parse("######\n#@$ .#\n# $ .#\n######\n")
	if err != nil {
		t.Fatal(err)
	}
	b, err := board.Analyze(sl)
	if err != nil {
		t.Fatal(err)
	}
	l := sdk.LevelFromBoard(b)
	got, err := l.Analyze(context.Background())
	if err != nil || got != b {
		t.Errorf("Analyze of LevelFromBoard: %p, %v; want the host's board %p", got, err, b)
	}
	moved := *l
	moved.Boxes = []int{l.Boxes[0] + 1, l.Boxes[1]}
	got, err = moved.Analyze(context.Background())
	if err != nil || got == b {
		t.Fatalf("Analyze of a copy with a box moved: %p, %v; want a board of its own", got, err)
	}
	if int(got.StartBoxes[0]) == l.Boxes[0] && int(got.StartBoxes[1]) == l.Boxes[1] {
		t.Errorf("the copy's board starts as the original: %v", got.StartBoxes)
	}
}
