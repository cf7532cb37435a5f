package main

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/sokod/sokod/board"
	"github.com/sokod/sokod/internal/engine"
	"github.com/sokod/sokod/internal/enginetables"
	"github.com/sokod/sokod/internal/heuristics"
	"github.com/sokod/sokod/sdk"
	"github.com/sokod/sokod/sdk/plugintest"
	"github.com/sokod/sokod/sokoban"
)

// testLevels are the conformance suite's levels, the engine's small
// fixtures, and the first levels of Microban I when SOKOD_LEVELS is set.
func testLevels(t *testing.T) []*sokoban.Level {
	var out []*sokoban.Level
	for _, src := range plugintest.Levels() {
		l, err := sokoban.Parse(src)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, l)
	}
	files := []string{"../../../internal/engine/testdata/small.xsb"}
	if dir := os.Getenv("SOKOD_LEVELS"); dir != "" {
		files = append(files, filepath.Join(dir, "microban1.xsb"))
	} else {
		t.Log("SOKOD_LEVELS is not set: Microban I is left out")
	}
	for _, f := range files {
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		c, err := sokoban.ParseCollection(string(src))
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, c.Levels[:min(len(c.Levels), 20)]...)
	}
	return out
}

// TestPatternDatabase solves levels under objective pushes with the
// pattern database and with the built-in matching bound: the same
// push-optimal counts, both proved, and in all no more nodes with the
// database (its bound is never below the matching's).
func TestPatternDatabase(t *testing.T) {
	ctx := context.Background()
	var with, without int64
	patterns := 0
	for i, l := range testLevels(t) {
		b, err := board.Analyze(l)
		if err != nil || b.Impossible != "" {
			continue
		}
		sl, err := sdk.LevelFromSokoban(l)
		if err != nil {
			t.Fatal(err)
		}
		prep, err := pdb{maxStates: defaultMaxStates}.Prepare(ctx, sl)
		if err != nil {
			t.Fatal(err)
		}
		if err := prep.Tables.Validate(b.Squares, len(b.Goals)); err != nil {
			t.Fatal(err)
		}
		patterns += len(prep.Tables.Penalties)
		h, err := enginetables.Heuristic("pdb", b, prep)
		if err != nil {
			t.Fatal(err)
		}
		solve := func(h *engine.Heuristic) *engine.Result {
			r, err := engine.Solve(ctx, b, engine.Options{Objective: engine.ObjectivePushes, Heuristic: h,
				Budget: engine.Budget{Memory: 64 << 20, Nodes: 2_000_000}})
			if err != nil {
				t.Fatal(err)
			}
			return r
		}
		rp, rm := solve(h), solve(heuristics.Matching(b))
		if rm.Status != engine.Solved {
			continue // too hard for this test's budget either way
		}
		if rp.Status != engine.Solved || !rp.Optimal || !rm.Optimal || rp.Metrics.Pushes != rm.Metrics.Pushes {
			t.Errorf("level %d: pdb %v (optimal %v) in %d pushes, matching %v (optimal %v) in %d", i+1,
				rp.Status, rp.Optimal, rp.Metrics.Pushes, rm.Status, rm.Optimal, rm.Metrics.Pushes)
		}
		with += rp.Stats.Nodes
		without += rm.Stats.Nodes
	}
	t.Logf("%d patterns; %d nodes with them, %d with the matching bound alone", patterns, with, without)
	if patterns == 0 || with >= without {
		t.Errorf("%d patterns; %d nodes with them, %d without: want fewer", patterns, with, without)
	}
}

// TestPatternsAdmissible: the penalty of every placement the database
// knows keeps the bound within the pushes left, which the backward search
// found exactly; checked on a level small enough to search whole.
func TestPatternsAdmissible(t *testing.T) {
	l, err := sokoban.Parse(plugintest.Levels()[1])
	if err != nil {
		t.Fatal(err)
	}
	b, err := board.Analyze(l)
	if err != nil {
		t.Fatal(err)
	}
	db, err := explore(context.Background(), b, 1<<30) // the whole space
	if err != nil {
		t.Fatal(err)
	}
	sl, err := sdk.LevelFromSokoban(l)
	if err != nil {
		t.Fatal(err)
	}
	prep, err := pdb{maxStates: 1 << 30}.Prepare(context.Background(), sl)
	if err != nil {
		t.Fatal(err)
	}
	h, err := enginetables.Heuristic("pdb", b, prep)
	if err != nil {
		t.Fatal(err)
	}
	checked := 0
	for _, p := range db.placed {
		for player, left := range p.left {
			bound, ok, err := engine.LowerBound(b, h, p.boxes, player)
			if err != nil {
				t.Fatal(err)
			}
			if ok && bound > left {
				t.Fatalf("boxes %v, player %d: bound %d over the %d pushes left", p.boxes, player, bound, left)
			}
			checked++
		}
	}
	if checked < 10 {
		t.Fatalf("only %d positions checked", checked)
	}
}
