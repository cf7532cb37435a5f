package sokoban_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/sokod/sokod/sokoban"
)

// yascFile is a collection laid out as Sokoban YASC saves one: file notes,
// then each level's title line, board and notes, then its saved games and
// solutions, each a title line, LURD (here over two lines) and notes.
const yascFile = `Collection: Tiny
Author: Me

One
#####
#@$.#
#####
Author: Someone

Solution/Pushes
r
R
Date: 2024-01-02

Snapshot
r

Two
######
#@$ .#
######

Saved by the bell
######
#. $@#
######
Solution (2 moves, 2 pushes)
2L
`

func TestParseSnapshots(t *testing.T) {
	c, err := sokoban.ParseCollection(yascFile)
	if err != nil {
		t.Fatal(err)
	}
	type level struct {
		Title     string
		Notes     []sokoban.Note
		Comment   string
		Snapshots []sokoban.Snapshot
	}
	var got []level
	for _, l := range c.Levels {
		got = append(got, level{l.Title, l.Notes, l.Comment, l.Snapshots})
	}
	want := []level{
		{Title: "One", Notes: []sokoban.Note{{Key: "Author", Value: "Someone"}}, Snapshots: []sokoban.Snapshot{
			{Title: "Solution/Pushes", Moves: "r\nR", Notes: []sokoban.Note{{Key: "Date", Value: "2024-01-02"}}, Line: 10},
			{Title: "Snapshot", Moves: "r", Line: 15},
		}},
		{Title: "Two"},
		{Title: "Saved by the bell", Snapshots: []sokoban.Snapshot{{Title: "Solution (2 moves, 2 pushes)", Moves: "2L", Line: 27}}},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("levels (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]sokoban.Note{{Key: "Collection", Value: "Tiny"}, {Key: "Author", Value: "Me"}}, c.Notes); diff != "" {
		t.Errorf("collection notes (-want +got):\n%s", diff)
	}
	var solutions []bool
	for _, s := range c.Levels[0].Snapshots {
		solutions = append(solutions, s.IsSolution())
	}
	if diff := cmp.Diff([]bool{true, false}, solutions); diff != "" {
		t.Errorf("IsSolution (-want +got):\n%s", diff)
	}
}

// TestSnapshotRunningToTheNextBoard: a snapshot with no blank line after
// it leaves the next board its title.
func TestSnapshotRunningToTheNextBoard(t *testing.T) {
	c, err := sokoban.ParseCollection(tiny + "\nSolution\nrR\nSolver: x\nTwo\n" + tiny)
	if err != nil {
		t.Fatal(err)
	}
	want := []sokoban.Snapshot{{Title: "Solution", Moves: "rR", Notes: []sokoban.Note{{Key: "Solver", Value: "x"}}, Line: 5}}
	if diff := cmp.Diff(want, c.Levels[0].Snapshots); diff != "" {
		t.Errorf("snapshots (-want +got):\n%s", diff)
	}
	if got := c.Levels[1].Title; got != "Two" {
		t.Errorf("second title %q, want Two", got)
	}
}

// TestCollectionTextRoundTrip writes collections with Collection.Text and
// reads them back, titles that could be misread included.
func TestCollectionTextRoundTrip(t *testing.T) {
	yasc, err := sokoban.ParseCollection(yascFile)
	if err != nil {
		t.Fatal(err)
	}
	odd, err := sokoban.ParseCollection("; Header: with a colon\n; plain header\n\n; #1\n" + tiny + "\n; Chapter: one\n" + tiny + "\n; $ .\n" + tiny + "\n" + tiny)
	if err != nil {
		t.Fatal(err)
	}
	if got := []string{odd.Levels[0].Title, odd.Levels[1].Title, odd.Levels[2].Title, odd.Levels[3].Title}; !cmp.Equal(got, []string{"#1", "Chapter: one", "$ .", ""}) {
		t.Fatalf("titles of the odd collection: %q", got)
	}
	for name, c := range map[string]*sokoban.Collection{"yasc": yasc, "odd titles": odd} {
		t.Run(name, func(t *testing.T) {
			text := c.Text()
			back, err := sokoban.ParseCollection(text)
			if err != nil {
				t.Fatalf("written as\n%s\ndoes not parse: %v", text, err)
			}
			opts := cmp.Options{cmp.AllowUnexported(sokoban.Level{}), cmpopts.IgnoreFields(sokoban.Level{}, "Line"), cmpopts.IgnoreFields(sokoban.Snapshot{}, "Line")}
			if diff := cmp.Diff(c, back, opts); diff != "" {
				t.Errorf("collection changed when written as\n%s\n(-want +got):\n%s", text, diff)
			}
		})
	}
}

func TestSolutionTitle(t *testing.T) {
	if got, want := sokoban.SolutionTitle(sokoban.Metrics{Moves: 13, Pushes: 3}), "Solution (13 moves, 3 pushes)"; got != want {
		t.Errorf("SolutionTitle = %q, want %q", got, want)
	}
}

func TestAddSolution(t *testing.T) {
	// The box goes right twice: "RR", or "RlrR" with two moves more.
	const board = "######\n#@$ .#\n######\n"
	tests := []struct {
		name      string
		board     string // "" for board
		stored    string // a snapshot block after the board; "" for none
		add       string
		wantAdded bool
		wantErr   bool
		wantTitle []string // the snapshots' titles afterwards
	}{
		{name: "nothing stored", add: "RR", wantAdded: true, wantTitle: []string{"Solution (2 moves, 2 pushes)"}},
		{name: "as good stored", stored: "Solution\nRR\n", add: "RR", wantTitle: []string{"Solution"}},
		{name: "better stored", stored: "Solution\nRR\n", add: "RlrR", wantTitle: []string{"Solution"}},
		{name: "worse stored", stored: "Solution/Moves\nRlrR\n", add: "RR", wantAdded: true, wantTitle: []string{"Solution/Moves", "Solution (2 moves, 2 pushes)"}},
		{name: "stored one does not solve", stored: "Solution\nR\n", add: "RR", wantAdded: true, wantTitle: []string{"Solution", "Solution (2 moves, 2 pushes)"}},
		{name: "stored one is malformed", stored: "Solution\nR(R\n", add: "RR", wantAdded: true, wantTitle: []string{"Solution", "Solution (2 moves, 2 pushes)"}},
		{name: "a saved game is no solution", stored: "Snapshot\nRR\n", add: "RR", wantAdded: true, wantTitle: []string{"Snapshot", "Solution (2 moves, 2 pushes)"}},
		{name: "new one does not solve", add: "R", wantErr: true},
		{name: "an empty solution of a solved level", board: "####\n#@*#\n####\n", add: ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			src := board
			if tc.board != "" {
				src = tc.board
			}
			if tc.stored != "" {
				src += "\n" + tc.stored
			}
			l, err := sokoban.Parse(src)
			if err != nil {
				t.Fatal(err)
			}
			sol, err := sokoban.ParseSolution(tc.add)
			if err != nil {
				t.Fatal(err)
			}
			added, err := l.AddSolution(sol)
			if (err != nil) != tc.wantErr || added != tc.wantAdded {
				t.Errorf("AddSolution(%s) = %v, %v; want added %v, error %v", tc.add, added, err, tc.wantAdded, tc.wantErr)
			}
			var titles []string
			for _, s := range l.Snapshots {
				titles = append(titles, s.Title)
			}
			if diff := cmp.Diff(tc.wantTitle, titles); diff != "" {
				t.Errorf("snapshot titles (-want +got):\n%s", diff)
			}
		})
	}
}
