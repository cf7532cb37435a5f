package enginetables_test

import (
	"context"
	"encoding/binary"
	"strings"
	"testing"

	"github.com/sokod/sokod/board"
	"github.com/sokod/sokod/internal/engine"
	"github.com/sokod/sokod/internal/enginetables"
	"github.com/sokod/sokod/sdk"
	"github.com/sokod/sokod/sokoban"
)

// FuzzPluginTables turns arbitrary cost and deadlock tables that pass the
// SDK's validation, as a plugin may send them, into the engine's and
// searches with them: garbage from a plugin may make the search weak or
// give up, never panic, and a solution it finds still replays (Solve
// replays every solution it returns, or errs).
func FuzzPluginTables(f *testing.F) {
	l, err := sokoban.Parse("#######\n#@ $ .#\n# $ . #\n#######\n")
	if err != nil {
		f.Fatal(err)
	}
	b, err := board.Analyze(l)
	if err != nil {
		f.Fatal(err)
	}
	squares, goals := b.Squares, len(b.Goals)
	f.Add(make([]byte, 2*squares*goals), uint8(sdk.RuleMatching), []byte{}, []byte{3, 4}, true)
	f.Add([]byte{0xff, 0xff, 1, 0}, uint8(sdk.RuleGreedy), []byte{0, 9}, []byte{}, false)
	f.Fuzz(func(t *testing.T, costs []byte, rule uint8, dead, set []byte, admissible bool) {
		cost := make([]uint16, squares*goals)
		for i := range cost {
			if 2*i+1 < len(costs) {
				cost[i] = binary.LittleEndian.Uint16(costs[2*i:])
			}
		}
		tables := &sdk.HeuristicTables{Costs: cost, Rule: sdk.Rule(rule % 4)}
		if tables.Validate(squares, goals) != nil {
			return
		}
		h, err := enginetables.Heuristic("fuzz", b, &sdk.PreparedHeuristic{Admissible: admissible, Tables: tables})
		if err != nil {
			return
		}
		dt := &sdk.DeadlockTables{}
		for _, d := range dead {
			dt.DeadSquares = append(dt.DeadSquares, int(d)%squares)
		}
		if len(set) > 0 {
			s := sdk.DeadlockSet{Capacity: int(set[0] % 3)}
			for _, x := range set[1:] {
				s.Squares = append(s.Squares, int(x)%squares)
			}
			dt.Sets = append(dt.Sets, s)
		}
		if dt.Validate(squares) != nil {
			return
		}
		objective := engine.ObjectiveAny
		if h.Admissible {
			objective = engine.ObjectivePushes
		}
		_, err = engine.Solve(context.Background(), b, engine.Options{Objective: objective, Heuristic: h,
			Deadlocks: []*engine.Deadlocks{enginetables.Deadlocks("fuzz", dt)}, Budget: engine.Budget{Nodes: 200, Memory: 1 << 20}})
		if err != nil && strings.Contains(err.Error(), "internal error") {
			t.Fatalf("Solve with tables a plugin could send: %v", err)
		}
	})
}
