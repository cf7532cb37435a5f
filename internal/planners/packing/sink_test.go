package packing

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/sokod/sokod/board"
	"github.com/sokod/sokod/sokoban"
)

// sinkLevel is a shaft with two goals, boxes coming in from the room
// above; below the goals the shaft goes on into a dead end the player
// reaches by the passage on the right. sourceLevel is the same with a box
// starting in the dead end.
const sinkLevel = "" +
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
const sourceLevel = "" +
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

// TestOutDistanceSink checks that a box leaves the goal area only where
// it could have come from. A box pulled down the shaft of sinkLevel is
// far enough from the goals to count as outside, but no box can come from
// there: with both goals full, only the upper box may leave. Where a box
// starts in the dead end (sourceLevel), it is a way in after all.
func TestOutDistanceSink(t *testing.T) {
	tests := []struct {
		name, level string
		want        map[cell]int // goal: pulls to leave with every goal full
	}{
		{"sink", sinkLevel, map[cell]int{{3, 5}: 3, {3, 6}: int(board.Inf)}},
		{"source", sourceLevel, map[cell]int{{3, 5}: 3, {3, 6}: 3}},
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

// TestParkingSquaresSink checks that a box may be parked in a sink: a
// square outside the goal area that no box can come from, where it stays
// until the goal area is empty, as at the foot of sinkLevel's shaft, once
// the reverse search parks in sinks. Other squares outside are no parking
// squares: a box pulled there leaves.
func TestParkingSquaresSink(t *testing.T) {
	tests := []struct {
		name  string
		level string
		sinks bool
		want  []cell
	}{
		// The lower goal's box goes down the shaft into the sink; the
		// last square is three pulls from the goals, outside.
		{"sink", sinkLevel, true, []cell{{3, 7}, {3, 8}, {3, 9}}},
		// Only a search that parks in sinks does.
		{"narrow", sinkLevel, false, []cell{{3, 7}, {3, 8}}},
		// With a box starting at the foot of the shaft, the same square
		// is a way out, not a sink.
		{"source", sourceLevel, true, []cell{{3, 7}, {3, 8}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := analyze(t, tt.level)
			r := newReverse(b)
			r.sinks = tt.sinks
			for _, g := range b.Goals {
				r.occ[g] = true
			}
			r.playerRegion()
			lower := b.Goals[0]
			for _, g := range b.Goals {
				if _, y := b.XY(g); y == 6 {
					lower = g
				}
			}
			var got []cell
			for _, q := range r.parkingSquares(lower) {
				x, y := b.XY(q)
				got = append(got, cell{x, y})
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("parking squares (-want +got):\n%s", diff)
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
