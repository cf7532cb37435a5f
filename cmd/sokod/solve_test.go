package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/sokod/sokod/internal/solver"
	"github.com/sokod/sokod/sokoban"
)

// Level fixtures of the engine's tests.
const (
	smallLevels      = "../../internal/engine/testdata/small.xsb"
	unsolvableLevels = "../../internal/engine/testdata/unsolvable.xsb"
	benchLevels      = "../../internal/engine/testdata/bench.xsb"
)

func TestSolveExitCodes(t *testing.T) {
	tests := []struct {
		name       string
		args       []string
		wantCode   int
		wantStdout string // a part
		wantStderr string // a part
	}{
		{name: "solved", args: []string{"solve", smallLevels, "--level", "3"}, wantCode: exitOK, wantStdout: "solved level 3 (two boxes)"},
		{name: "solved optimal", args: []string{"solve", smallLevels, "--level", "3", "--objective", "pushes"}, wantCode: exitOK, wantStdout: "push-optimal"},
		{name: "unsolvable", args: []string{"solve", unsolvableLevels, "--level", "1"}, wantCode: exitUnsolvable, wantStdout: "unsolvable: level 1"},
		{name: "gave up", args: []string{"solve", benchLevels, "--objective", "pushes", "--heuristic", "simple", "--nodes", "50", "--planners", "none"}, wantCode: exitGaveUp, wantStdout: "gave up: level 1 (warehouse): node limit"},
		{name: "a planner takes over", args: []string{"solve", benchLevels, "--heuristic", "simple", "--nodes", "50", "--planners", "fess"}, wantCode: exitOK, wantStdout: "not proved optimal, found by planner fess"},
		{name: "no such level", args: []string{"solve", smallLevels, "--level", "99"}, wantCode: exitBadInput, wantStderr: "there is no level 99"},
		{name: "bad file", args: []string{"solve", "testdata/bad.xsb"}, wantCode: exitBadInput},
		{name: "unknown heuristic", args: []string{"solve", smallLevels, "--heuristic", "magic"}, wantCode: exitUsage, wantStderr: `unknown heuristic "magic"`},
		{name: "greedy cannot prove", args: []string{"solve", smallLevels, "--heuristic", "greedy", "--objective", "pushes"}, wantCode: exitUsage, wantStderr: "not admissible"},
		{name: "unknown objective", args: []string{"solve", smallLevels, "--objective", "moves"}, wantCode: exitUsage, wantStderr: "unknown objective"},
		{name: "unknown planner", args: []string{"solve", smallLevels, "--planners", "magic"}, wantCode: exitUsage, wantStderr: `unknown planner "magic"`},
		{name: "no planners", args: []string{"solve", smallLevels, "--level", "3", "--planners", "none"}, wantCode: exitOK, wantStdout: "solved level 3"},
		{name: "search share out of range", args: []string{"solve", smallLevels, "--search-share", "101"}, wantCode: exitUsage, wantStderr: "fallback.search_share"},
		{name: "ida optimal", args: []string{"solve", smallLevels, "--level", "3", "--objective", "pushes", "--strategy", "ida"}, wantCode: exitOK, wantStdout: "push-optimal"},
		{name: "greedy cannot prove by strategy", args: []string{"solve", smallLevels, "--strategy", "greedy", "--objective", "pushes"}, wantCode: exitUsage, wantStderr: "--strategy greedy cannot prove"},
		{name: "unknown strategy", args: []string{"solve", smallLevels, "--strategy", "dfs"}, wantCode: exitUsage, wantStderr: "unknown strategy"},
		{name: "no file", args: []string{"solve"}, wantCode: exitUsage},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := runSokod(t, "", append(tc.args, "--memory", "16MiB")...)
			if r.code != tc.wantCode {
				t.Errorf("exit code %d, want %d\nstdout: %s\nstderr: %s", r.code, tc.wantCode, r.stdout, r.stderr)
			}
			if !strings.Contains(r.stdout, tc.wantStdout) {
				t.Errorf("stdout %q does not contain %q", r.stdout, tc.wantStdout)
			}
			if !strings.Contains(r.stderr, tc.wantStderr) {
				t.Errorf("stderr %q does not contain %q", r.stderr, tc.wantStderr)
			}
		})
	}
}

func TestSolveJSON(t *testing.T) {
	r := runSokod(t, "", "solve", smallLevels, "--level", "7", "--objective", "pushes", "--json", "--memory", "16MiB")
	if r.code != exitOK {
		t.Fatalf("exit code %d, stderr %s", r.code, r.stderr)
	}
	var got solveOutput
	dec := json.NewDecoder(strings.NewReader(r.stdout))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&got); err != nil {
		t.Fatal(err)
	}
	levels, err := sokoban.ParseCollection(mustRead(t, smallLevels))
	if err != nil {
		t.Fatal(err)
	}
	sol, err := sokoban.ParseSolution(got.Solution)
	if err != nil {
		t.Fatal(err)
	}
	m, err := sokoban.Replay(levels.Levels[6], sol)
	if err != nil || !m.Solved {
		t.Fatalf("solution %q does not solve the level: %v", got.Solution, err)
	}
	want := solveOutput{
		File: smallLevels, Level: 7, Title: "three boxes, one already home", Status: "solved",
		Solution: got.Solution, Moves: m.Moves, Pushes: m.Pushes, BoxLines: m.BoxLines, BoxChanges: m.BoxChanges,
		Optimal: true, FoundBy: "matching", Phase: "search", Heuristic: "matching", Objective: "pushes",
		Runs: []solver.Run{{Phase: solver.PhaseSearch, Component: "matching", Status: "solved"}},
	}
	if diff := cmp.Diff(want, got, cmpopts.IgnoreFields(solveOutput{}, "Nodes", "Stored", "Seconds"), cmpopts.IgnoreFields(solver.Run{}, "Nodes")); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if got.Nodes == 0 || got.Stored == 0 {
		t.Errorf("nodes %d, stored %d: want counts", got.Nodes, got.Stored)
	}

	r = runSokod(t, "", "solve", unsolvableLevels, "--json", "--memory", "16MiB")
	if r.code != exitUnsolvable {
		t.Fatalf("exit code %d, want %d", r.code, exitUnsolvable)
	}
	if err := json.Unmarshal([]byte(r.stdout), &got); err != nil {
		t.Fatal(err)
	}
	if got.Status != "unsolvable" || got.Reason == "" || got.Solution != "" {
		t.Errorf("unsolvable level: %+v", got)
	}
}

// TestSolveEvents reads "solve --events" as a program driving sokod does:
// progress lines, then the result line.
func TestSolveEvents(t *testing.T) {
	r := runSokod(t, "", "solve", benchLevels, "--objective", "pushes", "--heuristic", "simple", "--planners", "none", "--time", "1500ms", "--events")
	if r.code != exitOK && r.code != exitGaveUp {
		t.Fatalf("exit code %d\nstderr: %s", r.code, r.stderr)
	}
	lines := strings.Split(strings.TrimSuffix(r.stdout, "\n"), "\n")
	var progress []progressEvent
	for _, line := range lines[:len(lines)-1] {
		var e progressEvent
		if err := json.Unmarshal([]byte(line), &e); err != nil || e.Event != "progress" {
			t.Fatalf("line %q is not a progress event (%v)", line, err)
		}
		progress = append(progress, e)
	}
	if len(progress) == 0 {
		t.Fatalf("no progress event in 1.5 s:\n%s", r.stdout)
	}
	if p := progress[len(progress)-1]; p.Nodes == 0 || p.ElapsedMS == 0 || !strings.Contains(p.Text, "nodes") || p.Component != "simple" {
		t.Errorf("last progress event %+v lacks nodes, time, text or component", p)
	}
	var res resultEvent
	if err := json.Unmarshal([]byte(lines[len(lines)-1]), &res); err != nil || res.Event != "result" {
		t.Fatalf("last line %q is not the result (%v)", lines[len(lines)-1], err)
	}
	if (res.Status == "solved") != (r.code == exitOK) || res.Level != 1 || res.Heuristic != "simple" {
		t.Errorf("result %+v does not agree with exit code %d", res.solveOutput, r.code)
	}
	if r := runSokod(t, "", "solve", smallLevels, "--events", "--json"); r.code != exitUsage {
		t.Errorf("--events with --json: exit code %d, want %d", r.code, exitUsage)
	}
}
