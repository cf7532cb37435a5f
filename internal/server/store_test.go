package server

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/sokod/sokod/internal/store"
	sokodv1 "github.com/sokod/sokod/proto/sokod/v1"
	"github.com/sokod/sokod/sokoban"
)

// TestDaemonAnswersFromTheStore: the daemon's solves go through the store,
// so a level solved once is answered from it, with a solution that
// replays.
func TestDaemonAnswersFromTheStore(t *testing.T) {
	st, err := store.Open(context.Background(), filepath.Join(t.TempDir(), "store.db"), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = st.Close() })
	ts := startServer(t, Options{Store: st})
	text := readFile(t, "testdata/small.xsb")
	var foundBy []string
	for range 2 {
		stream, err := ts.client.Solve(testContext(t), &sokodv1.SolveRequest{Level: text})
		if err != nil {
			t.Fatal(err)
		}
		ev, err := recvAll(stream)
		if err != nil {
			t.Fatal(err)
		}
		r := ev.result
		if r.GetStatus() != sokodv1.Status_STATUS_SOLVED {
			t.Fatalf("status %v (%s), want solved", r.GetStatus(), r.GetReason())
		}
		foundBy = append(foundBy, r.GetFoundBy())
		l, err := sokoban.Parse(text)
		if err != nil {
			t.Fatal(err)
		}
		sol, err := sokoban.ParseSolution(r.GetSolution())
		if err != nil {
			t.Fatal(err)
		}
		if m, err := sokoban.Replay(l, sol); err != nil || !m.Solved {
			t.Errorf("solution %q from %s does not solve the level: %v", r.GetSolution(), r.GetFoundBy(), err)
		}
	}
	if foundBy[0] == "store" || foundBy[1] != "store" {
		t.Errorf("found by %q then %q; want a component, then the store", foundBy[0], foundBy[1])
	}
}
