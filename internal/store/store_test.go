package store

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/sokod/sokod/sokoban"
)

// room is a level whose fewest pushes are RRR; roomMoved is the same level
// indented, with blank rows around it and the player elsewhere in its
// region.
const (
	room      = "#######\n#     #\n#@$  .#\n#     #\n#######\n"
	roomMoved = "\n   #######\n   #   @ #\n   # $  .#\n   #     #\n   #######\n\n"
)

func parse(t *testing.T, text string) *sokoban.Level {
	t.Helper()
	l, err := sokoban.Parse(text)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

func lurd(t *testing.T, text string) sokoban.Solution {
	t.Helper()
	s, err := sokoban.ParseSolution(text)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func open(t *testing.T, path string) *Store {
	t.Helper()
	clock := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	s, err := Open(context.Background(), path, Options{Clock: func() time.Time { return clock }})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	return s
}

func TestCanonicalKey(t *testing.T) {
	base, err := canonical(parse(t, room))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff("#######\n#@    #\n# $  .#\n#     #\n#######\n", base.key); diff != "" {
		t.Errorf("canonical form of room (-want +got):\n%s", diff)
	}
	tests := []struct {
		name, level string
		same        bool
	}{
		{"indented, player moved within its region", roomMoved, true},
		{"floor written as - and _", "#######\n#-----#\n#@$__.#\n#     #\n#######\n", true},
		{"the player on the other side of a box that splits the corridor", "######\n# $@.#\n######\n", false},
		{"another goal", "#######\n#    .#\n#@$   #\n#     #\n#######\n", false},
	}
	corridor, err := canonical(parse(t, "######\n#@$ .#\n######\n"))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f, err := canonical(parse(t, tc.level))
			if err != nil {
				t.Fatal(err)
			}
			same := f.key == base.key || f.key == corridor.key
			if same != tc.same {
				t.Errorf("canonical form %q: same as the base level %v, want %v", f.key, same, tc.same)
			}
		})
	}
}

func TestLookupMovesTheSolutionToTheCallersLevel(t *testing.T) {
	ctx := context.Background()
	s := open(t, filepath.Join(t.TempDir(), "store.db"))
	if _, err := s.Record(ctx, parse(t, room), Found{Solution: lurd(t, "RRR"), Optimal: true, FoundBy: "matching"}); err != nil {
		t.Fatal(err)
	}
	moved := parse(t, roomMoved)
	k, err := s.Lookup(ctx, moved)
	if err != nil {
		t.Fatal(err)
	}
	if k == nil || k.Pushes == nil {
		t.Fatal("Lookup found nothing for the same level with its player moved")
	}
	m, err := sokoban.Replay(moved, k.Pushes.Solution)
	if err != nil || !m.Solved {
		t.Fatalf("the solution Lookup gave (%s) does not solve the caller's level: %v", k.Pushes.Solution, err)
	}
	// The player starts at column 5, row 2 of the moved board and walks to
	// the square left of the box, then pushes three times.
	want := Solution{Solution: lurd(t, "llldRRR"), Metrics: m, Optimal: true, FoundBy: "matching",
		FoundAt: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)}
	if diff := cmp.Diff(want, *k.Pushes, cmp.Comparer(func(a, b time.Time) bool { return a.Equal(b) })); diff != "" {
		t.Errorf("Lookup (-want +got):\n%s", diff)
	}
	if m.Pushes != 3 || m.Moves != 7 {
		t.Errorf("metrics %+v, want 3 pushes and 7 moves", m)
	}
}

func TestRecordKeepsTheBest(t *testing.T) {
	ctx := context.Background()
	s := open(t, filepath.Join(t.TempDir(), "store.db"))
	l := parse(t, hall(4))
	type state struct {
		PushesBy, MovesBy           string
		Pushes, Moves, MovesOfMoves int
		Optimal                     bool
	}
	steps := []struct {
		name    string
		found   Found
		outcome Outcome
		after   state
	}{
		{"first solution", Found{Solution: lurd(t, "urDldRRRRdrU"), FoundBy: "fess"},
			Outcome{Pushes: true, Moves: true}, state{"fess", "fess", 6, 12, 12, false}},
		{"fewer pushes and moves", Found{Solution: lurd(t, "RRRR"), FoundBy: "relocation"},
			Outcome{Pushes: true, Moves: true}, state{"relocation", "relocation", 4, 4, 4, false}},
		{"a proof for the stored pushes", Found{Solution: lurd(t, "RRRR"), Optimal: true, FoundBy: "matching"},
			Outcome{Proved: true}, state{"relocation", "relocation", 4, 4, 4, true}},
		// Walks are made shortest on the way in, so a detour costs nothing
		// and changes nothing.
		{"the same pushes with a detour", Found{Solution: lurd(t, "RlrRRR"), FoundBy: "packing"},
			Outcome{}, state{"relocation", "relocation", 4, 4, 4, true}},
	}
	for _, st := range steps {
		got, err := s.Record(ctx, l, st.found)
		if err != nil {
			t.Fatalf("%s: %v", st.name, err)
		}
		if diff := cmp.Diff(st.outcome, got); diff != "" {
			t.Errorf("%s: outcome (-want +got):\n%s", st.name, diff)
		}
		k, err := s.Lookup(ctx, l)
		if err != nil {
			t.Fatal(err)
		}
		after := state{k.Pushes.FoundBy, k.Moves.FoundBy, k.Pushes.Metrics.Pushes, k.Pushes.Metrics.Moves, k.Moves.Metrics.Moves, k.Pushes.Optimal}
		if diff := cmp.Diff(st.after, after); diff != "" {
			t.Errorf("%s: stored (-want +got):\n%s", st.name, diff)
		}
	}
}

func TestDecide(t *testing.T) {
	sol := func(pushes, moves int, optimal bool) *row {
		return &row{m: sokoban.Metrics{Pushes: pushes, Moves: moves}, optimal: optimal, foundBy: "x"}
	}
	tests := []struct {
		name          string
		stored        *known
		offer         *row
		want          Outcome
		offerOptimal  bool
		contradiction bool
	}{
		{"empty store", &known{}, sol(10, 40, false), Outcome{Pushes: true, Moves: true}, false, false},
		{"fewer pushes, more moves", &known{pushes: sol(10, 40, false), moves: sol(10, 40, false)}, sol(9, 50, false),
			Outcome{Pushes: true}, false, false},
		{"more pushes, fewer moves", &known{pushes: sol(10, 40, false), moves: sol(10, 40, false)}, sol(12, 30, false),
			Outcome{Moves: true}, false, false},
		{"same moves, fewer pushes", &known{pushes: sol(10, 40, false), moves: sol(11, 30, false)}, sol(10, 30, false),
			Outcome{Pushes: true, Moves: true}, false, false},
		{"the stored proof carries over to as many pushes", &known{pushes: sol(10, 40, true), moves: sol(10, 40, true)}, sol(10, 38, false),
			Outcome{Pushes: true, Moves: true}, true, false},
		{"fewer pushes than a stored proof", &known{pushes: sol(10, 40, true), moves: sol(10, 40, true)}, sol(9, 40, false),
			Outcome{Pushes: true, Moves: true, Contradiction: "a solution with 9 pushes replaces one of 10 proved optimal (found by x)"}, false, true},
		{"a proof with more pushes than stored", &known{pushes: sol(10, 40, false), moves: sol(10, 40, false)}, sol(11, 41, true),
			Outcome{Contradiction: "a solution with 11 pushes claims to be optimal, but one with 10 is stored (found by x)"}, false, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := decide(tc.stored, tc.offer)
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("decide (-want +got):\n%s", diff)
			}
			if tc.offer.optimal != tc.offerOptimal {
				t.Errorf("offer optimal %v after decide, want %v", tc.offer.optimal, tc.offerOptimal)
			}
		})
	}
}

func TestRecordRejectsInvalidSolutions(t *testing.T) {
	ctx := context.Background()
	s := open(t, filepath.Join(t.TempDir(), "store.db"))
	l := parse(t, room)
	for _, text := range []string{"L", "RR", "rRR", ""} {
		if _, err := s.Record(ctx, l, Found{Solution: lurd(t, text), FoundBy: "x"}); err == nil {
			t.Errorf("Record(%q) kept a solution that does not solve the level", text)
		}
	}
	if k, err := s.Lookup(ctx, l); err != nil || k != nil {
		t.Errorf("after rejected offers Lookup = %+v, %v; want nothing", k, err)
	}
}

func TestStoreSurvivesReopen(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "sub", "store.db")
	s := open(t, path)
	if _, err := s.Record(ctx, parse(t, room), Found{Solution: lurd(t, "RRR"), Optimal: true, FoundBy: "matching"}); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	s = open(t, path)
	k, err := s.Lookup(ctx, parse(t, room))
	if err != nil || k == nil {
		t.Fatalf("after reopening Lookup = %v, %v", k, err)
	}
	if got := k.Pushes.Solution.String(); got != "RRR" || !k.Pushes.Optimal || k.Pushes.FoundBy != "matching" {
		t.Errorf("after reopening: %s optimal %v by %s, want RRR optimal by matching", got, k.Pushes.Optimal, k.Pushes.FoundBy)
	}
	var levels []string
	if err := s.Each(ctx, func(e *Entry) error {
		levels = append(levels, e.Level.XSB())
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"#######\n#@    #\n# $  .#\n#     #\n#######\n"}, levels); diff != "" {
		t.Errorf("Each (-want +got):\n%s", diff)
	}
}

func TestOpenRefusesOtherFiles(t *testing.T) {
	dir := t.TempDir()
	notDB := filepath.Join(dir, "notes.txt")
	if err := os.WriteFile(notDB, []byte("these are not the pages of a database, and they are long enough to say so\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Open(context.Background(), notDB, Options{}); err == nil {
		t.Error("Open accepted a text file as a store")
	}
}

// TestConcurrentWriters offers solutions from two processes at once to
// one file: every offer is applied, none is lost to a lock, and the best
// stays whichever comes first.
func TestConcurrentWriters(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "store.db")
	var cmds []*exec.Cmd
	for w := range 2 {
		cmd := exec.Command(os.Args[0], "-test.run=^TestHelperWriter$")
		cmd.Env = append(os.Environ(), "SOKOD_TEST_STORE="+path, fmt.Sprint("SOKOD_TEST_WRITER=", w))
		cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		cmds = append(cmds, cmd)
	}
	for _, cmd := range cmds {
		if err := cmd.Wait(); err != nil {
			t.Errorf("writer process: %v", err)
		}
	}
	s := open(t, path)
	st, err := s.Stats(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if st.Levels != writerLevels {
		t.Errorf("%d levels stored, want %d", st.Levels, writerLevels)
	}
	for n := 1; n <= writerLevels; n++ {
		k, err := s.Lookup(ctx, parse(t, hall(n)))
		if err != nil || k == nil {
			t.Fatalf("hall %d: %v, %v", n, k, err)
		}
		for _, s := range []*Solution{k.Pushes, k.Moves} {
			if s.Metrics.Pushes != n || s.FoundBy != "writer1" {
				t.Errorf("hall %d: best has %d pushes by %s, want %d by writer1", n, s.Metrics.Pushes, s.FoundBy, n)
			}
		}
	}
}

// writerLevels is the number of levels each writer offers.
const writerLevels = 12

// TestHelperWriter is not a test: TestConcurrentWriters runs the test
// binary with SOKOD_TEST_STORE and SOKOD_TEST_WRITER set, and this offers
// a solution of each hall to the store there. Writer 0 offers a detour of
// two more pushes, writer 1 the best.
func TestHelperWriter(t *testing.T) {
	path, w := os.Getenv("SOKOD_TEST_STORE"), os.Getenv("SOKOD_TEST_WRITER")
	if path == "" {
		t.Skip("runs only as TestConcurrentWriters' subprocess")
	}
	s := open(t, path)
	for n := 1; n <= writerLevels; n++ {
		text := strings.Repeat("R", n)
		if w == "0" {
			text = "urDld" + text + "drU"
		}
		if _, err := s.Record(context.Background(), parse(t, hall(n)), Found{Solution: lurd(t, text), FoundBy: "writer" + w}); err != nil {
			t.Fatal(err)
		}
	}
}

// hall is a room with one box, n pushes to the right of its goal.
func hall(n int) string {
	wall := strings.Repeat("#", n+4) + "\n"
	floor := "#" + strings.Repeat(" ", n+2) + "#\n"
	return wall + floor + floor + "#@$" + strings.Repeat(" ", n-1) + ".#\n" + floor + floor + wall
}
