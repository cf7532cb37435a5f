package main

import (
	"encoding/json"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/sokod/sokod/internal/planners"
)

func TestPluginsListBuiltins(t *testing.T) {
	r := runSokod(t, "", "plugins", "list")
	if r.code != exitOK {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	// Columns are aligned to the longest name, so compare fields.
	want := [][]string{
		{"NAME", "KIND", "VERSION", "STATE", "SOURCE", "CAPABILITIES"},
		{"greedy", "heuristic", "-", "ready", "built-in", "heuristic-tables"},
		{"matching", "heuristic", "-", "ready", "built-in", "heuristic-tables,admissible"},
		{"simple", "heuristic", "-", "ready", "built-in", "heuristic-tables,admissible"},
	}
	for _, p := range planners.All() {
		want = append(want, []string{p.Name, "planner", "-", "ready", "built-in", "-"})
	}
	var got [][]string
	for _, line := range strings.Split(strings.TrimSuffix(r.stdout, "\n"), "\n") {
		got = append(got, strings.Fields(line))
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("stdout (-want +got):\n%s", diff)
	}
}

func TestPluginsUsage(t *testing.T) {
	for _, args := range [][]string{{"plugins"}, {"plugins", "show"}, {"plugins", "list", "extra"}} {
		if r := runSokod(t, "", args...); r.code != exitUsage {
			t.Errorf("%q: exit %d, want %d", args, r.code, exitUsage)
		}
	}
}

// TestPluginsListJSON lists a real plugin binary, built here, next to the
// built-ins, and a directory that does not exist.
func TestPluginsListJSON(t *testing.T) {
	dir := t.TempDir()
	bin := filepath.Join(dir, "sokod-plugin-simple")
	if out, err := exec.Command("go", "build", "-o", bin, "../../plugins/heuristics/simple").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	missing := filepath.Join(dir, "missing")
	r := runSokod(t, "", "plugins", "list", "--json", "--plugin-dir", dir, "--plugin-dir", missing)
	if r.code != exitOK {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	var got struct {
		Components []struct {
			Name, Kind, Version, Source, State string
			Capabilities                       []string
		}
		Warnings []string
	}
	if err := json.Unmarshal([]byte(r.stdout), &got); err != nil {
		t.Fatalf("%v\n%s", err, r.stdout)
	}
	type row struct{ Name, Kind, Version, Source, State, Caps string }
	var rows []row
	for _, c := range got.Components {
		rows = append(rows, row{c.Name, c.Kind, c.Version, c.Source, c.State, strings.Join(c.Capabilities, ",")})
	}
	want := []row{
		{"greedy", "heuristic", "", "built-in", "ready", "heuristic-tables"},
		{"matching", "heuristic", "", "built-in", "ready", "heuristic-tables,admissible"},
		{"simple", "heuristic", "", "built-in", "ready", "heuristic-tables,admissible"},
	}
	want = append(want, row{"plugin:simple", "heuristic", "dev", bin, "ready", "heuristic-tables,admissible"})
	for _, p := range planners.All() {
		want = append(want, row{p.Name, "planner", "", "built-in", "ready", ""})
	}
	if diff := cmp.Diff(want, rows); diff != "" {
		t.Errorf("components (-want +got):\n%s", diff)
	}
	if len(got.Warnings) != 1 || !strings.Contains(got.Warnings[0], missing) {
		t.Errorf("warnings %q, want one about %s", got.Warnings, missing)
	}
}

// TestSolveDeadlockPlugin solves with a real deadlock plugin's tables, and
// refuses components that are not deadlock detectors.
func TestSolveDeadlockPlugin(t *testing.T) {
	dir := t.TempDir()
	for name, pkg := range map[string]string{"deadsquares": "deadlocks/deadsquares", "simple": "heuristics/simple"} {
		bin := filepath.Join(dir, "sokod-plugin-"+name)
		if out, err := exec.Command("go", "build", "-o", bin, "../../plugins/"+pkg).CombinedOutput(); err != nil {
			t.Fatalf("go build: %v\n%s", err, out)
		}
	}
	tests := []struct {
		deadlock   string
		wantCode   int
		wantStdout string
		wantStderr string
	}{
		{"deadsquares", exitOK, "solved level 3", ""},
		{"simple", exitUsage, "", `"simple" is a plugin without a deadlock detector`},
		{"nothing", exitUsage, "", `unknown deadlock detector "nothing"`},
	}
	for _, tc := range tests {
		r := runSokod(t, "", "solve", smallLevels, "--level", "3", "--deadlock", tc.deadlock, "--plugin-dir", dir, "--memory", "16MiB")
		if r.code != tc.wantCode || !strings.Contains(r.stdout, tc.wantStdout) || !strings.Contains(r.stderr, tc.wantStderr) {
			t.Errorf("--deadlock %s: exit %d, stdout %q, stderr %q; want %d, %q, %q", tc.deadlock, r.code, r.stdout, r.stderr, tc.wantCode, tc.wantStdout, tc.wantStderr)
		}
	}
}
