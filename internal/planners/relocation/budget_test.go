package relocation_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/sokod/sokod/internal/planners/plannertest"
	"github.com/sokod/sokod/internal/planners/relocation"
	"github.com/sokod/sokod/sdk"
	"github.com/sokod/sokod/sokoban"
)

// TestPlanKeepsItsBudgetOnLongRows: a level whose goals stand in long
// rows, where the reverse search's pull-freeze test could branch without
// end, returns within its time budget and a margin.
func TestPlanKeepsItsBudgetOnLongRows(t *testing.T) {
	var sb strings.Builder
	const width, rows, boxes = 100, 4, 40
	sb.WriteString(strings.Repeat("#", width) + "\n#@" + strings.Repeat(" ", width-3) + "#\n")
	for range rows {
		sb.WriteString("# " + strings.Repeat("$", boxes) + strings.Repeat(" ", width-3-2*boxes) + strings.Repeat(".", boxes) + "#\n")
		sb.WriteString("#" + strings.Repeat(" ", width-2) + "#\n")
	}
	sb.WriteString(strings.Repeat("#", width) + "\n")
	l, err := sokoban.Parse(sb.String())
	if err != nil {
		t.Fatal(err)
	}
	out, err := plannertest.Plan(context.Background(), relocation.New(), l, sdk.Budget{Time: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	// The margin is wide for a loaded machine under the race detector;
	// without the budget check the plan runs many times as long.
	if out.Elapsed > 10*time.Second {
		t.Errorf("a plan of 1 s returned after %v", out.Elapsed.Round(time.Millisecond))
	}
}
