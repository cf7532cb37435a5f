package relocation

import (
	"context"
	"fmt"

	"github.com/sokod/sokod/internal/builtin/packing/macro"
	"github.com/sokod/sokod/sdk"
)

// CloseFirstGap runs the phases of a plan by hand for the external tests:
// RPR from the first solved position, then the host's sub-search from the
// start to the closest spread position, and returns the joined solution.
func CloseFirstGap(ctx context.Context, req *sdk.PlanRequest, host sdk.Host) (string, error) {
	b, err := macro.Board(req)
	if err != nil {
		return "", err
	}
	p := newPlan(ctx, req, b, host, nil)
	roots := p.rev.roots()
	if len(roots) == 0 {
		return "", fmt.Errorf("no solved position")
	}
	res := p.rev.rpr(roots[0], func() bool { return false })
	spread := p.spreadCandidates(res)
	pairs := p.pairs([]int32{p.fwd.root}, spread)
	if len(pairs) == 0 {
		return "", fmt.Errorf("no gap whose boxes match (%d spread positions)", len(spread))
	}
	fe, err := p.fwd.forwardTo(p.fwd.root)
	if err != nil {
		return "", err
	}
	gap, player, _, ok, err := p.closeGap(ctx, fe, pairs[0].r, req.Budget)
	if err != nil {
		return "", err
	}
	if !ok {
		return "", fmt.Errorf("the sub-search did not close the gap")
	}
	return p.solution(fe.moves, gap, pairs[0].r, player)
}

// SolveLog runs a plan and returns its result with the plan's log.
func SolveLog(ctx context.Context, req *sdk.PlanRequest, host sdk.Host) (*sdk.PlanResult, []string, error) {
	b, err := macro.Board(req)
	if err != nil {
		return nil, nil, err
	}
	p := newPlan(ctx, req, b, host, nil)
	res, err := p.solve(ctx)
	p.logf("reverse %d forward %d gaps %d/%d", p.rev.store.Len(), p.fwd.store.Len(), p.gapsReached, p.gaps)
	return res, p.log, err
}
