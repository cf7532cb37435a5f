// Package hostservice is what the daemon offers a planner during one plan
// (sdk.Host): the primitives only the daemon can give, a bounded
// sub-search with its engine and the verification of a solution, and, for
// planners that do not analyse the level themselves, legal pushes, the
// player's reach and deadlock verdicts in batches. A built-in planner gets
// it in-process; a plugin planner reaches it through the go-plugin broker
// (package pluginclient serves it).
package hostservice

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/sokod/sokod/board"
	"github.com/sokod/sokod/internal/engine"
	"github.com/sokod/sokod/internal/heuristics"
	"github.com/sokod/sokod/sdk"
	"github.com/sokod/sokod/sdk/macro"
	"github.com/sokod/sokod/sokoban"
)

// Service is the host's side of HostService for planners: the primitives
// a planner calls back for during one Plan, over the analysed board of that
// plan's level. It is safe for concurrent use: every call allocates its own
// scratch space, which a batch amortises.
type Service struct {
	b     *engine.Board
	level *sdk.Level
	clock func() time.Time
}

// New returns the host primitives for board b. clock bounds
// sub-searches by time; nil means time.Now.
func New(b *engine.Board, clock func() time.Time) *Service {
	if clock == nil {
		clock = time.Now
	}
	return &Service{b: b, level: sdk.LevelFromBoard(b), clock: clock}
}

// LegalPushes lists, per position, every push the rules allow (the box's
// next square is free floor, the player can reach the square behind it),
// dead ends included: Deadlocked tells those apart. Boxes are taken in the
// position's order, directions in LURD order (macro.Gen.Pushes).
func (h *Service) LegalPushes(ctx context.Context, states sdk.States) (*sdk.PushList, error) {
	g, pos := macro.NewGen(h.b), macro.NewPos(h.b)
	out := &sdk.PushList{Counts: make([]int, states.Len()), Results: sdk.NewStates(states.Boxes, 0)}
	child := make([]uint16, states.Boxes)
	var moves []macro.Move
	for i := range states.Len() {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		boxes := states.BoxSquares(i)
		pos.Set(boxes, states.Player(i))
		moves = g.Pushes(pos, moves[:0])
		for _, m := range moves {
			copy(child, boxes)
			child[m.Box] = m.To
			out.Pushes = append(out.Pushes, sdk.Push{Box: m.From, Dir: sokoban.Direction(m.Side ^ 2)})
			out.Results.Append(m.Norm, child)
		}
		out.Counts[i] = len(moves)
	}
	return out, nil
}

// Reachable returns, per position, the squares the player reaches without
// pushing.
func (h *Service) Reachable(ctx context.Context, states sdk.States) (sdk.SquareSets, error) {
	g, pos := macro.NewGen(h.b), macro.NewPos(h.b)
	sets := sdk.SquareSets{Squares: h.b.Squares}
	sets.Bits = make([]byte, states.Len()*sets.Stride())
	for i := range states.Len() {
		if err := ctx.Err(); err != nil {
			return sdk.SquareSets{}, err
		}
		pos.Set(states.BoxSquares(i), states.Player(i))
		g.Flood(pos, pos.Player)
		row := sets.Bits[i*sets.Stride():]
		for sq := range h.b.Squares {
			if g.Reached(uint16(sq)) {
				row[sq/8] |= 1 << (sq % 8)
			}
		}
	}
	return sets, nil
}

// Deadlocked applies the deadlock tests the built-in planners use (package
// macro), so that a planner in another process gets the same verdicts: a
// box off a goal on a dead square, boxes frozen with one off a goal, boxes
// that cannot all be matched to distinct goals they can reach (with boxes
// frozen on goals as walls), and corrals and empty goals shut for good.
// Each is sound: a position called a deadlock has no solution. The
// engine's PI-corral pruning is a rule for choosing pushes inside its
// search, not a verdict on a position, and is not offered.
func (h *Service) Deadlocked(ctx context.Context, states sdk.States, out []bool) error {
	if len(out) != states.Len() {
		return fmt.Errorf("deadlocked: %d results for %d positions", len(out), states.Len())
	}
	g, pos := macro.NewGen(h.b), macro.NewPos(h.b)
	for i := range states.Len() {
		if err := ctx.Err(); err != nil {
			return err
		}
		pos.Set(states.BoxSquares(i), states.Player(i))
		out[i] = g.Deadlocked(pos)
	}
	return nil
}

// subSearchMemory is a sub-search's memory when its budget names none:
// planners run many small searches, for which the engine's default table
// would be far too large.
const subSearchMemory = 32 << 20

// minSubSearchTable is the least memory worth a sub-search's table.
const minSubSearchTable = 1 << 20

// SubSearch searches from the position in start, with the engine and the
// built-in matching heuristic, until every target square holds a box. The
// engine searches towards a full set of goals, so a sub-goal names exactly
// one target per box; fewer targets, or region limits, are refused with
// sdk.ErrUnsupported until the engine can search towards them.
func (h *Service) SubSearch(ctx context.Context, start sdk.States, goal sdk.SubGoal, budget sdk.Budget) (*sdk.SubSearchResult, error) {
	if start.Len() != 1 {
		return nil, fmt.Errorf("%w: a sub-search starts from 1 position, not %d", sdk.ErrBadRequest, start.Len())
	}
	if len(goal.Regions) > 0 {
		return nil, fmt.Errorf("%w: sub-goals with region limits", sdk.ErrUnsupported)
	}
	targets := slices.Clone(goal.Targets)
	slices.Sort(targets)
	if len(slices.Compact(targets)) != start.Boxes {
		return nil, fmt.Errorf("%w: a sub-goal must name %d distinct targets, one per box, not %d", sdk.ErrUnsupported, start.Boxes, len(goal.Targets))
	}
	boxes := make([]int, start.Boxes)
	for i, x := range start.BoxSquares(0) {
		boxes[i] = int(x)
	}
	slices.Sort(boxes)
	player := int(start.Player(0))
	if _, onBox := slices.BinarySearch(boxes, player); onBox {
		return nil, fmt.Errorf("%w: the player stands on a box", sdk.ErrBadRequest)
	}
	// The sub-goal as a level of its own: the same squares, the position's
	// boxes and player, the targets as goals. Rendering from the squares
	// keeps the numbering, so the answer's squares are the level's.
	sub := &sdk.Level{Width: h.level.Width, Height: h.level.Height, Squares: h.level.Squares, Goals: targets, Boxes: boxes, Player: player}
	sl, err := sokoban.Parse(sub.XSBFromSquares())
	if err != nil {
		return nil, fmt.Errorf("sub-search level: %w", err)
	}
	mem := int64(min(budget.MemoryBytes, 1<<40))
	if mem == 0 {
		mem = subSearchMemory
	}
	// The sub-level's tables come out of the budget, as in a solve; a
	// budget that cannot hold them gives up before they are computed.
	if mem -= engine.SolveBytes(sl); mem < minSubSearchTable {
		return &sdk.SubSearchResult{Status: sdk.SubSearchGaveUp}, nil
	}
	sb, err := board.AnalyzeContext(ctx, sl)
	if err != nil {
		if ctx.Err() != nil {
			return &sdk.SubSearchResult{Status: sdk.SubSearchGaveUp}, nil
		}
		return nil, fmt.Errorf("sub-search level: %w", err)
	}
	opts := engine.Options{
		Objective: engine.ObjectiveAny,
		Heuristic: heuristics.Matching(sb),
		Budget:    engine.Budget{Nodes: int64(min(budget.Nodes, 1<<62)), Memory: mem},
		Clock:     h.clock,
	}
	if budget.Time > 0 {
		opts.Budget.Deadline = h.clock().Add(budget.Time)
	}
	res, err := engine.Solve(ctx, sb, opts)
	if err != nil {
		return nil, fmt.Errorf("sub-search: %w", err)
	}
	out := &sdk.SubSearchResult{Nodes: uint64(res.Stats.Nodes)}
	switch res.Status {
	case engine.Solved:
		out.Status = sdk.SubGoalReached
	case engine.Unsolvable:
		out.Status = sdk.SubGoalUnreachable
		return out, nil
	default:
		out.Status = sdk.SubSearchGaveUp
		return out, nil
	}
	out.Moves = res.Solution.String()
	// Replay the moves on the caller's box order to report the pushes and
	// the end position.
	cur := slices.Clone(start.BoxSquares(0))
	at := uint16(player)
	for _, st := range res.Solution {
		next := h.b.Nbr[int(at)*4+int(st.Dir)]
		if st.Push {
			i := slices.Index(cur, next)
			if i < 0 {
				return nil, fmt.Errorf("sub-search: internal error: push %c from square %d meets no box", st.Byte(), at)
			}
			out.Pushes = append(out.Pushes, sdk.Push{Box: next, Dir: st.Dir})
			cur[i] = h.b.Nbr[int(next)*4+int(st.Dir)]
		}
		at = next
	}
	out.End = sdk.NewStates(start.Boxes, 1)
	out.End.Append(at, cur)
	return out, nil
}

// Verify replays a LURD solution from the level's start with the sokoban
// package's verifier.
func (h *Service) Verify(_ context.Context, solution string) (*sdk.Verification, error) {
	sol, err := sokoban.ParseSolution(solution)
	if err != nil {
		return &sdk.Verification{Error: err.Error()}, nil
	}
	m, err := sokoban.Replay(h.b.Level, sol)
	v := &sdk.Verification{Solved: err == nil && m.Solved, Moves: m.Moves, Pushes: m.Pushes, BoxLines: m.BoxLines, BoxChanges: m.BoxChanges}
	switch {
	case err != nil:
		v.Error = err.Error()
	case !m.Solved:
		v.Error = "every step is legal but the level is not solved at the end"
	}
	return v, nil
}
