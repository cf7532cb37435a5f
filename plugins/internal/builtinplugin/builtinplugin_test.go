package builtinplugin

import (
	"context"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/sokod/sokod/internal/engine"
	"github.com/sokod/sokod/internal/enginetables"
	"github.com/sokod/sokod/internal/heuristics"
	"github.com/sokod/sokod/sdk"
	"github.com/sokod/sokod/sokoban"
)

func level(t *testing.T, src string) *sdk.Level {
	t.Helper()
	sl, err := sokoban.Parse(src)
	if err != nil {
		t.Fatal(err)
	}
	l, err := sdk.LevelFromSokoban(sl)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

func TestDeadSquares(t *testing.T) {
	// ######
	// #@   #   squares 0..3: against the top wall, a box here can never be
	// # $. #   pushed down to the goal; squares 4..7: 4 and 7 are corners
	// ######
	l := level(t, "######\n#@   #\n# $. #\n######\n")
	d, err := DeadSquares{}.Prepare(context.Background(), l)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(&sdk.DeadlockTables{DeadSquares: []int{0, 1, 2, 3, 4, 7}}, d.Tables); diff != "" {
		t.Errorf("tables (-want +got):\n%s", diff)
	}
}

func TestHeuristicTablesMatchBuiltin(t *testing.T) {
	l := level(t, "#######\n#.@ # #\n#$* $ #\n#   $ #\n# ..  #\n#  *  #\n#######\n")
	b, err := l.Analyze(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for _, spec := range heuristics.All() {
		p, err := Heuristic{Spec: spec}.Prepare(context.Background(), l)
		if err != nil {
			t.Fatal(err)
		}
		eh, err := spec.Prepare(b)
		if err != nil {
			t.Fatal(err)
		}
		want, err := enginetables.Tables(b, eh)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(&sdk.PreparedHeuristic{Admissible: spec.Admissible, Tables: want}, p); diff != "" {
			t.Errorf("%s (-want +got):\n%s", spec.Name, diff)
		}
		if p.Tables.SideCosts == nil {
			t.Errorf("%s: no side costs", spec.Name)
		}
	}
}

// TestPlugins checks that every built-in is served under its own name,
// with a valid description, and that an unknown name is refused.
func TestPlugins(t *testing.T) {
	for _, name := range Names() {
		p, err := Plugin(name, "test")
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		info, err := p.ResolvedInfo()
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if info.Name != name {
			t.Errorf("the plugin for %s calls itself %s", name, info.Name)
		}
	}
	if _, err := Plugin("nope", "test"); err == nil {
		t.Error("an unknown built-in was served")
	}
	if _, err := Plugin("", "test"); err == nil {
		t.Error("the empty name was served as the default heuristic")
	}
}

// TestBatchHeuristicMatchesTables: the batch form of each built-in answers
// every position with the bound of its tables, a dead end where they find
// none.
func TestBatchHeuristicMatchesTables(t *testing.T) {
	l := level(t, "#######\n#.@ # #\n#$* $ #\n#   $ #\n# ..  #\n#  *  #\n#######\n")
	b, err := l.Analyze(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for _, spec := range heuristics.All() {
		p, err := BatchHeuristic{Spec: spec}.Prepare(context.Background(), l)
		if err != nil {
			t.Fatal(err)
		}
		if p.Tables != nil || p.Estimator == nil || p.Admissible != spec.Admissible {
			t.Fatalf("%s: prepared %+v, want an estimator only, admissible %v", spec.Name, p, spec.Admissible)
		}
		eh, err := spec.Prepare(b)
		if err != nil {
			t.Fatal(err)
		}
		// Every box moved to every free square in turn, the player on
		// the first square free.
		states := sdk.NewStates(len(b.StartBoxes), 0)
		var want []uint32
		for i := range b.StartBoxes {
			for sq := range b.Squares {
				boxes := slices.Clone(b.StartBoxes)
				if slices.Contains(boxes, uint16(sq)) {
					continue
				}
				boxes[i] = uint16(sq)
				player := 0
				for slices.Contains(boxes, uint16(player)) {
					player++
				}
				states.Append(uint16(player), boxes)
				v, ok, err := engine.LowerBound(b, eh, boxes, uint16(player))
				if err != nil {
					t.Fatal(err)
				}
				if !ok {
					v = int(sdk.DeadEnd)
				}
				want = append(want, uint32(v))
			}
		}
		got := make([]uint32, states.Len())
		if err := p.Estimator.Estimate(context.Background(), states, got); err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%s (-tables +estimates):\n%s", spec.Name, diff)
		}
	}
}
