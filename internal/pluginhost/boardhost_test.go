package pluginhost

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

func states(boxes int, positions ...[]uint16) sdk.States {
	s := sdk.NewStates(boxes, len(positions))
	for _, p := range positions {
		s.Append(p[0], p[1:])
	}
	return s
}

func TestBoardHostLegalPushes(t *testing.T) {
	h := NewBoardHost(testBoard(t), nil)
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

func TestBoardHostReachable(t *testing.T) {
	h := NewBoardHost(testBoard(t), nil)
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

func TestBoardHostDeadlocked(t *testing.T) {
	h := NewBoardHost(testBoard(t), nil)
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

// TestBoardHostBipartite finds two squares from which a box can reach one
// and the same single goal, and checks that two boxes there are a
// deadlock although neither square is dead.
func TestBoardHostBipartite(t *testing.T) {
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
	if err := NewBoardHost(b, nil).Deadlocked(context.Background(), states(2, []uint16{player, pair[0], pair[1]}), out); err != nil {
		t.Fatal(err)
	}
	if !out[0] {
		t.Errorf("boxes on %v, which can only reach the same goal: not called a deadlock", pair)
	}
}

func TestBoardHostSubSearch(t *testing.T) {
	ctx := context.Background()
	h := NewBoardHost(testBoard(t), nil)
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

func TestBoardHostVerify(t *testing.T) {
	b := testBoard(t)
	r, err := engine.Solve(context.Background(), b, engine.Options{Heuristic: heuristics.Matching(b), Budget: engine.Budget{Memory: 1 << 20}})
	if err != nil || r.Status != engine.Solved {
		t.Fatalf("%v %v", r, err)
	}
	solution := r.Solution.String()
	h := NewBoardHost(b, nil)
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

// TestPlannerThroughBroker runs a planner plugin process that calls back
// into a BoardHost through the go-plugin broker.
func TestPlannerThroughBroker(t *testing.T) {
	h, _ := newHost(t, Options{Dirs: []string{pluginDir(t, "planner")}})
	b := testBoard(t)
	var events []sdk.PlanProgress
	res, err := h.Lookup("planner").Planner().Plan(context.Background(),
		&sdk.PlanRequest{Level: sdk.LevelFromBoard(b), Budget: sdk.Budget{Time: time.Minute}}, NewBoardHost(b, nil),
		func(p sdk.PlanProgress) { events = append(events, p) })
	if err != nil {
		t.Fatal(err)
	}
	if res.Status != sdk.PlanSolved {
		t.Fatalf("%+v", res)
	}
	sol, err := sokoban.ParseSolution(res.Solution)
	if err != nil {
		t.Fatal(err)
	}
	if m, err := sokoban.Replay(b.Level, sol); err != nil || !m.Solved {
		t.Errorf("solution %q: %v, solved %v", res.Solution, err, m.Solved)
	}
	if len(events) != 2 || events[0].Message != "sub-search to the goals" {
		t.Errorf("progress %+v", events)
	}
}

// TestBoardHostSubSearchMemory: a sub-search whose memory budget cannot
// hold its level's tables gives up before computing them; one within
// budget searches.
func TestBoardHostSubSearchMemory(t *testing.T) {
	h := NewBoardHost(testBoard(t), nil)
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
