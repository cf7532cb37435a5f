package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/sokod/sokod/sokoban"
)

// storedLevels holds levels with stored solutions: One a valid one, Two
// one that does not solve it, a malformed one and a saved game, Three
// none, Four none with its box already on its goal.
const storedLevels = "testdata/stored.sok"

func TestLevelsStoredSolutions(t *testing.T) {
	r := runSokod(t, "", "levels", storedLevels, "--json")
	if r.code != exitOK {
		t.Fatalf("exit code %d: %s", r.code, r.stderr)
	}
	var got levelsOutput
	if err := json.Unmarshal([]byte(r.stdout), &got); err != nil {
		t.Fatalf("output is not JSON: %v\n%s", err, r.stdout)
	}
	want := levelsOutput{File: storedLevels, Levels: []levelInfo{
		{Index: 1, Title: "One", Width: 6, Height: 3, Boxes: 1, Solutions: 1, SolvedInFile: true},
		{Index: 2, Title: "Two", Width: 6, Height: 3, Boxes: 1, Solutions: 2},
		{Index: 3, Title: "Three", Width: 5, Height: 3, Boxes: 1},
		{Index: 4, Title: "Four", Width: 4, Height: 3, Boxes: 1, Solved: true},
	}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("JSON (-want +got):\n%s", diff)
	}
	r = runSokod(t, "", "levels", storedLevels)
	for _, s := range []string{"One (solved in the file)\n", "Two (stored solutions do not solve it)\n", "Three\n", "Four (boxes already on goals)\n"} {
		if !strings.Contains(r.stdout, s) {
			t.Errorf("levels does not say %q:\n%s", s, r.stdout)
		}
	}
}

func TestVerifyStored(t *testing.T) {
	tests := []struct {
		name       string
		args       []string
		wantCode   int
		wantStdout string
	}{
		{
			name: "every stored solution", args: []string{"verify", storedLevels}, wantCode: exitInvalid,
			wantStdout: "valid: the stored solution \"Solution\" solves level 1 (One)\n" +
				"moves 2  pushes 2  box lines 1  box changes 1  pushing sessions 1  player lines 1\n" +
				"invalid: level 2 (Two), stored solution \"Solution (1 moves, 1 pushes)\": every step is legal but the level is not solved at the end\n" +
				"moves 1  pushes 1  box lines 1  box changes 1  pushing sessions 1  player lines 1\n" +
				"invalid: level 2 (Two), stored solution \"Solution/Moves\": solution text, byte 4: '(' without a matching ')'\n" +
				"moves 0  pushes 0  box lines 0  box changes 0  pushing sessions 0  player lines 0\n" +
				"3 stored solution(s): 1 valid, 2 invalid\n",
		},
		{name: "one level's", args: []string{"verify", storedLevels, "--level", "1"}, wantCode: exitOK},
		{name: "a level without", args: []string{"verify", storedLevels, "--level", "3"}, wantCode: exitBadInput},
		{name: "no such level", args: []string{"verify", storedLevels, "--level", "9"}, wantCode: exitBadInput},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := runSokod(t, "", tc.args...)
			if r.code != tc.wantCode {
				t.Errorf("exit code %d, want %d\nstdout: %s\nstderr: %s", r.code, tc.wantCode, r.stdout, r.stderr)
			}
			if tc.wantStdout != "" {
				if diff := cmp.Diff(tc.wantStdout, r.stdout); diff != "" {
					t.Errorf("stdout (-want +got):\n%s", diff)
				}
			}
		})
	}
	r := runSokod(t, "", "verify", storedLevels, "--json")
	var got storedOutput
	if err := json.Unmarshal([]byte(r.stdout), &got); err != nil {
		t.Fatalf("output is not JSON: %v\n%s", err, r.stdout)
	}
	var kinds []string
	for _, s := range got.Solutions {
		kind := "valid"
		if s.Error != nil {
			kind = s.Error.Kind
		} else if !s.Valid {
			kind = "unsolved"
		}
		kinds = append(kinds, s.Snapshot+": "+kind)
	}
	want := []string{"Solution: valid", "Solution (1 moves, 1 pushes): unsolved", "Solution/Moves: malformed"}
	if diff := cmp.Diff(want, kinds); diff != "" || got.Valid != 1 || got.Invalid != 2 {
		t.Errorf("valid %d, invalid %d, solutions (-want +got):\n%s", got.Valid, got.Invalid, diff)
	}
}

// TestBenchSok writes the solutions bench finds into a SOK collection and
// reads them back; a second run over that file in place adds nothing.
func TestBenchSok(t *testing.T) {
	out := filepath.Join(t.TempDir(), "out.sok")
	r := runSokod(t, "", "bench", storedLevels, "--sok", out, "--memory", "16MiB")
	if r.code != exitOK {
		t.Fatalf("exit code %d\nstdout %s\nstderr %s", r.code, r.stdout, r.stderr)
	}
	if !strings.Contains(r.stdout, "wrote "+out+": 2 solution(s) added\n") {
		t.Errorf("bench does not say it added 2 solutions:\n%s", r.stdout)
	}
	first := mustRead(t, out)
	c, err := sokoban.ParseCollection(first)
	if err != nil {
		t.Fatalf("bench wrote a collection that does not parse: %v\n%s", err, first)
	}
	var titles [][]string
	for _, l := range c.Levels {
		var ts []string
		for _, s := range l.Snapshots {
			ts = append(ts, s.Title)
		}
		titles = append(titles, ts)
	}
	// One keeps its stored solution, as good as any; Two keeps what it
	// had and gains one; Three gains one; Four has nothing to solve.
	want := [][]string{
		{"Solution"},
		{"Solution (1 moves, 1 pushes)", "Solution/Moves", "Snapshot", "Solution (2 moves, 2 pushes)"},
		{"Solution (1 moves, 1 pushes)"},
		nil,
	}
	if diff := cmp.Diff(want, titles); diff != "" {
		t.Errorf("snapshot titles (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]sokoban.Note{{Key: "Collection", Value: "stored solutions"}}, c.Notes); diff != "" {
		t.Errorf("collection notes (-want +got):\n%s", diff)
	}
	for i, l := range c.Levels[1:3] {
		if !l.SolvedInFile() {
			t.Errorf("level %d is not solved in the file written", i+2)
		}
	}

	r = runSokod(t, "", "bench", out, "--sok", out, "--memory", "16MiB")
	if r.code != exitOK || !strings.Contains(r.stdout, ": 0 solution(s) added\n") {
		t.Errorf("second run: exit code %d\nstdout %s\nstderr %s", r.code, r.stdout, r.stderr)
	}
	if diff := cmp.Diff(first, mustRead(t, out)); diff != "" {
		t.Errorf("the second run changed the file (-first +second):\n%s", diff)
	}
	if r := runSokod(t, "", "bench", storedLevels, smallLevels, "--sok", out); r.code != exitUsage {
		t.Errorf("--sok with two files: exit code %d, want %d", r.code, exitUsage)
	}
	entries, err := os.ReadDir(filepath.Dir(out))
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 1 {
		t.Errorf("the directory holds %d files, want out.sok alone: %v", len(entries), entries)
	}
}
