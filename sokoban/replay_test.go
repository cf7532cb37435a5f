package sokoban_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/sokod/sokod/sokoban"
)

// Two boxes; the player stands at column 5, row 2 (1-based).
const twoBoxes = `#######
#.$ @ #
#  $  #
#   . #
#######
`

// One box pushed right twice, then down after a walk round it.
const turnBox = `######
#    #
#@$  #
#   .#
######
`

func mustParse(t *testing.T, src string) *sokoban.Level {
	t.Helper()
	l, err := sokoban.Parse(src)
	if err != nil {
		t.Fatalf("Parse: %v", err)
	}
	return l
}

func TestReplayMetrics(t *testing.T) {
	// Every expectation below is counted by hand; the comments show how.
	tests := []struct {
		name, level, sol string
		want             sokoban.Metrics
	}{
		{
			// l L | d R | u r D: three sessions; boxes A, B, B (same box, new
			// direction); directions l l d r u r d give six player lines.
			name: "two boxes", level: twoBoxes, sol: "lLdRurD",
			want: sokoban.Metrics{Moves: 7, Pushes: 3, BoxLines: 3, BoxChanges: 2, PushingSessions: 3, PlayerLines: 6, Solved: true},
		},
		{
			// RR is one session and one box line; D turns the same box: a new
			// line, no box change. Directions r r u r d: four player lines.
			name: "one box turned", level: turnBox, sol: "RRurD",
			want: sokoban.Metrics{Moves: 5, Pushes: 3, BoxLines: 2, BoxChanges: 1, PushingSessions: 2, PlayerLines: 4, Solved: true},
		},
		{
			name: "legal but not solved", level: turnBox, sol: "R",
			want: sokoban.Metrics{Moves: 1, Pushes: 1, BoxLines: 1, BoxChanges: 1, PushingSessions: 1, PlayerLines: 1},
		},
		{
			name: "moves only", level: turnBox, sol: "urld",
			want: sokoban.Metrics{Moves: 4, PlayerLines: 4},
		},
		{
			name: "empty solution", level: turnBox, sol: "",
			want: sokoban.Metrics{},
		},
		{
			name: "run-length and white space", level: turnBox, sol: " 2R\n u r\r\nD ",
			want: sokoban.Metrics{Moves: 5, Pushes: 3, BoxLines: 2, BoxChanges: 1, PushingSessions: 2, PlayerLines: 4, Solved: true},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			sol, err := sokoban.ParseSolution(tc.sol)
			if err != nil {
				t.Fatalf("ParseSolution(%q): %v", tc.sol, err)
			}
			got, err := sokoban.Replay(mustParse(t, tc.level), sol)
			if err != nil {
				t.Fatalf("Replay: %v", err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("metrics (-want +got):\n%s", diff)
			}
		})
	}
}

func TestReplayIllegalStep(t *testing.T) {
	tests := []struct {
		name, level, sol string
		want             sokoban.StepError
		before           sokoban.Metrics // metrics of the steps before the failure
	}{
		{
			name: "walk into wall", level: twoBoxes, sol: "u",
			want: sokoban.StepError{Index: 1, Step: sokoban.Step{Dir: sokoban.Up}, Kind: sokoban.StepIntoWall, X: 4, Y: 1},
		},
		{
			name: "box into wall", level: twoBoxes, sol: "lLL",
			want:   sokoban.StepError{Index: 3, Step: sokoban.Step{Dir: sokoban.Left, Push: true}, Kind: sokoban.BoxBlocked, X: 2, Y: 1},
			before: sokoban.Metrics{Moves: 2, Pushes: 1, BoxLines: 1, BoxChanges: 1, PushingSessions: 1, PlayerLines: 1, Solved: false},
		},
		{
			name: "box into box", level: "#######\n#@$$..#\n#######\n", sol: "R",
			want: sokoban.StepError{Index: 1, Step: sokoban.Step{Dir: sokoban.Right, Push: true}, Kind: sokoban.BoxBlocked, X: 1, Y: 1},
		},
		{
			name: "push written as move", level: twoBoxes, sol: "ll",
			want:   sokoban.StepError{Index: 2, Step: sokoban.Step{Dir: sokoban.Left}, Kind: sokoban.PushWrittenAsMove, X: 3, Y: 1},
			before: sokoban.Metrics{Moves: 1, PlayerLines: 1},
		},
		{
			name: "move written as push", level: twoBoxes, sol: "L",
			want: sokoban.StepError{Index: 1, Step: sokoban.Step{Dir: sokoban.Left, Push: true}, Kind: sokoban.MoveWrittenAsPush, X: 4, Y: 1},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			sol, err := sokoban.ParseSolution(tc.sol)
			if err != nil {
				t.Fatal(err)
			}
			m, err := sokoban.Replay(mustParse(t, tc.level), sol)
			var se *sokoban.StepError
			if !errors.As(err, &se) {
				t.Fatalf("Replay error = %v, want a *StepError", err)
			}
			if diff := cmp.Diff(tc.want, *se); diff != "" {
				t.Errorf("step error (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.before, m); diff != "" {
				t.Errorf("metrics before the failure (-want +got):\n%s", diff)
			}
			if !strings.Contains(err.Error(), "step ") {
				t.Errorf("message %q does not name the step", err)
			}
		})
	}
}

func TestParseSolution(t *testing.T) {
	tests := []struct {
		in, want string
	}{
		{"lurdLURD", "lurdLURD"},
		{"l u\nr\r\nd\t", "lurd"},
		{"3r", "rrr"},
		{"2(uL)", "uLuL"},
		{"2(r2(dU))l", "rdUdUrdUdUl"},
		{"10 R", "RRRRRRRRRR"},
		{"", ""},
		{"()", ""},
	}
	for _, tc := range tests {
		got, err := sokoban.ParseSolution(tc.in)
		if err != nil {
			t.Errorf("ParseSolution(%q): %v", tc.in, err)
			continue
		}
		if got.String() != tc.want {
			t.Errorf("ParseSolution(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
	for _, bad := range []struct {
		in     string
		offset int
	}{
		{"lux", 2},
		{"(lu", 3},
		{"lu)", 2},
		{"3", 1},
		{"2(l3)", 4},
		{"99999999999r", 0},
		{"9999999(9999999(r))", 0},
		{"r 9999999(9999999(r))", 2},
	} {
		_, err := sokoban.ParseSolution(bad.in)
		var se *sokoban.SolutionError
		if !errors.As(err, &se) {
			t.Errorf("ParseSolution(%q) error = %v, want a *SolutionError", bad.in, err)
			continue
		}
		if se.Offset != bad.offset {
			t.Errorf("ParseSolution(%q) error at offset %d, want %d (%v)", bad.in, se.Offset, bad.offset, err)
		}
	}
}
