package main

import (
	"bufio"
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/sokod/sokod/sokoban"
)

func mustRead(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestBenchJSON(t *testing.T) {
	r := runSokod(t, "", "bench", smallLevels, unsolvableLevels, "--objective", "pushes", "--jobs", "2", "--json", "--memory", "16MiB")
	if r.code != exitOK {
		t.Fatalf("exit code %d\nstdout %s\nstderr %s", r.code, r.stdout, r.stderr)
	}
	var levels []benchLevel
	var sum benchSummary
	sc := bufio.NewScanner(strings.NewReader(r.stdout))
	for sc.Scan() {
		var kind struct{ Kind string }
		if err := json.Unmarshal(sc.Bytes(), &kind); err != nil {
			t.Fatalf("line %q: %v", sc.Text(), err)
		}
		switch kind.Kind {
		case "level":
			var l benchLevel
			if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
				t.Fatal(err)
			}
			levels = append(levels, l)
		case "summary":
			if err := json.Unmarshal(sc.Bytes(), &sum); err != nil {
				t.Fatal(err)
			}
		default:
			t.Fatalf("line of unknown kind: %s", sc.Text())
		}
	}
	if len(levels) != 12+4 {
		t.Fatalf("%d level lines, want 16", len(levels))
	}
	small, err := sokoban.ParseCollection(mustRead(t, smallLevels))
	if err != nil {
		t.Fatal(err)
	}
	// In order, files then levels.
	for i, l := range levels {
		wantFile, wantLevel := smallLevels, i+1
		if i >= 12 {
			wantFile, wantLevel = unsolvableLevels, i-11
		}
		if l.File != wantFile || l.Level != wantLevel {
			t.Errorf("line %d is %s level %d, want %s level %d", i+1, l.File, l.Level, wantFile, wantLevel)
		}
		if wantFile == smallLevels && (l.Status != "solved" || !l.Optimal || l.Pushes == 0) {
			t.Errorf("%s level %d: %+v, want solved optimally", l.File, l.Level, l)
		}
		if wantFile == smallLevels {
			// The line carries the solution: it replays to the pushes and moves given.
			sol, err := sokoban.ParseSolution(l.Solution)
			if err != nil {
				t.Fatalf("%s level %d: solution %q: %v", l.File, l.Level, l.Solution, err)
			}
			m, err := sokoban.Replay(small.Levels[i], sol)
			if err != nil || !m.Solved || m.Pushes != l.Pushes || m.Moves != l.Moves {
				t.Errorf("%s level %d: solution %q replays to %+v, %v; the line says %d pushes, %d moves", l.File, l.Level, l.Solution, m, err, l.Pushes, l.Moves)
			}
		}
		if wantFile == unsolvableLevels && l.Status != "unsolvable" {
			t.Errorf("%s level %d: %+v, want unsolvable", l.File, l.Level, l)
		}
	}
	want := benchSummary{Kind: "summary", Levels: 16, Solved: 12, Optimal: 12, Unsolvable: 4, Objective: "pushes", Heuristic: "matching", TimePerLevel: 60, Jobs: 2}
	if diff := cmp.Diff(want, sum, cmpopts.IgnoreFields(benchSummary{}, "Nodes", "Seconds", "NodesPerSecond", "PeakMemory")); diff != "" {
		t.Errorf("summary (-want +got):\n%s", diff)
	}
}

func TestBenchText(t *testing.T) {
	r := runSokod(t, "", "bench", smallLevels, "--memory", "16MiB", "--time", "10s")
	if r.code != exitOK {
		t.Fatalf("exit code %d\nstderr %s", r.code, r.stderr)
	}
	lines := strings.Split(strings.TrimSpace(r.stdout), "\n")
	if len(lines) != 1+12+2 {
		t.Fatalf("%d lines, want header, 12 levels and 2 total lines:\n%s", len(lines), r.stdout)
	}
	if !strings.HasPrefix(lines[0], "level ") || !strings.HasPrefix(lines[1], "small.xsb:1 ") {
		t.Errorf("unexpected table start:\n%s", r.stdout)
	}
	if !strings.HasPrefix(lines[13], "total: 12 levels, 12 solved") {
		t.Errorf("totals line %q", lines[13])
	}
}

func TestBenchBadInput(t *testing.T) {
	r := runSokod(t, "", "bench", smallLevels, "testdata/bad.xsb")
	if r.code != exitBadInput {
		t.Errorf("exit code %d, want %d", r.code, exitBadInput)
	}
	r = runSokod(t, "", "bench", smallLevels, "--jobs", "0")
	if r.code != exitUsage {
		t.Errorf("exit code %d, want %d", r.code, exitUsage)
	}
}
