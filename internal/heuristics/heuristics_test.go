package heuristics

import (
	"context"
	"os"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/sokod/sokod/board"
	"github.com/sokod/sokod/internal/engine"
	"github.com/sokod/sokod/sokoban"
)

func TestRegistry(t *testing.T) {
	type entry struct {
		Name       string
		Admissible bool
	}
	var got []entry
	for _, h := range All() {
		got = append(got, entry{h.Name, h.Admissible})
	}
	want := []entry{{"greedy", false}, {"matching", true}, {"simple", true}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("registry (-want +got):\n%s", diff)
	}
	if h, err := Lookup(""); err != nil || h.Name != Default {
		t.Errorf("default lookup: %v, %v", h.Name, err)
	}
	if _, err := Lookup("nope"); err == nil {
		t.Error("unknown name: no error")
	}
}

// TestBounds checks each compiled heuristic against the engine: the tables
// fit the board, the flags match the registry, and on levels the engine
// solves push-optimally simple <= matching <= optimal pushes at the start.
func TestBounds(t *testing.T) {
	src, err := os.ReadFile("../engine/testdata/small.xsb")
	if err != nil {
		t.Fatal(err)
	}
	c, err := sokoban.ParseCollection(string(src))
	if err != nil {
		t.Fatal(err)
	}
	for i, l := range c.Levels {
		b, err := board.Analyze(l)
		if err != nil {
			t.Fatal(err)
		}
		bounds := map[string]int{}
		for _, spec := range All() {
			h, err := spec.Prepare(b)
			if err != nil {
				t.Fatal(err)
			}
			if h.Name != spec.Name || h.Admissible != spec.Admissible || len(h.Costs) != b.Squares*len(b.Goals) || len(h.RegionCosts) != b.Squares*engine.Regions*len(b.Goals) {
				t.Fatalf("%s: compiled %q admissible=%v with %d costs", spec.Name, h.Name, h.Admissible, len(h.Costs))
			}
			r, err := engine.Solve(context.Background(), b, engine.Options{Objective: engine.ObjectiveAny, Heuristic: h, Budget: engine.Budget{Memory: 1 << 20}})
			if err != nil {
				t.Fatal(err)
			}
			if r.Status != engine.Solved {
				t.Fatalf("level %d with %s: %v", i+1, spec.Name, r.Status)
			}
			bounds[spec.Name] = r.Stats.InitialLB
		}
		h := Matching(b)
		r, err := engine.Solve(context.Background(), b, engine.Options{Objective: engine.ObjectivePushes, Heuristic: h, Budget: engine.Budget{Memory: 1 << 20}})
		if err != nil {
			t.Fatal(err)
		}
		if !r.Optimal {
			t.Fatalf("level %d: not solved optimally", i+1)
		}
		if !(bounds["simple"] <= bounds["matching"] && bounds["matching"] <= r.Metrics.Pushes) {
			t.Errorf("level %d: simple %d, matching %d, optimum %d", i+1, bounds["simple"], bounds["matching"], r.Metrics.Pushes)
		}
	}
}

// TestGreedyOverestimates shows why greedy is not admissible: box A is one
// push from goal G1 and two from G2, box B two from G1 and five from G2.
// Greedy takes A-G1 (1) and leaves B-G2 (5): 6. The minimum matching is
// A-G2 + B-G1 = 4, which is also the optimal number of pushes.
func TestGreedyOverestimates(t *testing.T) {
	l, err := sokoban.Parse(`
###########
#         #
#  $ .$ . #
#    @    #
###########
`)
	if err != nil {
		t.Fatal(err)
	}
	b, err := board.Analyze(l)
	if err != nil {
		t.Fatal(err)
	}
	bound := func(h *engine.Heuristic, obj engine.Objective) *engine.Result {
		r, err := engine.Solve(context.Background(), b, engine.Options{Objective: obj, Heuristic: h, Budget: engine.Budget{Memory: 1 << 20}})
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	greedy := bound(Greedy(b), engine.ObjectiveAny).Stats.InitialLB
	opt := bound(Matching(b), engine.ObjectivePushes)
	if greedy != 6 || opt.Stats.InitialLB != 4 || opt.Metrics.Pushes != 4 || !opt.Optimal {
		t.Errorf("greedy %d, matching %d, optimum %d (optimal=%v); want 6, 4, 4", greedy, opt.Stats.InitialLB, opt.Metrics.Pushes, opt.Optimal)
	}
}
