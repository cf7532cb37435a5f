package relocation

import (
	"context"
	"fmt"

	"github.com/sokod/sokod/board"
	"github.com/sokod/sokod/sdk"
	"github.com/sokod/sokod/sdk/macro"
)

// CloseFirstGap runs the phases of a plan by hand for the external tests:
// RPR from the first solved position, then the host's sub-search from the
// start to the closest spread position, and returns the joined solution.
func CloseFirstGap(ctx context.Context, req *sdk.PlanRequest, host sdk.Host) (string, error) {
	b, err := macro.Board(ctx, req)
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
	gap, player, met, _, ok, err := p.closeGap(ctx, fe, pairs[0].r, req.Budget)
	if err != nil {
		return "", err
	}
	if !ok {
		return "", fmt.Errorf("the sub-search did not close the gap")
	}
	return p.solution(fe.moves, gap, met, player)
}

// SolveLog runs a plan and returns its result with the plan's log.
func SolveLog(ctx context.Context, req *sdk.PlanRequest, host sdk.Host) (*sdk.PlanResult, []string, error) {
	b, err := macro.Board(ctx, req)
	if err != nil {
		return nil, nil, err
	}
	p := newPlan(ctx, req, b, host, nil)
	res, err := p.solve(ctx)
	p.logf("%s", p.run.Message)
	if p.ra != nil {
		best, bestE := int32(-1), int32(1<<30)
		for id, e := range p.ra.est {
			if e >= 0 && e < bestE {
				best, bestE = int32(id), e
			}
		}
		pos := macro.NewPos(b)
		p.fwd.store.Load(p.ra.a.fid, pos)
		p.logf("aim (forward node %d):\n%s", p.ra.a.fid, render(b, pos))
		if best >= 0 {
			p.rev.store.Load(best, pos)
			p.logf("closest reverse node %d, estimate %d, %d regions:\n%s", best, bestE, p.rev.regionsOf(best), render(b, pos))
		}
	}
	return res, p.log, err
}

// render draws pos, the player's region marked with +.
func render(b *board.Board, pos *macro.Pos) string {
	g := macro.NewGen(b)
	g.Flood(pos, pos.Player)
	var out []byte
	for y := range b.Height {
		for x := range b.Width {
			s := b.SquareOf[y*b.Width+x]
			ch := byte('#')
			if s >= 0 {
				sq := uint16(s)
				switch {
				case pos.BoxAt[sq] >= 0 && b.GoalIndex[sq] >= 0:
					ch = '*'
				case pos.BoxAt[sq] >= 0:
					ch = '$'
				case g.Reached(sq) && b.GoalIndex[sq] >= 0:
					ch = '+'
				case g.Reached(sq):
					ch = '-'
				case b.GoalIndex[sq] >= 0:
					ch = '.'
				default:
					ch = ' '
				}
			}
			out = append(out, ch)
		}
		out = append(out, '\n')
	}
	return string(out)
}

// RootGaps runs the host's sub-search from the start to each solved
// position (one per region the player may end in) and returns, per root,
// whether the gap closed with a solution the host verified.
func RootGaps(ctx context.Context, req *sdk.PlanRequest, host sdk.Host) ([]bool, error) {
	b, err := macro.Board(ctx, req)
	if err != nil {
		return nil, err
	}
	p := newPlan(ctx, req, b, host, nil)
	var out []bool
	for _, r := range p.rev.roots() {
		res, err := p.tryGap(ctx, pairKey{p.fwd.root, r}, req.Budget.Time)
		if err != nil {
			return nil, err
		}
		out = append(out, res != nil && res.Status == sdk.PlanSolved)
	}
	return out, nil
}
