package engine

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/sokod/sokod/board"
	"github.com/sokod/sokod/sokoban"
)

// rowsLevel is a level with rows of boxes, each row's goals at its other
// end and a free row between rows: many boxes, so that the start's
// matching and one expansion (home moves included) each take seconds
// without the checks within them.
func rowsLevel(rows, boxes, width int) string {
	var sb strings.Builder
	sb.WriteString(strings.Repeat("#", width) + "\n")
	sb.WriteString("#@" + strings.Repeat(" ", width-3) + "#\n")
	for range rows {
		sb.WriteString("# " + strings.Repeat("$", boxes) + strings.Repeat(" ", width-3-2*boxes) + strings.Repeat(".", boxes) + "#\n")
		sb.WriteString("#" + strings.Repeat(" ", width-2) + "#\n")
	}
	sb.WriteString(strings.Repeat("#", width) + "\n")
	return sb.String()
}

// TestSearchEndsWithItsContext gives a search on a board of 500 boxes a
// context that ends after 200 ms: it must give up for the time limit soon
// after, not when its current expansion is over, which on a board this
// large would be long after the deadline.
func TestSearchEndsWithItsContext(t *testing.T) {
	l, err := sokoban.Parse(rowsLevel(20, 25, 64))
	if err != nil {
		t.Fatal(err)
	}
	b := mustAnalyze(t, l)
	for _, obj := range []Objective{ObjectiveAny, ObjectivePushes} {
		ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
		start := time.Now()
		r, err := Solve(ctx, b, Options{Objective: obj, Heuristic: plainHeuristic(b, RuleMatching), Clock: time.Now})
		elapsed := time.Since(start)
		cancel()
		if err != nil {
			t.Fatal(err)
		}
		if r.Status != GaveUp || r.Reason != ReasonDeadline {
			t.Errorf("objective %v: %v (%s), want gave up for the time limit", obj, r.Status, r.Reason)
		}
		if elapsed > 1200*time.Millisecond {
			t.Errorf("objective %v: returned %v after start, context ended at 200ms", obj, elapsed.Round(time.Millisecond))
		}
	}
}

// TestAnalyzeContext: an analysis whose context has ended stops, saying
// why.
func TestAnalyzeContext(t *testing.T) {
	l, err := sokoban.Parse(rowsLevel(20, 25, 64))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := board.AnalyzeContext(ctx, l); !errors.Is(err, context.Canceled) {
		t.Errorf("AnalyzeContext with a cancelled context: %v, want context.Canceled", err)
	}
	b, err := board.AnalyzeContext(context.Background(), l)
	if err != nil || len(b.Goals) != 500 {
		t.Fatalf("AnalyzeContext: %v, %d goals", err, len(b.Goals))
	}
}
