package supervisor

import (
	"context"
	"testing"
	"time"

	"github.com/sokod/sokod/internal/hostservice"
	"github.com/sokod/sokod/sdk"
	"github.com/sokod/sokod/sokoban"
)

// TestPlannerThroughBroker runs a planner plugin process that calls back
// into a Service through the go-plugin broker.
func TestPlannerThroughBroker(t *testing.T) {
	h, _ := newHost(t, Options{Dirs: []string{pluginDir(t, "planner")}})
	b := testBoard(t)
	var events []sdk.PlanProgress
	res, err := h.Lookup("planner").Planner().Plan(context.Background(),
		&sdk.PlanRequest{Level: sdk.LevelFromBoard(b), Budget: sdk.Budget{Time: time.Minute}}, hostservice.New(b, nil),
		func(p sdk.PlanProgress) { events = append(events, p) })
	if err != nil {
		t.Fatal(err)
	}
	if res.Status != sdk.PlanSolved {
		t.Fatalf("%+v", res)
	}
	sol, err := sokoban.ParseSolution(res.Solution)
	if err != nil {
		t.Fatal(err)
	}
	if m, err := sokoban.Replay(b.Level, sol); err != nil || !m.Solved {
		t.Errorf("solution %q: %v, solved %v", res.Solution, err, m.Solved)
	}
	if len(events) != 2 || events[0].Message != "sub-search to the goals" {
		t.Errorf("progress %+v", events)
	}
}
