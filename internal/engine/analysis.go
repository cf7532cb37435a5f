package engine

import (
	"context"
	"fmt"
	"slices"
)

// This file checks one given position with the search's own tests, for
// callers that draw a level (the daemon's Analyze) rather than search it.
// None of it is on the search's hot path.

// checkPosition validates a position of b: one box per goal on distinct
// interior squares, the player on an interior square without a box.
func checkPosition(b *Board, boxes []uint16, player uint16) error {
	if len(boxes) != len(b.Goals) {
		return fmt.Errorf("engine: %d boxes in the position but %d goals", len(boxes), len(b.Goals))
	}
	occupied := make([]bool, b.Squares)
	for _, sq := range boxes {
		if int(sq) >= b.Squares {
			return fmt.Errorf("engine: a box on square %d, outside the %d interior squares", sq, b.Squares)
		}
		if occupied[sq] {
			x, y := b.XY(sq)
			return fmt.Errorf("engine: two boxes at column %d, row %d", x+1, y+1)
		}
		occupied[sq] = true
	}
	if int(player) >= b.Squares {
		return fmt.Errorf("engine: the player on square %d, outside the %d interior squares", player, b.Squares)
	}
	if occupied[player] {
		x, y := b.XY(player)
		return fmt.Errorf("engine: the player and a box both at column %d, row %d", x+1, y+1)
	}
	return nil
}

// LowerBound evaluates h on one position of b: the boxes on the given
// squares, the player on square player. ok is false when the bound is
// infinite (h finds the position deadlocked: for the matching rule, the
// boxes cannot all reach distinct goals).
func LowerBound(b *Board, h *Heuristic, boxes []uint16, player uint16) (bound int, ok bool, err error) {
	return LowerBoundContext(context.Background(), b, h, boxes, player)
}

// LowerBoundContext is LowerBound that stops when ctx ends, with ctx's
// error: the matching of thousands of boxes takes seconds.
func LowerBoundContext(ctx context.Context, b *Board, h *Heuristic, boxes []uint16, player uint16) (bound int, ok bool, err error) {
	if err := h.check(b); err != nil {
		return 0, false, err
	}
	if err := checkPosition(b, boxes, player); err != nil {
		return 0, false, err
	}
	if h.Estimator != nil {
		return estimateOne(ctx, h, boxes, player)
	}
	e := newEvaluator(b, h, len(boxes))
	if e.m != nil {
		e.m.done = ctx.Done()
	}
	v := e.sync(boxes, player)
	if err := ctx.Err(); err != nil {
		return 0, false, err
	}
	if v >= infCost {
		return 0, false, nil
	}
	return v, true, nil
}

// DeadlockKind says which test found a position deadlocked.
type DeadlockKind uint8

// The deadlock kinds FindDeadlock reports.
const (
	// NoDeadlock: none of the tests found one.
	NoDeadlock DeadlockKind = iota
	// DeadSquare: a box stands on a dead square.
	DeadSquare
	// Freeze: boxes that can never move again, one of them off a goal.
	Freeze
	// Bipartite: the heuristic's bound is infinite; for the matching rule,
	// the boxes cannot all reach distinct goals.
	Bipartite
)

// String names the kind.
func (k DeadlockKind) String() string {
	switch k {
	case NoDeadlock:
		return "none"
	case DeadSquare:
		return "dead square"
	case Freeze:
		return "freeze"
	case Bipartite:
		return "bipartite"
	}
	return fmt.Sprintf("DeadlockKind(%d)", uint8(k))
}

// Deadlock is a deadlock found in a position.
type Deadlock struct {
	Kind DeadlockKind
	// Boxes are the squares of the boxes involved: the box on the dead
	// square, the frozen group; none for Bipartite.
	Boxes []uint16
}

// FindDeadlock applies to one position the deadlock tests the search uses
// on every push: dead squares, the freeze test, and an infinite bound of h
// (pass the matching heuristic for the bipartite test). It reports the
// first it finds, in that order.
func FindDeadlock(b *Board, h *Heuristic, boxes []uint16, player uint16) (Deadlock, error) {
	return FindDeadlockContext(context.Background(), b, h, boxes, player)
}

// FindDeadlockContext is FindDeadlock that stops when ctx ends, with ctx's
// error.
func FindDeadlockContext(ctx context.Context, b *Board, h *Heuristic, boxes []uint16, player uint16) (Deadlock, error) {
	if err := checkPosition(b, boxes, player); err != nil {
		return Deadlock{}, err
	}
	for _, sq := range boxes {
		if b.Dead[sq] {
			return Deadlock{Kind: DeadSquare, Boxes: []uint16{sq}}, nil
		}
	}
	// The freeze test is a searcher method over the searcher's position; a
	// searcher holding just what it reads runs it on this position.
	n := b.Squares
	s := &searcher{b: b, nbr: b.Nbr, wall: uint16(n)}
	s.boxAt = make([]int16, n+1)
	for i := range s.boxAt {
		s.boxAt[i] = -1
	}
	s.boxAt[n] = -2
	for i, sq := range boxes {
		s.boxAt[sq] = int16(i)
	}
	s.fmark = make([]uint32, n+1)
	s.fstack = make([]uint16, 0, len(boxes)+1)
	for _, sq := range boxes {
		if s.freezeDeadlock(sq) {
			group := slices.Clone(s.fstack)
			slices.Sort(group)
			return Deadlock{Kind: Freeze, Boxes: group}, nil
		}
	}
	_, ok, err := LowerBoundContext(ctx, b, h, boxes, player)
	if err != nil {
		return Deadlock{}, err
	}
	if !ok {
		return Deadlock{Kind: Bipartite}, nil
	}
	return Deadlock{Kind: NoDeadlock}, nil
}

// Evaluator evaluates a compiled heuristic on many positions of one board,
// one after another, reusing its work between them (the matching is
// repaired for the boxes that moved, not solved afresh): what a plugin
// that serves a built-in bound in batches needs. Not safe for concurrent
// use.
type Evaluator struct {
	b     *Board
	e     *evaluator
	seen  []uint32 // per square, the stamp of the last position with a box there
	stamp uint32
}

// NewEvaluator returns an evaluator of h on b.
func NewEvaluator(b *Board, h *Heuristic) (*Evaluator, error) {
	if err := h.check(b); err != nil {
		return nil, err
	}
	if h.Estimator != nil {
		return nil, fmt.Errorf("engine: heuristic %q has no tables to evaluate", h.Name)
	}
	return &Evaluator{b: b, e: newEvaluator(b, h, len(b.Goals)), seen: make([]uint32, b.Squares)}, nil
}

// Bound is LowerBound on the evaluator's board and heuristic.
func (v *Evaluator) Bound(boxes []uint16, player uint16) (bound int, ok bool, err error) {
	if len(boxes) != len(v.b.Goals) {
		return 0, false, fmt.Errorf("engine: %d boxes in the position but %d goals", len(boxes), len(v.b.Goals))
	}
	v.stamp++
	if v.stamp == 0 { // wrapped: old stamps could match again
		clear(v.seen)
		v.stamp = 1
	}
	for _, sq := range boxes {
		if int(sq) >= v.b.Squares || v.seen[sq] == v.stamp {
			return 0, false, fmt.Errorf("engine: a box on square %d, outside the %d interior squares or on another box", sq, v.b.Squares)
		}
		v.seen[sq] = v.stamp
	}
	if int(player) >= v.b.Squares || v.seen[player] == v.stamp {
		return 0, false, fmt.Errorf("engine: the player on square %d, outside the %d interior squares or on a box", player, v.b.Squares)
	}
	h := v.e.sync(boxes, player)
	if h >= infCost {
		return 0, false, nil
	}
	return h, true, nil
}
