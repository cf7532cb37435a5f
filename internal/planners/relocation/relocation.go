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
//     moves from the start towards a position with one region of free
//     squares (one corral). A forward position that the reverse store
//     holds is a solution at once.
//  4. Relocation (relocate.go, aims.go, gap.go, search.go): first the
//     host's plain search from the opened position to the solved one
//     (host.SubSearch with the goals as targets, twice a gap's share),
//     then the direct gaps, from the opened forward positions to the
//     spread ones, closest first, each given to the host's bounded
//     sub-search (the reverse position's squares as targets; the gap
//     closes wherever the sub-search leaves the player if the reverse
//     store holds the boxes with the player there). Then
//     three activities share the time: a reverse search over pull routes
//     towards the opened position's boxes (Holland's "box aims"), a
//     forward search over macro pushes towards the most spread reverse
//     position, and gaps between them: a bounded macro search from the
//     opened position towards the reverse position closest to it, and
//     host sub-searches to the closest ones with one region. Any forward
//     position the reverse store holds (or reverse position the forward
//     store holds) is a solution: the forward moves, the gap, and the
//     reverse variation played backwards as pushes.
//
// Every solution is rebuilt to LURD and verified by the host before it is
// returned; without one, the plan gives up saying how far it got.
//
// Where it is simpler than Holland: RFS takes the pull access of all boxes
// at once and gives external corrals no free space of their own; RPR goes
// on past the first spread position with one corral; RSB shuffles one box
// by one pull route, not chains; the tree searches of RPRT become the
// reverse search with box aims; the stage that matches box counts per
// dynamic reversible region before exact positions is left to the aim
// searches' matching estimate; one-way doors (s1-doors, s1-ways) are not
// used; and the stacking order is not turned into forward deadlock
// knowledge beyond what the meeting of the two sides gives.
package relocation

import (
	"context"
	"fmt"
	"time"

	"github.com/sokod/sokod/board"
	"github.com/sokod/sokod/sdk"
	"github.com/sokod/sokod/sdk/macro"
)

// Planner is the relocation planner. The zero value is ready; each Plan is
// independent.
type Planner struct{}

// New returns the relocation planner.
func New() sdk.Planner { return Planner{} }

// Plan solves req.Level within req.Budget, verifying any solution with
// host before returning it.
func (Planner) Plan(ctx context.Context, req *sdk.PlanRequest, host sdk.Host, progress func(sdk.PlanProgress)) (*sdk.PlanResult, error) {
	b, err := macro.Board(ctx, req)
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
// (estimate, depth, counts) and entries in up to three open lists.
const nodeExtra = 4 + 2 + 2 + 2 + 3*16

// subNodesPerTick converts a sub-search's expansions into the plan's
// node units (one per macro expansion), for a plan with a node budget.
const subNodesPerTick = 100

// plan is one Plan call.
type plan struct {
	b        *board.Board
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
	// log collects lines for tests that look inside a plan; ra is the
	// reverse aim search, for them too.
	log []string
	ra  *aimSearch
}

// logf adds a line to the plan's log.
func (p *plan) logf(format string, args ...any) { p.log = append(p.log, fmt.Sprintf(format, args...)) }

func newPlan(ctx context.Context, req *sdk.PlanRequest, b *board.Board, host sdk.Host, progress func(sdk.PlanProgress)) *plan {
	p := &plan{b: b, req: req, host: host, run: macro.NewRun(ctx, req, progress), g: macro.NewGen(b)}
	if req.Budget.Time > 0 {
		p.deadline = time.Now().Add(req.Budget.Time)
	}
	p.st = newStatic(b)
	// The two stores get three quarters of the memory; the host's
	// sub-searches at most the last quarter (subBudget), the gap search's
	// visited set a bounded amount (maxVisited).
	limit := macro.StoreLimit(req, len(b.StartBoxes), nodeExtra) * 3 / 8
	p.rev = newReverser(b, p.st, limit)
	p.rev.expired = p.run.Expired
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
	return macro.Verified(ctx, p.host, lurd)
}
