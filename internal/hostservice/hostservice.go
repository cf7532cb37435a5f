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

// scratch is one position laid out for walking the board.
type scratch struct {
	occ   []bool   // box on square; the wall sentinel counts as occupied
	seen  []bool   // reached by the player
	stack []uint16 // walk stack
}

func (h *Service) newScratch() *scratch {
	n := h.b.Squares + 1
	return &scratch{occ: make([]bool, n), seen: make([]bool, n), stack: make([]uint16, 0, n)}
}

// place makes boxes the occupied squares.
func (s *scratch) place(b *engine.Board, boxes []uint16) {
	clear(s.occ)
	s.occ[b.Squares] = true
	for _, x := range boxes {
		s.occ[x] = true
	}
}

// walk marks the squares the player on from reaches without pushing and
// returns the smallest of them, the normalised player square.
func (s *scratch) walk(b *engine.Board, from uint16) uint16 {
	clear(s.seen)
	s.seen[from] = true
	s.stack = append(s.stack[:0], from)
	least := from
	for len(s.stack) > 0 {
		q := s.stack[len(s.stack)-1]
		s.stack = s.stack[:len(s.stack)-1]
		for d := range 4 {
			n := b.Nbr[int(q)*4+d]
			if !s.occ[n] && !s.seen[n] {
				s.seen[n] = true
				least = min(least, n)
				s.stack = append(s.stack, n)
			}
		}
	}
	return least
}

// LegalPushes lists, per position, every push the rules allow (the box's
// next square is free floor, the player can reach the square behind it),
// dead ends included: Deadlocked tells those apart. Boxes are taken in the
// position's order, directions in LURD order.
func (h *Service) LegalPushes(ctx context.Context, states sdk.States) (*sdk.PushList, error) {
	b := h.b
	s := h.newScratch()
	out := &sdk.PushList{Counts: make([]int, states.Len()), Results: sdk.NewStates(states.Boxes, 0)}
	child := make([]uint16, states.Boxes)
	for i := range states.Len() {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		boxes := states.BoxSquares(i)
		s.place(b, boxes)
		s.walk(b, states.Player(i))
		reach := slices.Clone(s.seen)
		for bi, x := range boxes {
			for d := range 4 {
				to, behind := b.Nbr[int(x)*4+d], b.Nbr[int(x)*4+d^2]
				if s.occ[to] || int(behind) >= b.Squares || !reach[behind] {
					continue
				}
				copy(child, boxes)
				child[bi] = to
				s.occ[x], s.occ[to] = false, true
				norm := s.walk(b, x)
				s.occ[x], s.occ[to] = true, false
				out.Pushes = append(out.Pushes, sdk.Push{Box: x, Dir: sokoban.Direction(d)})
				out.Results.Append(norm, child)
				out.Counts[i]++
			}
		}
	}
	return out, nil
}

// Reachable returns, per position, the squares the player reaches without
// pushing.
func (h *Service) Reachable(ctx context.Context, states sdk.States) (sdk.SquareSets, error) {
	b := h.b
	s := h.newScratch()
	sets := sdk.SquareSets{Squares: b.Squares}
	sets.Bits = make([]byte, states.Len()*sets.Stride())
	for i := range states.Len() {
		if err := ctx.Err(); err != nil {
			return sdk.SquareSets{}, err
		}
		s.place(b, states.BoxSquares(i))
		s.walk(b, states.Player(i))
		row := sets.Bits[i*sets.Stride():]
		for sq := range b.Squares {
			if s.seen[sq] {
				row[sq/8] |= 1 << (sq % 8)
			}
		}
	}
	return sets, nil
}

// Deadlocked applies the deadlock tests that need no search state: a box
// off a goal on a dead square, and boxes that cannot all be matched to
// distinct goals they can reach (the bipartite deadlock). The engine's
// frozen-box and PI-corral tests run inside its search and are not exported
// to planners yet.
func (h *Service) Deadlocked(ctx context.Context, states sdk.States, out []bool) error {
	if len(out) != states.Len() {
		return fmt.Errorf("deadlocked: %d results for %d positions", len(out), states.Len())
	}
	m := newBipartite(h.b, states.Boxes)
	for i := range states.Len() {
		if err := ctx.Err(); err != nil {
			return err
		}
		boxes := states.BoxSquares(i)
		out[i] = false
		for _, x := range boxes {
			if h.b.Dead[x] && h.b.GoalIndex[x] < 0 {
				out[i] = true
				break
			}
		}
		if !out[i] {
			out[i] = !m.perfect(boxes)
		}
	}
	return nil
}

// bipartite finds whether every box can be given its own goal that it can
// reach by pushes on an otherwise empty board (Board.Dist), by Kuhn's
// augmenting paths: O(boxes^2 x goals) per position, small next to an RPC.
type bipartite struct {
	b       *engine.Board
	goalOf  []int // goal matched to box i, -1
	boxOf   []int // box matched to goal j, -1
	visited []bool
}

func newBipartite(b *engine.Board, boxes int) *bipartite {
	return &bipartite{b: b, goalOf: make([]int, boxes), boxOf: make([]int, len(b.Goals)), visited: make([]bool, len(b.Goals))}
}

func (m *bipartite) perfect(boxes []uint16) bool {
	for i := range m.goalOf {
		m.goalOf[i] = -1
	}
	for j := range m.boxOf {
		m.boxOf[j] = -1
	}
	for i := range boxes {
		clear(m.visited)
		if !m.augment(boxes, i) {
			return false
		}
	}
	return true
}

func (m *bipartite) augment(boxes []uint16, i int) bool {
	g := len(m.b.Goals)
	for j := range g {
		if m.visited[j] || m.b.Dist[int(boxes[i])*g+j] == engine.Inf {
			continue
		}
		m.visited[j] = true
		if m.boxOf[j] < 0 || m.augment(boxes, m.boxOf[j]) {
			m.goalOf[i], m.boxOf[j] = j, i
			return true
		}
	}
	return false
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
