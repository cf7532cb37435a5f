package packing_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/sokod/sokod/board"
	"github.com/sokod/sokod/internal/planners/packing"
	"github.com/sokod/sokod/internal/planners/plannertest"
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
