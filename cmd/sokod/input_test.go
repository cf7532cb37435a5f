package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sokod/sokod/sokoban"
)

// latin1Level is a level whose title is written in Latin-1, as older
// collections are: "Café" with é as the byte 0xE9.
const latin1Level = "; Caf\xe9\n#####\n#@$.#\n#####\n"

// TestLatin1Titles: a level file that is not UTF-8 is read as
// Windows-1252, so its title prints, goes into JSON, and goes to the
// daemon, whose API takes UTF-8 only (solve --remote failed, INTERNAL).
func TestLatin1Titles(t *testing.T) {
	path := filepath.Join(t.TempDir(), "latin1.xsb")
	if err := os.WriteFile(path, []byte(latin1Level), 0o600); err != nil {
		t.Fatal(err)
	}
	r := runSokod(t, "", "levels", path, "--json")
	var out struct {
		Levels []struct{ Title string } `json:"levels"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &out); err != nil || r.code != 0 {
		t.Fatalf("levels --json: exit %d, %v\n%s%s", r.code, err, r.stdout, r.stderr)
	}
	if len(out.Levels) != 1 || out.Levels[0].Title != "Café" {
		t.Errorf("levels: %+v, want the title Café", out.Levels)
	}

	sock := filepath.Join(shortDir(t), "s.sock")
	startDaemon(t, sock)
	res := runBin(t, nil, "solve", path, "--remote", "unix://"+sock)
	if res.code != 0 || !strings.Contains(res.stdout, "Café") {
		t.Errorf("solve --remote: exit %d\n%s%s", res.code, res.stdout, res.stderr)
	}
}

// TestInputTooLarge: a file larger than a level text may be is refused
// as bad input, before it is read whole.
func TestInputTooLarge(t *testing.T) {
	path := filepath.Join(t.TempDir(), "huge.xsb")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(sokoban.MaxInputBytes + 1); err != nil {
		t.Fatal(err)
	}
	f.Close()
	r := runSokod(t, "", "levels", path)
	if r.code != exitBadInput || !strings.Contains(r.stderr, "larger than") {
		t.Errorf("exit %d, stderr %q; want %d, larger than", r.code, r.stderr, exitBadInput)
	}
}
