package fess_test

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/sokod/sokod/internal/planners/fess"
	"github.com/sokod/sokod/internal/planners/plannertest"
	"github.com/sokod/sokod/sdk"
	"github.com/sokod/sokod/sokoban"
)

func TestPlanner(t *testing.T) { plannertest.Check(t, fess.New) }

// busy returns a level of 36 boxes in a hall with their goals in a room
// off it: solvable, but with too many moves per position to finish within
// the budgets below; a solution takes at least one expansion per box.
func busy(t *testing.T) *sokoban.Level {
	t.Helper()
	const w, h = 30, 16
	rows := make([][]byte, h)
	boxes := 0
	for y := range h {
		rows[y] = make([]byte, w)
		for x := range w {
			switch {
			case y == 0 || y == h-1 || x == 0 || x == w-1 || x == 20 && y != 8:
				rows[y][x] = '#'
			case x > 1 && x < 19 && y > 1 && y < h-2 && x%3 == 0 && y%2 == 1:
				rows[y][x] = '$'
				boxes++
			default:
				rows[y][x] = ' '
			}
		}
	}
	rows[1][1] = '@'
	// The goals fill the room beyond the wall in a checkerboard.
	for y := 2; y < h-2 && boxes > 0; y++ {
		for x := 22; x < w-1 && boxes > 0; x++ {
			if (x+y)%2 == 0 {
				rows[y][x] = '.'
				boxes--
			}
		}
	}
	l, err := sokoban.Parse(string(bytes.Join(rows, []byte("\n"))))
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// TestBudgets checks that a plan ends on its budgets on a level it cannot
// finish within them: the contract's fixture is one whose deadlock fess
// sees at once.
func TestBudgets(t *testing.T) {
	for _, tc := range []struct {
		budget sdk.Budget
		reason string
	}{
		{sdk.Budget{Time: 300 * time.Millisecond}, "time budget"},
		{sdk.Budget{Time: time.Minute, Nodes: 10}, "node budget"},
	} {
		t.Run(tc.reason, func(t *testing.T) {
			o, err := plannertest.Plan(context.Background(), fess.New(), busy(t), tc.budget)
			if err != nil {
				t.Fatal(err)
			}
			if o.Result.Status != sdk.PlanGaveUp || !strings.Contains(o.Result.Reason, tc.reason) {
				t.Errorf("plan %+v, want gave_up for %q", o.Result, tc.reason)
			}
			if limit := tc.budget.Time + 10*time.Second; o.Elapsed > limit {
				t.Errorf("returned after %v", o.Elapsed)
			}
		})
	}
}

// corpusLevel is a level of a shared collection (SOKOD_LEVELS).
type corpusLevel struct {
	file  string
	level int // from 1
}

func (c corpusLevel) String() string { return fmt.Sprintf("%s/%d", c.file, c.level) }

// load reads the level; tb skips when SOKOD_LEVELS is unset.
func (c corpusLevel) load(tb testing.TB) *sokoban.Level {
	tb.Helper()
	return plannertest.Corpus(tb, c.file).Levels[c.level-1]
}

// TestCorpus solves levels of the benchmark collections that sokod's other
// searches could not, within a node budget, so the outcome does not
// depend on the machine. Needs SOKOD_LEVELS.
func TestCorpus(t *testing.T) {
	for _, tc := range []corpusLevel{
		{"xsokoban90.xsb", 39},
		{"xsokoban90.xsb", 50},
		{"xsokoban90.xsb", 69},
		{"sasquatch1.xsb", 36},
	} {
		t.Run(tc.String(), func(t *testing.T) {
			l := tc.load(t)
			o, err := plannertest.Plan(context.Background(), fess.New(), l, sdk.Budget{Nodes: 200000, MemoryBytes: 1 << 30})
			if err != nil {
				t.Fatal(err)
			}
			got := struct {
				Status   sdk.PlanStatus
				Replayed bool
			}{o.Result.Status, o.Replayed}
			want := got
			want.Status, want.Replayed = sdk.PlanSolved, true
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("plan (-want +got):\n%s\nreason %q", diff, o.Result.Reason)
			}
		})
	}
}

// BenchmarkPlan times fess on levels of the benchmark collections that
// only it solves, each within a node budget so that every run does the
// same work. Needs SOKOD_LEVELS; run it with -benchtime 1x and -count.
func BenchmarkPlan(b *testing.B) {
	for _, tc := range []corpusLevel{
		{"xsokoban90.xsb", 39},
		{"xsokoban90.xsb", 66},
		{"xsokoban90.xsb", 77},
		{"sasquatch1.xsb", 31},
	} {
		b.Run(tc.String(), func(b *testing.B) {
			l := tc.load(b)
			for b.Loop() {
				o, err := plannertest.Plan(context.Background(), fess.New(), l, sdk.Budget{Nodes: 2000000, MemoryBytes: 1 << 30})
				if err != nil {
					b.Fatal(err)
				}
				if !o.Replayed {
					b.Fatalf("not solved: %s %q", o.Result.Status, o.Result.Reason)
				}
			}
		})
	}
}
