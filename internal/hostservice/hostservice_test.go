package hostservice

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/sokod/sokod/board"
	"github.com/sokod/sokod/internal/engine"
	"github.com/sokod/sokod/internal/heuristics"
	"github.com/sokod/sokod/sdk"
	"github.com/sokod/sokod/sokoban"
)

// The test level, testBoard, numbered:
//
//	#######
//	#@ $ .#   squares 0..4: player 0, box 2, goal 4
//	# $ . #   squares 5..9: box 6, goal 8
//	#######

// testBoard is the test level, analysed.
func testBoard(t testing.TB) *board.Board {
	t.Helper()
	l, err := sokoban.Parse("#######\n#@ $ .#\n# $ . #\n#######\n")
	if err != nil {
		t.Fatal(err)
	}
	b, err := board.Analyze(l)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func states(boxes int, positions ...[]uint16) sdk.States {
	s := sdk.NewStates(boxes, len(positions))
	for _, p := range positions {
		s.Append(p[0], p[1:])
	}
	return s
}

func TestServiceLegalPushes(t *testing.T) {
	h := New(testBoard(t), nil)
	got, err := h.LegalPushes(context.Background(), states(2, []uint16{0, 2, 6}, []uint16{9, 3, 8}))
	if err != nil {
		t.Fatal(err)
	}
	want := &sdk.PushList{
		// From the start the player reaches 0, 1 and 5: box 2 goes right
		// (from 1), box 6 goes right (from 5). With boxes on 3 and 8 and the
		// player on 9, the player reaches 4, 9 and nothing beyond the boxes:
		// box 3 goes left (from 4), box 8 goes left (from 9).
		Counts:  []int{2, 2},
		Pushes:  []sdk.Push{{Box: 2, Dir: sokoban.Right}, {Box: 6, Dir: sokoban.Right}, {Box: 3, Dir: sokoban.Left}, {Box: 8, Dir: sokoban.Left}},
		Results: states(2, []uint16{0, 3, 6}, []uint16{0, 2, 7}, []uint16{3, 2, 8}, []uint16{4, 3, 7}),
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("LegalPushes (-want +got):\n%s", diff)
	}
}

func TestServiceReachable(t *testing.T) {
	h := New(testBoard(t), nil)
	got, err := h.Reachable(context.Background(), states(2, []uint16{0, 2, 6}, []uint16{4, 1, 6}))
	if err != nil {
		t.Fatal(err)
	}
	// {0, 1, 5}, then everything but 0, 1, 5, 6 (cut off by the boxes on
	// 1 and 6) and the boxes themselves: {2, 3, 4, 7, 8, 9}.
	want := sdk.SquareSets{Squares: 10, Bits: []byte{0b0010_0011, 0, 0b1001_1100, 0b11}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Reachable (-want +got):\n%s", diff)
	}
}

func TestServiceDeadlocked(t *testing.T) {
	h := New(testBoard(t), nil)
	in := states(2,
		[]uint16{0, 2, 6}, // the start
		[]uint16{1, 0, 6}, // a box in the corner on square 0
		[]uint16{0, 4, 8}, // solved
	)
	out := make([]bool, in.Len())
	if err := h.Deadlocked(context.Background(), in, out); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]bool{false, true, false}, out); diff != "" {
		t.Errorf("Deadlocked (-want +got):\n%s", diff)
	}
}

// TestServiceFreeze checks that a block of boxes that can never move
// again, off the goals, is a deadlock, though no box stands on a dead
// square, and that the same boxes apart are not.
func TestServiceFreeze(t *testing.T) {
	l, err := sokoban.Parse("#######\n#@    #\n# $$  #\n# $$  #\n#  .. #\n#  .. #\n#######\n")
	if err != nil {
		t.Fatal(err)
	}
	b, err := board.Analyze(l)
	if err != nil {
		t.Fatal(err)
	}
	sq := func(x, y int) uint16 { return uint16(b.SquareOf[y*b.Width+x]) }
	in := states(4,
		[]uint16{sq(1, 1), sq(2, 2), sq(3, 2), sq(2, 3), sq(3, 3)}, // a 2x2 block
		[]uint16{sq(1, 1), sq(2, 2), sq(4, 2), sq(2, 3), sq(4, 3)}, // apart
	)
	for _, x := range b.StartBoxes {
		if b.Dead[x] {
			t.Fatalf("square %d is dead: the test wants live squares", x)
		}
	}
	out := make([]bool, in.Len())
	if err := New(b, nil).Deadlocked(context.Background(), in, out); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]bool{true, false}, out); diff != "" {
		t.Errorf("Deadlocked (-want +got):\n%s", diff)
	}
}

// TestServiceBipartite finds two squares from which a box can reach one
// and the same single goal, and checks that two boxes there are a
// deadlock although neither square is dead.
func TestServiceBipartite(t *testing.T) {
	// A box against the top wall moves only along it, so the squares of
	// the top row reach the top-left goal and no other.
	l, err := sokoban.Parse("########\n#.     #\n# $$   #\n#   .  #\n#@     #\n########\n")
	if err != nil {
		t.Fatal(err)
	}
	b, err := board.Analyze(l)
	if err != nil {
		t.Fatal(err)
	}
	g := len(b.Goals)
	only := map[int][]uint16{} // goal -> squares whose only reachable goal it is
	for sq := range b.Squares {
		n, last := 0, -1
		for j := range g {
			if b.Dist[sq*g+j] != engine.Inf {
				n, last = n+1, j
			}
		}
		if n == 1 && b.GoalIndex[sq] < 0 {
			only[last] = append(only[last], uint16(sq))
		}
	}
	var pair []uint16
	for _, sqs := range only {
		if len(sqs) >= 2 {
			pair = sqs[:2]
		}
	}
	if pair == nil {
		t.Fatalf("no two squares share a single reachable goal: %v", only)
	}
	player := uint16(0)
	for player == pair[0] || player == pair[1] {
		player++
	}
	out := make([]bool, 1)
	if err := New(b, nil).Deadlocked(context.Background(), states(2, []uint16{player, pair[0], pair[1]}), out); err != nil {
		t.Fatal(err)
	}
	if !out[0] {
		t.Errorf("boxes on %v, which can only reach the same goal: not called a deadlock", pair)
	}
}

func TestServiceSubSearch(t *testing.T) {
	ctx := context.Background()
	h := New(testBoard(t), nil)
	start := states(2, []uint16{0, 2, 6})

	res, err := h.SubSearch(ctx, start, sdk.SubGoal{Targets: []int{8, 4}}, sdk.Budget{Time: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	if res.Status != sdk.SubGoalReached || res.End.Len() != 1 {
		t.Fatalf("status %v, end %v", res.Status, res.End)
	}
	v, err := h.Verify(ctx, res.Moves)
	if err != nil {
		t.Fatal(err)
	}
	if !v.Solved || v.Pushes != len(res.Pushes) {
		t.Errorf("moves %q: %+v, with %d pushes reported", res.Moves, v, len(res.Pushes))
	}
	end := res.End.BoxSquares(0)
	if !(end[0] == 4 && end[1] == 8) && !(end[0] == 8 && end[1] == 4) {
		t.Errorf("end boxes %v, want 4 and 8", end)
	}

	tests := []struct {
		name string
		goal sdk.SubGoal
		want error
	}{
		{"one target for two boxes", sdk.SubGoal{Targets: []int{4}}, sdk.ErrUnsupported},
		{"the same target twice", sdk.SubGoal{Targets: []int{4, 4}}, sdk.ErrUnsupported},
		{"region limits", sdk.SubGoal{Targets: []int{4, 8}, Regions: []sdk.RegionLimit{{Squares: []int{3}, Bound: sdk.AtMost, Boxes: 0}}}, sdk.ErrUnsupported},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := h.SubSearch(ctx, start, tt.goal, sdk.Budget{}); !errors.Is(err, tt.want) {
				t.Errorf("got %v, want %v", err, tt.want)
			}
		})
	}
}

func TestServiceVerify(t *testing.T) {
	b := testBoard(t)
	r, err := engine.Solve(context.Background(), b, engine.Options{Heuristic: heuristics.Matching(b), Budget: engine.Budget{Memory: 1 << 20}})
	if err != nil || r.Status != engine.Solved {
		t.Fatalf("%v %v", r, err)
	}
	solution := r.Solution.String()
	h := New(b, nil)
	tests := []struct {
		name     string
		solution string
		want     sdk.Verification
	}{
		{"solution", solution, sdk.Verification{Solved: true, Moves: r.Metrics.Moves, Pushes: r.Metrics.Pushes, BoxLines: r.Metrics.BoxLines, BoxChanges: r.Metrics.BoxChanges}},
		{"legal but unsolved", "d", sdk.Verification{Error: "every step is legal but the level is not solved at the end", Moves: 1}},
		{"into a wall", "l", sdk.Verification{Error: "step 1 'l' left from column 2, row 2: the player walks into a wall"}},
		{"not LURD", "x", sdk.Verification{Error: "x"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v, err := h.Verify(context.Background(), tt.solution)
			if err != nil {
				t.Fatal(err)
			}
			// Error texts come from the sokoban package; compare their
			// presence, and the exact text where this package writes it.
			if tt.want.Error != "" && v.Error == "" || tt.want.Error == "" && v.Error != "" {
				t.Errorf("error %q, want one like %q", v.Error, tt.want.Error)
			}
			got := *v
			got.Error, tt.want.Error = "", ""
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Verify (-want +got):\n%s", diff)
			}
		})
	}
}

// TestServiceSubSearchMemory: a sub-search whose memory budget cannot
// hold its level's tables gives up before computing them; one within
// budget searches.
func TestServiceSubSearchMemory(t *testing.T) {
	h := New(testBoard(t), nil)
	start := states(2, []uint16{0, 2, 6})
	for _, tt := range []struct {
		memory   uint64
		searched bool
	}{{1 << 20, false}, {16 << 20, true}} {
		res, err := h.SubSearch(context.Background(), start, sdk.SubGoal{Targets: []int{8, 4}}, sdk.Budget{Time: time.Minute, MemoryBytes: tt.memory})
		if err != nil {
			t.Fatal(err)
		}
		if got := res.Status == sdk.SubGoalReached && res.Nodes > 0; got != tt.searched {
			t.Errorf("memory %d MiB: %v after %d nodes, want searched %v", tt.memory>>20, res.Status, res.Nodes, tt.searched)
		}
	}
}
