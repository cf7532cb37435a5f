package packing

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/sokod/sokod/board"
	"github.com/sokod/sokod/sokoban"
)

// TestOutDistanceSink checks that a box leaves the goal area only where
// it could have come from. Both levels are a shaft with two goals, boxes
// coming in from the room above; below the goals the shaft goes on into
// a dead end the player reaches by the passage on the right. A box pulled
// down there is far enough from the goals to count as outside, but no box
// can come from there: with both goals full, only the upper box may
// leave. Where a box starts in the dead end, it is a way in after all.
func TestOutDistanceSink(t *testing.T) {
	const sink = "" +
		"#######\n" +
		"#     #\n" +
		"#@$$  #\n" +
		"### # #\n" +
		"  # # #\n" +
		"  #.# #\n" +
		"  #.# #\n" +
		"  # # #\n" +
		"  # # #\n" +
		"  # # #\n" +
		"  #   #\n" +
		"  #####\n"
	const source = "" +
		"#######\n" +
		"#     #\n" +
		"#@ $  #\n" +
		"### # #\n" +
		"  # # #\n" +
		"  #.# #\n" +
		"  #.# #\n" +
		"  # # #\n" +
		"  # # #\n" +
		"  #$# #\n" +
		"  #   #\n" +
		"  #####\n"
	tests := []struct {
		name, level string
		want        map[cell]int // goal: pulls to leave with every goal full
	}{
		{"sink", sink, map[cell]int{{3, 5}: 3, {3, 6}: int(board.Inf)}},
		{"source", source, map[cell]int{{3, 5}: 3, {3, 6}: 3}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := analyze(t, tt.level)
			r := newReverse(b)
			for _, g := range b.Goals {
				r.occ[g] = true
			}
			r.playerRegion()
			got := map[cell]int{}
			for _, g := range b.Goals {
				x, y := b.XY(g)
				got[cell{x, y}] = r.outDistance(g)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("pulls out (-want +got):\n%s", diff)
			}
		})
	}
}

// cell names a square by column and row.
type cell struct{ X, Y int }

// analyze parses and analyses a level written out in a test.
func analyze(t *testing.T, level string) *board.Board {
	t.Helper()
	l, err := sokoban.Parse(level)
	if err != nil {
		t.Fatal(err)
	}
	b, err := board.Analyze(l)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
