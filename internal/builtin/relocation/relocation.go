// Package relocation is the built-in "relocation" planner: a scoped version
// of David Holland's limited search for Sokoban (Sokoban Wiki, "DHolland
// S3": reverse free space, reverse pull routes, shuffles, and relocation
// sub-tasks).
//
// A plan runs in phases, all within one budget:
//
//  1. Static knowledge (static.go): the one-box maze over (square, player
//     side) states gives the reverse exclusion zone, goal traps and the
//     digraph of push-reversible regions with their box-count
//     restrictions, used as extra deadlock knowledge forwards and
//     backwards, and lone-box push distances.
//  2. Reverse spread (rfs.go, rpr.go): from the solved position, once per
//     region the player may end in, RFS picks free-space squares and RPR
//     pulls the boxes out to them one pull route at a time, shuffling
//     parked boxes (RSB) when a box is stuck. Every position of the
//     variation is stored; read forwards, the variation is a stacking
//     order that ends on the goals.
//  3. Forward opening (forward.go): a best-first search over box macro
//     moves from the start towards positions with one region of free
//     squares (one corral). A forward position that the reverse store
//     holds is a solution at once.
//  4. Relocation (relocate.go, search.go): pairs of a forward and a
//     reverse position, closest first by lone-box push distances, go to
//     the host's bounded sub-search (host.SubSearch, the reverse
//     position's squares as targets); the gap's pushes join the forward
//     moves and the reverse variation played backwards. When the direct
//     gaps fail, a reverse search over pull routes aims at the forward
//     position's boxes (Holland's "box aims"), and its positions become
//     new gaps to close, each sub-search budget growing round by round.
//
// Every solution is rebuilt to LURD and verified by the host before it is
// returned; without one, the plan gives up saying how far it got.
//
// Where it is simpler than Holland: see the comments of each phase. In
// short, RPR's tree searches (RPRT) become one reverse best-first search
// towards the forward position, one-way doors and circuits beyond RFS are
// left out, and the matching of region counts before exact positions is
// folded into the sub-search's own heuristic.
package relocation

import (
	"context"
	"fmt"
	"time"

	"github.com/sokod/sokod/internal/builtin/packing/macro"
	"github.com/sokod/sokod/internal/engine"
	"github.com/sokod/sokod/sdk"
)

// Planner is the relocation planner. The zero value is ready; each Plan is
// independent.
type Planner struct{}

// New returns the relocation planner.
func New() sdk.Planner { return Planner{} }

// Plan solves req.Level within req.Budget, verifying any solution with
// host before returning it.
func (Planner) Plan(ctx context.Context, req *sdk.PlanRequest, host sdk.Host, progress func(sdk.PlanProgress)) (*sdk.PlanResult, error) {
	b, err := macro.Board(req)
	if err != nil {
		return nil, fmt.Errorf("relocation: %w", err)
	}
	if b.Impossible != "" {
		return &sdk.PlanResult{Status: sdk.PlanUnsolvable, Reason: b.Impossible}, nil
	}
	p := newPlan(ctx, req, b, host, progress)
	res, err := p.solve(ctx)
	if err != nil {
		return nil, fmt.Errorf("relocation: %w", err)
	}
	return res, nil
}

// nodeExtra is the memory a node takes beyond its store: per-node data
// and an open-list entry.
const nodeExtra = 4 + 16

// subNodesPerTick converts a sub-search's expansions into the plan's
// node units (one per macro expansion), for a plan with a node budget.
const subNodesPerTick = 100

// plan is one Plan call.
type plan struct {
	b        *engine.Board
	req      *sdk.PlanRequest
	host     sdk.Host
	run      *macro.Run
	deadline time.Time
	st       *static
	g        *macro.Gen
	rev      *reverser
	fwd      *forwarder
	// subErr is set when a sub-search failed.
	subErr string
	// Counters for the final report.
	gaps, gapsReached int
	// log collects lines for tests that look inside a plan.
	log []string
}

// logf adds a line to the plan's log.
func (p *plan) logf(format string, args ...any) { p.log = append(p.log, fmt.Sprintf(format, args...)) }

func newPlan(ctx context.Context, req *sdk.PlanRequest, b *engine.Board, host sdk.Host, progress func(sdk.PlanProgress)) *plan {
	p := &plan{b: b, req: req, host: host, run: macro.NewRun(ctx, req, progress), g: macro.NewGen(b)}
	if req.Budget.Time > 0 {
		p.deadline = time.Now().Add(req.Budget.Time)
	}
	p.st = newStatic(b)
	limit := macro.StoreLimit(req, len(b.StartBoxes), nodeExtra) / 2
	p.rev = newReverser(b, p.st, limit)
	p.fwd = newForwarder(b, p.st, limit)
	return p
}

// gaveUp is the result of a plan that stopped without a solution.
func (p *plan) gaveUp(reason string) *sdk.PlanResult {
	if p.subErr != "" {
		reason += "; a sub-search failed: " + p.subErr
	}
	res := macro.GaveUp(p.run, reason)
	res.Reason += fmt.Sprintf(" (%d reverse and %d forward positions, %d of %d gaps closed)",
		p.rev.store.Len(), p.fwd.store.Len(), p.gapsReached, p.gaps)
	return res
}

// meet turns a forward node whose position reverse node rid holds into a
// verified result, or nil.
func (p *plan) meet(ctx context.Context, fid, rid int32) (*sdk.PlanResult, error) {
	fe, err := p.fwd.forwardTo(fid)
	if err != nil {
		return nil, err
	}
	lurd, err := p.solution(fe.moves, nil, rid, fe.player)
	if err != nil {
		return nil, err
	}
	return p.verified(ctx, lurd)
}
