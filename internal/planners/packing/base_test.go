package packing_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/sokod/sokod/board"
	"github.com/sokod/sokod/internal/planners/packing"
	"github.com/sokod/sokod/internal/planners/plannertest"
	"github.com/sokod/sokod/sokoban"
)

// checkPlan replays the plan's steps on squares alone: a step that moves a
// box on must find it on its From square, no step may put a box where one
// stands, and once every step is done the boxes stand on the goals.
func checkPlan(b *board.Board, p *packing.Plan) error {
	held := make([]bool, b.Squares)
	for k, s := range p.Steps {
		if s.From >= 0 {
			if k < p.Unordered {
				return fmt.Errorf("unordered step %d moves a box on from %d", k, s.From)
			}
			if !held[s.From] {
				return fmt.Errorf("step %d moves a box on from %d, where none stands", k, s.From)
			}
			held[s.From] = false
		}
		if held[s.To] {
			return fmt.Errorf("step %d puts a box on %d, where one stands", k, s.To)
		}
		held[s.To] = true
	}
	for sq, h := range held {
		if h != (b.GoalIndex[sq] >= 0) {
			return fmt.Errorf("after the plan, square %d holds a box: %v; is a goal: %v", sq, h, b.GoalIndex[sq] >= 0)
		}
	}
	return nil
}

// TestBaseOrder holds the base search to levels where Order's reverse
// search gets stuck and it orders more goals, and to the fixtures. Every
// plan must replay. The corpus levels need SOKOD_LEVELS.
func TestBaseOrder(t *testing.T) {
	tests := []struct {
		file         string // a fixture, or a corpus collection with level
		level        int
		maxUnordered int
	}{
		{file: "corridor.xsb"},
		{file: "goalroom.xsb"},
		{file: "rooms.xsb"},
		// Order leaves 15 of 18 goals unordered.
		{file: "xsokoban90.xsb", level: 69},
		// Order leaves 14 of 18.
		{file: "xsokoban90.xsb", level: 66, maxUnordered: 8},
		// Order leaves 19 of 20.
		{file: "sasquatch1.xsb", level: 31, maxUnordered: 1},
		// Order leaves 17 of 23. The goals' boxes must be pulled away
		// from the goals before any can leave.
		{file: "xsokoban90.xsb", level: 88},
		// Order leaves 14 of 16. The goals are a corridor whose one way
		// out takes a single box; the rest must first be pulled the other
		// way, into a dead end away from the goals.
		{file: "sasquatch1.xsb", level: 36},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("%s/%d", tt.file, tt.level), func(t *testing.T) {
			var l *sokoban.Level
			if tt.level == 0 {
				l = plannertest.Fixture(t, tt.file)
			} else {
				l = plannertest.Corpus(t, tt.file).Levels[tt.level-1]
			}
			b, err := board.Analyze(l)
			if err != nil {
				t.Fatal(err)
			}
			p := packing.BaseOrder(context.Background(), b, 0)
			if p == nil {
				t.Fatal("no plan")
			}
			if p.Unordered > tt.maxUnordered {
				t.Errorf("%d of %d steps unordered, want at most %d", p.Unordered, len(p.Steps), tt.maxUnordered)
			}
			if err := checkPlan(b, p); err != nil {
				t.Error(err)
			}
		})
	}
}

// TestPlansReplay checks Order's plan of every level of the corpus
// collections TestOrderCorpus takes levels from. Needs SOKOD_LEVELS.
func TestPlansReplay(t *testing.T) {
	for _, file := range []string{"xsokoban90.xsb", "sasquatch1.xsb"} {
		c := plannertest.Corpus(t, file)
		for i, l := range c.Levels {
			b, err := board.Analyze(l)
			if err != nil {
				t.Fatal(err)
			}
			if err := checkPlan(b, packing.Order(context.Background(), b)); err != nil {
				t.Errorf("%s %d: %v", file, i+1, err)
			}
		}
	}
}
