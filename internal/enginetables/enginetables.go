// Package enginetables converts between the plugin protocol's levels and
// tables (package sdk) and the engine's (package engine), both ways: the
// host sends engine boards to plugins and runs their tables natively, and
// the plugins serving built-ins analyse protocol levels with the engine.
//
// The protocol numbers squares as the engine does (interior squares in
// row-major order), so cost rows carry over unchanged. Only the refinement
// of costs by the player's position differs: the engine labels the regions
// around a box from its depth-first analysis of the board (Board.Region),
// which is not something another language could reproduce, so the protocol
// names them by side instead, the first direction whose neighbour the
// player can reach (sdk.HeuristicTables.SideCosts), and this package maps
// one to the other through the neighbours of each square.
package enginetables

import (
	"context"
	"fmt"
	"slices"

	"github.com/sokod/sokod/internal/engine"
	"github.com/sokod/sokod/sdk"
)

// Tables converts a compiled engine heuristic to the protocol's tables.
func Tables(b *engine.Board, h *engine.Heuristic) (*sdk.HeuristicTables, error) {
	var rule sdk.Rule
	switch h.Rule {
	case engine.RuleSumMin:
		rule = sdk.RuleSumOfMinima
	case engine.RuleGreedy:
		rule = sdk.RuleGreedy
	case engine.RuleMatching:
		rule = sdk.RuleMatching
	default:
		return nil, fmt.Errorf("heuristic %s: rule %v has no protocol equivalent", h.Name, h.Rule)
	}
	g := len(b.Goals)
	// The engine may append a sentinel row for the wall square; the
	// protocol's table has exactly one row per square.
	n := b.Squares * g
	t := &sdk.HeuristicTables{Costs: slices.Clone(h.Costs[:n]), Rule: rule}
	for _, p := range h.Penalties {
		sq := make([]int, len(p.Squares))
		for i, s := range p.Squares {
			sq[i] = int(s)
		}
		t.Penalties = append(t.Penalties, sdk.Penalty{Squares: sq, Cost: p.Cost})
	}
	if len(h.RegionCosts) > 0 {
		t.SideCosts = make([]uint16, b.Squares*sdk.Sides*g)
		for sq := range b.Squares {
			for k := range sdk.Sides {
				row := t.SideCosts[(sq*sdk.Sides+k)*g:][:g]
				nb := b.Nbr[sq*4+k]
				if int(nb) >= b.Squares {
					fill(row, sdk.Unreachable) // a wall: never the player's side
					continue
				}
				region := int(b.Region(uint16(sq), nb))
				copy(row, h.RegionCosts[(sq*engine.Regions+region)*g:][:g])
			}
		}
	}
	return t, nil
}

// Heuristic converts prepared protocol tables (validated by the SDK) to the
// engine's form for board b, penalty patterns included: the engine adds
// them to the combined costs per push, and the plugin's admissibility
// covers both.
// A heuristic that answers in batches instead becomes an engine heuristic
// with an Estimator (an Estimator of this package) and no tables.
func Heuristic(name string, b *engine.Board, prep *sdk.PreparedHeuristic) (*engine.Heuristic, error) {
	t := prep.Tables
	if t == nil {
		if prep.Estimator == nil {
			return nil, fmt.Errorf("heuristic %s: prepared with neither tables nor an estimator", name)
		}
		return &engine.Heuristic{Name: name, Admissible: prep.Admissible, Estimator: Estimator{prep.Estimator}}, nil
	}
	var rule engine.Rule
	switch t.Rule {
	case sdk.RuleSumOfMinima:
		rule = engine.RuleSumMin
	case sdk.RuleGreedy:
		rule = engine.RuleGreedy
	case sdk.RuleMatching:
		rule = engine.RuleMatching
	default:
		return nil, fmt.Errorf("heuristic %s: unknown rule %v", name, t.Rule)
	}
	h := &engine.Heuristic{Name: name, Costs: t.Costs, Rule: rule, Admissible: prep.Admissible}
	for _, p := range t.Penalties {
		h.Penalties = append(h.Penalties, engine.Penalty{Squares: squares16(p.Squares), Cost: p.Cost})
	}
	if len(t.SideCosts) > 0 {
		h.RegionCosts = RegionCosts(b, t.SideCosts)
	}
	return h, nil
}

// RegionCosts maps side costs (sdk.HeuristicTables.SideCosts) to the
// engine's region costs (engine.Heuristic.RegionCosts): the engine's row for
// a box on sq with the player in region r is the side row of the first
// neighbour of sq in r. Regions next to no neighbour can never hold the
// player and get unreachable rows.
func RegionCosts(b *engine.Board, side []uint16) []uint16 {
	g := len(b.Goals)
	out := make([]uint16, b.Squares*engine.Regions*g)
	fill(out, engine.Inf)
	for sq := range b.Squares {
		for k := sdk.Sides - 1; k >= 0; k-- { // the first side wins: write it last
			nb := b.Nbr[sq*4+k]
			if int(nb) >= b.Squares {
				continue
			}
			region := int(b.Region(uint16(sq), nb))
			copy(out[(sq*engine.Regions+region)*g:][:g], side[(sq*sdk.Sides+k)*g:][:g])
		}
	}
	return out
}

func fill(s []uint16, v uint16) {
	for i := range s {
		s[i] = v
	}
}

// Deadlocks converts a detector's tables (validated by the SDK) to the
// engine's form. External knowledge is untrusted: the engine prunes by it
// but claims no proof that rests on it.
func Deadlocks(name string, t *sdk.DeadlockTables) *engine.Deadlocks {
	d := &engine.Deadlocks{Name: name, Dead: squares16(t.DeadSquares)}
	for _, s := range t.Sets {
		// sdk directions count from 1, AnyDirection being 0; the engine's
		// are sokoban's, from 0, with -1 for any.
		d.Sets = append(d.Sets, engine.DeadlockSet{Squares: squares16(s.Squares), Capacity: s.Capacity, LastPush: int8(s.LastPush) - 1})
	}
	for _, l := range t.Limits {
		d.Limits = append(d.Limits, engine.RegionLimit{Squares: squares16(l.Squares), AtMost: l.Bound == sdk.AtMost, Boxes: l.Boxes})
	}
	return d
}

func squares16(sq []int) []uint16 {
	out := make([]uint16, len(sq))
	for i, s := range sq {
		out[i] = uint16(s)
	}
	return out
}

// Estimator runs a plugin's batch heuristic in the engine: the engine
// packs positions as the protocol does (player, then boxes), so batches
// pass through unchanged.
type Estimator struct{ sdk.Estimator }

// Estimate implements engine.Estimator.
func (e Estimator) Estimate(ctx context.Context, states engine.Batch, out []uint32) error {
	return e.Estimator.Estimate(ctx, sdk.States{Boxes: states.Boxes, Data: states.Data}, out)
}

// Checker runs a plugin's batch deadlock detector in the engine.
type Checker struct{ sdk.Checker }

// Check implements engine.Checker.
func (c Checker) Check(ctx context.Context, states engine.Batch, out []bool) error {
	return c.Checker.Check(ctx, sdk.States{Boxes: states.Boxes, Data: states.Data}, out)
}
