package main

import (
	"encoding/json"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestPluginsListBuiltins(t *testing.T) {
	r := runSokod(t, "", "plugins", "list")
	if r.code != exitOK {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	want := "" +
		"NAME      KIND       VERSION  STATE  SOURCE    CAPABILITIES\n" +
		"greedy    heuristic  -        ready  built-in  heuristic-tables\n" +
		"matching  heuristic  -        ready  built-in  heuristic-tables,admissible\n" +
		"simple    heuristic  -        ready  built-in  heuristic-tables,admissible\n"
	if diff := cmp.Diff(want, r.stdout); diff != "" {
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
		{"plugin:simple", "heuristic", "dev", bin, "ready", "heuristic-tables,admissible"},
	}
	if diff := cmp.Diff(want, rows); diff != "" {
		t.Errorf("components (-want +got):\n%s", diff)
	}
	if len(got.Warnings) != 1 || !strings.Contains(got.Warnings[0], missing) {
		t.Errorf("warnings %q, want one about %s", got.Warnings, missing)
	}
}
