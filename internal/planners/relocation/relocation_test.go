package relocation_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/sokod/sokod/board"
	"github.com/sokod/sokod/internal/hostservice"
	"github.com/sokod/sokod/internal/planners/plannertest"
	"github.com/sokod/sokod/internal/planners/relocation"
	"github.com/sokod/sokod/sdk"
	"github.com/sokod/sokod/sokoban"
)

func TestPlanner(t *testing.T) { plannertest.Check(t, relocation.New) }

// level parses testdata/NAME.
func level(t *testing.T, name string) *sokoban.Level {
	t.Helper()
	src, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	l, err := sokoban.Parse(string(src))
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return l
}

// TestRelocationGap closes a gap by hand: from the start of a level to the
// closest position of the RPR variation, through the host's sub-search;
// forward moves, gap and stacking must make a solution that replays.
func TestRelocationGap(t *testing.T) {
	for _, name := range []string{"stack.xsb", "hall.xsb"} {
		t.Run(name, func(t *testing.T) {
			l := level(t, name)
			b, err := board.Analyze(l)
			if err != nil {
				t.Fatal(err)
			}
			req := &sdk.PlanRequest{Level: sdk.LevelFromBoard(b), Budget: sdk.Budget{Time: 30 * time.Second}}
			lurd, err := relocation.CloseFirstGap(context.Background(), req, hostservice.New(b, nil))
			if err != nil {
				t.Fatal(err)
			}
			sol, err := sokoban.ParseSolution(lurd)
			if err != nil {
				t.Fatal(err)
			}
			if m, err := sokoban.Replay(l, sol); err != nil || !m.Solved {
				t.Errorf("replay: %v, solved %v", err, m.Solved)
			}
		})
	}
}

// TestRootGapAnyRegion closes the gap from the start to each solved
// position of a level whose goals cut it in two: the host's sub-search
// aims at the goals and leaves the player on one side, and a solved
// position is a solution whichever side that is, so every root's gap
// closes.
func TestRootGapAnyRegion(t *testing.T) {
	b, err := board.Analyze(level(t, "column.xsb"))
	if err != nil {
		t.Fatal(err)
	}
	req := &sdk.PlanRequest{Level: sdk.LevelFromBoard(b), Budget: sdk.Budget{Time: 10 * time.Second, MemoryBytes: 64 << 20}}
	got, err := relocation.RootGaps(context.Background(), req, hostservice.New(b, nil))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]bool{true, true}, got); diff != "" {
		t.Errorf("gaps closed per root (-want +got):\n%s", diff)
	}
}

// TestSolvedPositionFirst checks the plan's schedule: its first gap is the
// host's plain search from the opened position to the solved position,
// before any gap to a spread one.
func TestSolvedPositionFirst(t *testing.T) {
	b, err := board.Analyze(level(t, "stack.xsb"))
	if err != nil {
		t.Fatal(err)
	}
	req := &sdk.PlanRequest{Level: sdk.LevelFromBoard(b), Budget: sdk.Budget{Time: 10 * time.Second, MemoryBytes: 64 << 20}}
	_, log, err := relocation.SolveLog(context.Background(), req, hostservice.New(b, nil))
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range log {
		if strings.HasPrefix(line, "gap ") {
			if !strings.Contains(line, "(0 off goals)") {
				t.Errorf("first gap %q, want one to a solved position", line)
			}
			return
		}
	}
	t.Errorf("no gap in the log:\n%s", strings.Join(log, "\n"))
}

// TestSolvesHandMade solves this package's levels end to end and replays
// the solutions independently.
func TestSolvesHandMade(t *testing.T) {
	for _, name := range []string{"stack.xsb", "hall.xsb", "wallgoal.xsb"} {
		t.Run(name, func(t *testing.T) {
			o, err := plannertest.Plan(context.Background(), relocation.New(), level(t, name), sdk.Budget{Time: time.Minute})
			if err != nil {
				t.Fatal(err)
			}
			got := fmt.Sprintf("%v replayed=%v", o.Result.Status, o.Replayed)
			if want := "solved replayed=true"; got != want {
				t.Errorf("%s, want %s (%s)", got, want, o.Result.Reason)
			}
		})
	}
}

// TestPlanLog runs one level of a collection with the plan's log printed,
// on request: RELOCATION_LOG_FILE=xsokoban90.xsb RELOCATION_LOG_LEVEL=4
// [RELOCATION_LOG_TIME=10s] with SOKOD_LEVELS set.
func TestPlanLog(t *testing.T) {
	file := os.Getenv("RELOCATION_LOG_FILE")
	if file == "" {
		t.Skip("set RELOCATION_LOG_FILE, RELOCATION_LOG_LEVEL and SOKOD_LEVELS to look inside a plan")
	}
	c := plannertest.Corpus(t, file)
	n, err := strconv.Atoi(os.Getenv("RELOCATION_LOG_LEVEL"))
	if err != nil || n < 1 || n > len(c.Levels) {
		t.Fatalf("RELOCATION_LOG_LEVEL: %v", err)
	}
	d := 10 * time.Second
	if v := os.Getenv("RELOCATION_LOG_TIME"); v != "" {
		if d, err = time.ParseDuration(v); err != nil {
			t.Fatal(err)
		}
	}
	b, err := board.Analyze(c.Levels[n-1])
	if err != nil {
		t.Fatal(err)
	}
	req := &sdk.PlanRequest{Level: sdk.LevelFromBoard(b), Budget: sdk.Budget{Time: d}}
	start := time.Now()
	res, log, err := relocation.SolveLog(context.Background(), req, hostservice.New(b, nil))
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range log {
		t.Log(line)
	}
	t.Logf("%v after %v: %s", res.Status, time.Since(start).Round(time.Millisecond), res.Reason)
}
