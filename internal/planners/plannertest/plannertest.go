// Package plannertest holds what the built-in planners' tests share:
// running a planner on a level against an in-process host and checking
// what it returns, the common cases every planner must pass, and the
// corpus benchmark driver (bench_test.go).
package plannertest

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/sokod/sokod/board"
	"github.com/sokod/sokod/internal/hostservice"
	"github.com/sokod/sokod/sdk"
	"github.com/sokod/sokod/sokoban"
)

// Outcome is one plan's result with the facts a test checks.
type Outcome struct {
	Result *sdk.PlanResult
	// Replayed is true when the solution, replayed by the sokoban
	// package's verifier independently of the host, solves the level.
	Replayed bool
	// Pushes is the replay's push count.
	Pushes int
	// Progress counts the progress reports.
	Progress int
	Elapsed  time.Duration
}

// Plan runs p on level l with the host service in-process and replays any
// solution.
func Plan(ctx context.Context, p sdk.Planner, l *sokoban.Level, budget sdk.Budget) (*Outcome, error) {
	b, err := board.Analyze(l)
	if err != nil {
		return nil, err
	}
	host := hostservice.New(b, nil)
	out := &Outcome{}
	start := time.Now()
	res, err := p.Plan(ctx, &sdk.PlanRequest{Level: sdk.LevelFromBoard(b), Budget: budget}, host, func(sdk.PlanProgress) { out.Progress++ })
	out.Elapsed = time.Since(start)
	if err != nil {
		return nil, err
	}
	out.Result = res
	if res.Status == sdk.PlanSolved {
		sol, err := sokoban.ParseSolution(res.Solution)
		if err != nil {
			return out, fmt.Errorf("solution does not parse: %w", err)
		}
		m, err := sokoban.Replay(l, sol)
		out.Replayed = err == nil && m.Solved
		out.Pushes = m.Pushes
	}
	return out, nil
}

// Fixture reads and parses testdata/NAME of this package's directory,
// which holds small levels every planner should solve quickly.
func Fixture(t testing.TB, name string) *sokoban.Level {
	t.Helper()
	src, err := os.ReadFile(filepath.Join(dir(t), "testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	l, err := sokoban.Parse(string(src))
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return l
}

// Corpus reads and parses the collection file of the benchmark corpus in
// $SOKOD_LEVELS, and skips the test when SOKOD_LEVELS is not set.
func Corpus(t testing.TB, file string) *sokoban.Collection {
	t.Helper()
	dir := os.Getenv("SOKOD_LEVELS")
	if dir == "" {
		t.Skip("SOKOD_LEVELS is not set; skipping the corpus test (point it at the benchmark level collections)")
	}
	src, err := os.ReadFile(filepath.Join(dir, file))
	if err != nil {
		t.Fatal(err)
	}
	c, err := sokoban.ParseCollection(string(src))
	if err != nil {
		t.Fatalf("%s: %v", file, err)
	}
	return c
}

// Fixtures lists the fixture files.
func Fixtures(t testing.TB) []string {
	t.Helper()
	m, err := filepath.Glob(filepath.Join(dir(t), "testdata", "*.xsb"))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, f := range m {
		names = append(names, filepath.Base(f))
	}
	return names
}

// dir finds this package's directory from the module root or a package
// directory below it.
func dir(t testing.TB) string {
	t.Helper()
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for d := wd; ; d = filepath.Dir(d) {
		if _, err := os.Stat(filepath.Join(d, "go.mod")); err == nil {
			return filepath.Join(d, "internal", "planners", "plannertest")
		}
		if filepath.Dir(d) == d {
			t.Fatalf("no go.mod above %s", wd)
		}
	}
}

// Only reads a list of level numbers and ranges ("1,5,7-9") into a set,
// numbers past n left out; "" means all, and gives nil.
func Only(s string, n int) (map[int]bool, error) {
	if s == "" {
		return nil, nil
	}
	set := map[int]bool{}
	for _, part := range strings.Split(s, ",") {
		lo, hi, isRange := strings.Cut(part, "-")
		a, err := strconv.Atoi(lo)
		if err != nil {
			return nil, fmt.Errorf("level list %q: %w", s, err)
		}
		b := a
		if isRange {
			if b, err = strconv.Atoi(hi); err != nil {
				return nil, fmt.Errorf("level list %q: %w", s, err)
			}
		}
		for i := a; i <= b && i <= n; i++ {
			set[i] = true
		}
	}
	return set, nil
}
