package macro

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/sokod/sokod/board"
	"github.com/sokod/sokod/sokoban"
)

// The test level, numbered:
//
//	#######
//	#@ $ .#   squares 0..4: player 0, box 2, goal 4
//	# $ . #   squares 5..9: box 6, goal 8
//	#######
const testLevel = "#######\n#@ $ .#\n# $ . #\n#######\n"

func testBoard(t testing.TB) *board.Board { return boardOf(t, testLevel) }

// boardOf parses and analyses a one-level text.
func boardOf(t testing.TB, text string) *board.Board {
	t.Helper()
	l, err := sokoban.Parse(text)
	if err != nil {
		t.Fatal(err)
	}
	b, err := board.Analyze(l)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestGenerate(t *testing.T) {
	b := testBoard(t)
	g := NewGen(b)
	pos := NewPos(b)
	pos.Set(b.StartBoxes, b.StartPlayer)
	type mv struct {
		Box            int16
		From, To, Norm uint16
	}
	var got []mv
	for _, m := range g.Generate(pos, nil) {
		got = append(got, mv{m.Box, m.From, m.To, m.Norm})
		pos.Apply(&m)
		if want := Hash(b, pos.Boxes, m.Norm); m.Hash != want {
			t.Errorf("move %+v: hash %x, want %x", m, m.Hash, want)
		}
		pos.Undo(&m, b.StartPlayer)
	}
	// Box 0 (square 2) goes right to 3 and 4, and, once the player has
	// walked round it, back to 2 with the player shut in on the right
	// (region {3, 4, 7, 8, 9}) and on to 1 with the player on 2. Box 1
	// (square 6) goes right to 7 and 8, never left into the dead corner
	// 5.
	want := []mv{
		{0, 2, 3, 0}, {0, 2, 2, 3}, {0, 2, 4, 0}, {0, 2, 1, 2},
		{1, 6, 7, 0}, {1, 6, 8, 0},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Generate (-want +got):\n%s", diff)
	}
}

func TestSolutionReplays(t *testing.T) {
	b := testBoard(t)
	g := NewGen(b)
	pos := NewPos(b)
	pos.Set(b.StartBoxes, b.StartPlayer)
	norm := g.Flood(pos, b.StartPlayer)
	s := NewStore(len(b.StartBoxes), 100)
	id := s.Add(-1, nil, Hash(b, pos.Boxes, norm), pos.Boxes, norm)
	pos.Player = norm
	// Take each box to its goal: box 0 to 4, then box 1 to 8.
	for _, target := range []struct {
		box int16
		to  uint16
	}{{0, 4}, {1, 8}} {
		var found *Move
		for _, m := range g.Generate(pos, nil) {
			if m.Box == target.box && m.To == target.to {
				found = &m
				break
			}
		}
		if found == nil {
			t.Fatalf("no move of box %d to %d", target.box, target.to)
		}
		pos.Apply(found)
		id = s.Add(id, found, found.Hash, pos.Boxes, found.Norm)
	}
	sol, err := g.Solution(s, id)
	if err != nil {
		t.Fatal(err)
	}
	m, err := sokoban.Replay(b.Level, sol)
	if err != nil || !m.Solved || m.Pushes != 4 {
		t.Errorf("solution %s: %v, solved %v, %d pushes, want solved with 4", sol, err, m.Solved, m.Pushes)
	}
}

// TestGenerateAllocs checks that generating moves allocates nothing once
// the generator's buffers have grown.
func TestGenerateAllocs(t *testing.T) {
	b := testBoard(t)
	g := NewGen(b)
	pos := NewPos(b)
	pos.Set(b.StartBoxes, b.StartPlayer)
	g.Generate(pos, nil)
	if n := testing.AllocsPerRun(100, func() {
		g.Generate(pos, nil)
		g.Matchable(pos)
		g.Regions(pos)
	}); n != 0 {
		t.Errorf("%v allocations per call, want 0", n)
	}
}

func TestCorralDeadlock(t *testing.T) {
	tests := []struct {
		name, level string
		want        bool
	}{
		// The goals behind the two boxes: pushing either box up closes
		// the row for good, and the player never gets in.
		{"sealed", "#####\n#. .#\n#$$##\n#  @#\n#####\n", true},
		// The same with a way round on the right: no corral at all.
		{"open", "######\n#. . #\n#$$  #\n#  @ #\n######\n", false},
		// A corral the player gets into by pushing the middle box up
		// twice.
		{"opens", "######\n#.  .#\n#.   #\n#$$$##\n#  @ #\n######\n", false},
		// A goal in a dead-end pocket, fenced by the one box that fills
		// it: pushing the box in settles the corral though the player
		// never gets in.
		{"filled pocket", "######\n#.$ @#\n######\n", false},
		// The box over the pocket could go right if the player stood on
		// its left, where the box on its goal will stay: the test has to
		// keep that box, though it is not next to the pocket.
		{"fence held by its neighbour", "########\n#.     #\n#  @   #\n#*$    #\n## #  ##\n## #####\n########\n", true},
		// Without the neighbour the player pushes the box right and gets in.
		{"fence free", "########\n#.     #\n#  @   #\n# $    #\n## #  ##\n## #####\n########\n", false},
		// The player steps into the corral behind the left box, but that
		// box, pushed in, keeps it from the pocket above the other two.
		{"pushed in, still shut", "#########\n#####   #\n#@ $ .$$#\n######..#\n#########\n", true},
		// The same with a way up to the pocket from the square behind.
		{"pushed in, open", "#########\n####    #\n#@ $ .$$#\n######..#\n#########\n", false},
		// The goal on the left gets a box only from the player on the
		// square right of the box beside it. The box right of that square
		// moves only into it, and no box is frozen: the goal is shut.
		{"goal shut", "#########\n####    #\n#.*.$ $@#\n#########\n", true},
		// The same with a way down to that square.
		{"goal open", "#########\n###     #\n#.*.$ $@#\n#########\n", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := boardOf(t, tt.level)
			g := NewGen(b)
			pos := NewPos(b)
			pos.Set(b.StartBoxes, b.StartPlayer)
			if got := g.CorralDeadlock(pos); got != tt.want {
				t.Errorf("CorralDeadlock = %v, want %v", got, tt.want)
			}
		})
	}
}

// TestMatchable checks the bipartite test's two refinements: it sees which
// side of a box the player is on, and it treats boxes frozen on goals as
// walls.
func TestMatchable(t *testing.T) {
	tests := []struct {
		name, level string
		want        bool
	}{
		// The player is right of the box under the tunnel: it can push the
		// box left, never down, and never get round to the room above.
		{"wrong side", "########\n###  ###\n#### ###\n#   $ @#\n#### ###\n####.###\n########\n", false},
		// The same box with the player in the room above.
		{"above", "########\n### @###\n#### ###\n#   $  #\n#### ###\n####.###\n########\n", true},
		// The two boxes on goals along the top wall hold each other: they
		// never move, and the goal left of them is walled in.
		{"frozen goals wall a goal in", "########\n#.**  @#\n##  #$ #\n#      #\n########\n", false},
		// The same frozen pair with the empty goal in the open.
		{"frozen goals aside", "########\n# **  @#\n##  #$ #\n#.     #\n########\n", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := boardOf(t, tt.level)
			pos := NewPos(b)
			pos.Set(b.StartBoxes, b.StartPlayer)
			if got := NewGen(b).Matchable(pos); got != tt.want {
				t.Errorf("Matchable = %v, want %v", got, tt.want)
			}
		})
	}
}
