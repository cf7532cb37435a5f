// Package packing is the built-in "packing" planner: a packing order from
// a reverse search from the goals (Order), then a forward best-first search
// over macro moves guided by that order.
//
// Goal-room levels drown the exhaustive search: it cannot tell which of
// the many ways to fill a room leaves the room fillable. The reverse search
// answers that once, cheaply, by emptying the room; the forward search then
// ranks positions first by how many steps of the order they have done, so
// it dives from one packed box to the next and spends its breadth only on
// clearing the way for the next step. Boxes placed by the plan are locked,
// which removes most of the branching of a nearly full room.
package packing

import (
	"context"
	"fmt"

	"github.com/sokod/sokod/board"
	"github.com/sokod/sokod/sdk"
	"github.com/sokod/sokod/sdk/macro"
)

// Planner is the packing planner. The zero value is ready; each Plan is
// independent.
type Planner struct{}

// New returns the packing planner.
func New() sdk.Planner { return Planner{} }

// Plan solves req.Level within req.Budget, verifying any solution with
// host before returning it.
func (Planner) Plan(ctx context.Context, req *sdk.PlanRequest, host sdk.Host, progress func(sdk.PlanProgress)) (*sdk.PlanResult, error) {
	st, done, err := Start(ctx, req, progress)
	if err != nil {
		return nil, fmt.Errorf("packing: %w", err)
	}
	if done != nil {
		return done, nil
	}
	b, run, plan := st.Board, st.Run, st.Plan
	run.Message = plan.String()
	s := newSearch(b, plan, macro.StoreLimit(req, len(b.StartBoxes), nodeExtra))
	id, reason := s.run(run)
	if id < 0 {
		return macro.GaveUp(run, reason), nil
	}
	res, err := macro.Finish(ctx, s.gen, s.store, id, host)
	if err != nil {
		return nil, fmt.Errorf("packing: %w", err)
	}
	return res, nil
}

// Setup is what a planner over the packing order starts from.
type Setup struct {
	Board *board.Board
	Run   *macro.Run
	Plan  *Plan
}

// Start is the opening the planners over the packing order share: the
// request's board, the run that holds the budget, and the packing order,
// computed within the run's deadline. done, when not nil, is the answer
// already: the board is impossible on its face, or the budget ran out
// before the order was made. err is a bad request.
func Start(ctx context.Context, req *sdk.PlanRequest, progress func(sdk.PlanProgress)) (st *Setup, done *sdk.PlanResult, err error) {
	b, err := macro.Board(ctx, req)
	if err != nil {
		return nil, nil, err
	}
	if b.Impossible != "" {
		return nil, &sdk.PlanResult{Status: sdk.PlanUnsolvable, Reason: b.Impossible}, nil
	}
	run := macro.NewRun(ctx, req, progress)
	octx, cancel := run.Context()
	defer cancel()
	plan := Order(octx, b)
	if plan == nil {
		// The plan's time ran out, or it was cancelled, before the order
		// was made.
		return nil, macro.GaveUp(run, run.Why()), nil
	}
	return &Setup{Board: b, Run: run, Plan: plan}, nil, nil
}

// stepWeight is what one step of the plan done is worth against the
// estimate, in pushes.
const stepWeight = 10

// outOfOrder is the estimate's penalty for a box that stands on the
// square of a later step, ahead of the order.
const outOfOrder = 8

// regionWeight is the estimate's penalty per region of free squares
// beyond the first: boxes that cut the board into pockets tend to end in
// deadlocks the macro search cannot see.
const regionWeight = 10

// nodeExtra is the memory a node takes beyond the store: its steps done,
// boxes on goals and depth, and its open-list entry.
const nodeExtra = 3*2 + 16

// search is one forward search.
type search struct {
	b     *board.Board
	plan  *Plan
	gen   *macro.Gen
	store *macro.Store
	pos   *macro.Pos
	// Per node: the steps of the plan done, the boxes on goals.
	done  []uint16
	goals []uint16
	depth []uint16
	heap  macro.Heap
	seq   uint32
}

func newSearch(b *board.Board, plan *Plan, limit int) *search {
	return &search{b: b, plan: plan, gen: macro.NewGen(b), store: macro.NewStore(len(b.StartBoxes), limit), pos: macro.NewPos(b)}
}

// priority orders positions by steps done (most first), then by the
// estimate of the work left (least first), then newest first, so that
// among equals the search goes deeper.
func (s *search) priority(done, h, depth int) uint64 {
	s.seq++
	f := (len(s.plan.Steps)-done)*stepWeight + h + depth
	return uint64(min(f, 0xFFFFFF))<<32 | uint64(^s.seq)
}

// estimate is the work left in pos with the first k steps done: twice the
// distance of the nearest movable box to the next step's square, plus for
// every movable box its distance to the nearest square of a step to come.
func (s *search) estimate(k int) int {
	p := s.plan
	if k >= len(p.Steps) {
		return 0
	}
	locked := p.Locked[k]
	next := p.Dist[k]
	near, sum := int(board.Inf), 0
	for _, x := range s.pos.Boxes {
		if locked[x] {
			continue
		}
		near = min(near, int(next[x]))
		best := int(board.Inf)
		for j := k; j < len(p.Steps); j++ {
			best = min(best, int(p.Dist[j][x]))
		}
		if best != int(board.Inf) {
			sum += best
		}
		if best == 0 && next[x] != 0 {
			// On the square of a later step: in the way of the steps
			// before it.
			sum += outOfOrder
		}
	}
	if near == int(board.Inf) {
		near = 64
	}
	return 2*near + sum
}

// run searches until a solution (its node) or a reason to stop.
func (s *search) run(run *macro.Run) (int32, string) {
	b := s.b
	s.pos.Set(b.StartBoxes, b.StartPlayer)
	norm := s.gen.Flood(s.pos, b.StartPlayer)
	s.pos.Player = norm
	root := s.store.Add(-1, nil, macro.Hash(b, s.pos.Boxes, norm), s.pos.Boxes, norm)
	k := s.plan.Advance(0, s.pos.BoxAt)
	ong := macro.OnGoals(b, s.pos.Boxes)
	s.done = append(s.done, uint16(k))
	s.goals = append(s.goals, uint16(ong))
	s.depth = append(s.depth, 0)
	run.Best = ong
	if ong == len(b.Goals) {
		return root, ""
	}
	s.heap.Push(macro.Item{Pri: s.priority(k, s.estimate(k), 0), ID: root})
	for s.heap.Len() > 0 {
		if stop, reason := run.Tick(); stop {
			return -1, reason
		}
		id := s.heap.Pop().ID
		s.store.Load(id, s.pos)
		if !s.gen.Matchable(s.pos) || s.gen.CorralDeadlock(s.pos) {
			continue
		}
		k := int(s.done[id])
		ong := int(s.goals[id])
		run.Best = max(run.Best, ong)
		player := s.pos.Player
		moves := s.gen.Generate(s.pos, s.plan.Locked[k])
		for i := range moves {
			if i%256 == 255 && run.Expired() {
				break // the next Tick says why
			}
			m := &moves[i]
			if s.store.Find(m.Hash) >= 0 {
				continue
			}
			s.pos.Apply(m)
			cg := ong
			if b.GoalIndex[m.From] >= 0 {
				cg--
			}
			if b.GoalIndex[m.To] >= 0 {
				cg++
			}
			ck := s.plan.Advance(k, s.pos.BoxAt)
			child := s.store.Add(id, m, m.Hash, s.pos.Boxes, m.Norm)
			if child < 0 {
				s.pos.Undo(m, player)
				return -1, "memory budget spent"
			}
			s.done = append(s.done, uint16(ck))
			s.goals = append(s.goals, uint16(cg))
			s.depth = append(s.depth, s.depth[id]+1)
			if cg == len(b.Goals) {
				return child, ""
			}
			h := s.estimate(ck) + regionWeight*(s.gen.Regions(s.pos)-1)
			s.heap.Push(macro.Item{Pri: s.priority(ck, h, int(s.depth[child])), ID: child})
			s.pos.Undo(m, player)
		}
	}
	return -1, "search space exhausted"
}
