package relocation

import (
	"context"
	"fmt"
	"time"

	"github.com/sokod/sokod/board"
	"github.com/sokod/sokod/sdk"
	"github.com/sokod/sokod/sdk/macro"
	"github.com/sokod/sokod/sokoban"
)

// Relocation: matching a forward position to a reverse one.
//
// A forward position F (reached by pushes from the start) and a reverse
// position R (from which pulls lead back to the solved position) make a
// solution once some pushes take F to R: the boxes onto R's squares, the
// player into R's region. The gap is a sub-task of its own, which goes to
// the host's bounded sub-search with R's squares as its targets.
// Before that, gap estimates how far apart the two are, so the closest
// pairs are tried first, and a pair whose boxes cannot be matched to the
// targets at all is never tried.

// gap estimates the pushes between the boxes of f and the squares of
// targets: the larger of the sum over the boxes of the distance to the
// nearest target and the sum over the targets of the distance from the
// nearest box, by lone-box push distances. ok is false when some box
// reaches no target or some target no box, or the boxes cannot be matched
// one to one to targets they reach.
func (s *static) gap(boxes, targets []uint16) (int, bool) {
	sumB, sumT := 0, 0
	nearB := make([]int, len(boxes))
	for i := range nearB {
		nearB[i] = int(board.Inf)
	}
	dists := make([][]uint16, len(targets))
	for j, t := range targets {
		d := s.distTo(t)
		dists[j] = d
		near := int(board.Inf)
		for i, x := range boxes {
			v := int(d[x])
			near = min(near, v)
			nearB[i] = min(nearB[i], v)
		}
		if near == int(board.Inf) {
			return 0, false
		}
		sumT += near
	}
	for _, v := range nearB {
		if v == int(board.Inf) {
			return 0, false
		}
		sumB += v
	}
	if !matchable(dists, boxes) {
		return 0, false
	}
	return max(sumB, sumT), true
}

// matchable reports whether boxes can be given distinct targets they
// reach (dists[j][box square] finite), by Kuhn's augmenting paths.
func matchable(dists [][]uint16, boxes []uint16) bool {
	boxOf := make([]int, len(dists))
	for j := range boxOf {
		boxOf[j] = -1
	}
	var visited []bool
	var augment func(i int) bool
	augment = func(i int) bool {
		for j := range dists {
			if visited[j] || dists[j][boxes[i]] == board.Inf {
				continue
			}
			visited[j] = true
			if boxOf[j] < 0 || augment(boxOf[j]) {
				boxOf[j] = i
				return true
			}
		}
		return false
	}
	for i := range boxes {
		visited = make([]bool, len(dists))
		if !augment(i) {
			return false
		}
	}
	return true
}

// forwardEnd is a forward position made concrete: the moves from the
// level's start, and the position with the player where they leave it.
type forwardEnd struct {
	moves  sokoban.Solution
	pos    *macro.Pos
	player uint16
}

// forwardTo rebuilds the moves from the start to forward node id.
func (f *forwarder) forwardTo(id int32) (*forwardEnd, error) {
	sol, err := f.g.Solution(f.store, id)
	if err != nil {
		return nil, err
	}
	pos := macro.NewPos(f.b)
	pos.Set(f.b.StartBoxes, f.b.StartPlayer)
	player, err := replay(f.b, pos, f.b.StartPlayer, sol)
	if err != nil {
		return nil, fmt.Errorf("forward moves do not replay: %w", err)
	}
	return &forwardEnd{moves: sol, pos: pos, player: player}, nil
}

// closeGap runs the host's sub-search from fe towards the boxes of reverse
// node rid. It returns the moves of the gap, the player's square after
// them and the reverse node they reach, or ok false when the sub-search
// did not reach the targets with the player in a region the reverse store
// holds for those boxes. nodes is the work the sub-search reports.
func (p *plan) closeGap(ctx context.Context, fe *forwardEnd, rid int32, budget sdk.Budget) (moves sokoban.Solution, player uint16, met int32, nodes uint64, ok bool, err error) {
	b := p.b
	start := sdk.NewStates(len(fe.pos.Boxes), 1)
	start.Append(fe.player, fe.pos.Boxes)
	rb := p.rev.store.Boxes(rid)
	targets := make([]int, len(rb))
	for i, x := range rb {
		targets[i] = int(x)
	}
	res, err := p.host.SubSearch(ctx, start, sdk.SubGoal{Targets: targets}, budget)
	if err != nil {
		return nil, 0, -1, 0, false, err
	}
	if res.Status != sdk.SubGoalReached {
		return nil, 0, -1, res.Nodes, false, nil
	}
	sol, err := sokoban.ParseSolution(res.Moves)
	if err != nil {
		return nil, 0, -1, res.Nodes, false, fmt.Errorf("sub-search moves: %w", err)
	}
	pos := macro.NewPos(b)
	pos.Set(fe.pos.Boxes, 0)
	end, err := replay(b, pos, fe.player, sol)
	if err != nil {
		return nil, 0, -1, res.Nodes, false, fmt.Errorf("sub-search moves do not replay: %w", err)
	}
	// The boxes must stand on the reverse node's squares, and the player
	// in its region.
	for _, x := range rb {
		if pos.BoxAt[x] < 0 {
			return nil, 0, -1, res.Nodes, false, nil
		}
	}
	norm := p.g.Flood(pos, end)
	if !p.g.Reached(p.rev.store.Norm(rid)) {
		// The sub-search aims at squares only, so it may leave the player
		// in another region: a solved position is solved whatever the
		// region, and another reverse node may hold these boxes with the
		// player where the sub-search left it.
		if macro.OnGoals(b, pos.Boxes) == len(b.Goals) {
			return sol, end, rid, res.Nodes, true, nil
		}
		alt := p.rev.store.Find(macro.Hash(b, pos.Boxes, norm))
		if alt < 0 {
			return nil, 0, -1, res.Nodes, false, nil
		}
		rid = alt
	}
	return sol, end, rid, res.Nodes, true, nil
}

// solution joins forward moves, gap moves and the reverse path of node rid
// (the player on square player when it starts) into one LURD text.
func (p *plan) solution(fwd, gap sokoban.Solution, rid int32, player uint16) (string, error) {
	tail, err := p.rev.finish(rid, player)
	if err != nil {
		return "", err
	}
	all := make(sokoban.Solution, 0, len(fwd)+len(gap)+len(tail))
	all = append(all, fwd...)
	all = append(all, gap...)
	all = append(all, tail...)
	return all.String(), nil
}

// remaining is the time left before the plan's deadline, or a long time
// without one.
func (p *plan) remaining() time.Duration {
	if p.deadline.IsZero() {
		return time.Hour
	}
	return time.Until(p.deadline)
}
