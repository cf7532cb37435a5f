// Package macro is the toolkit of macro-level planners, the one sokod's
// built-in planners (fess, packing, relocation) are written with: all of it
// runs in the planner's own process, on the level analysed by package board
// (Board, from the plan's request). It offers
//
//   - positions of boxes and a player (Pos) and macro moves that take one
//     box any distance: every square the box can be pushed to with the
//     other boxes standing still, each with the player region it ends in
//     (Gen.Generate), with the player's reach (Gen.Flood) and the regions
//     of free squares (Gen.Regions);
//   - deadlock tests for the positions they lead to: dead squares and
//     frozen boxes during generation (Gen.FrozenDeadlock), the bipartite
//     test with boxes frozen on goals as walls (Gen.Matchable, Matcher),
//     and corrals and shut goals (Gen.CorralDeadlock);
//   - a node store and transposition table keyed by Zobrist hash (Store), a
//     priority queue (Heap), and the rebuilding of a macro-move path into
//     LURD (Gen.Solution, Walk);
//   - the bookkeeping of one plan: clock, budget, legs and progress (Run),
//     and its end, with the solution verified by the host (Finish,
//     Verified, GaveUp).
//
// Planners search at the level of macro moves: one expansion costs a
// breadth-first search per box, but the tree is far shallower than a tree
// of single pushes, which is what lets a planner reach further than the
// exhaustive search on large levels. Every buffer is allocated once per
// generator, so generating moves allocates nothing in steady state. What
// only the daemon can do, a bounded sub-search with its engine and the
// verification of a solution, goes through sdk.Host.
package macro

import "github.com/sokod/sokod/board"

// Move is one macro move: box Box (an index into Pos.Boxes) goes from square
// From to square To; the player ends in the region of To's neighbour in
// direction Side, whose smallest square is Norm. Hash is the Zobrist hash of
// the position the move leads to, Regions the number of regions its free
// squares fall into (the connectivity feature of FESS), which the
// generator knows for free.
type Move struct {
	Box      int16
	Side     uint8
	From, To uint16
	Norm     uint16
	Regions  int32
	Hash     uint64
}

// Pos is a mutable position: the boxes' squares, which box stands on each
// square, and the player's square (any square of the player's region).
type Pos struct {
	// Boxes holds the square of each box; a box keeps its index for the
	// life of the position, so moves can name it.
	Boxes []uint16
	// BoxAt maps a square to the index of its box, or -1. The wall
	// sentinel holds -2, so "occupied" is BoxAt != -1.
	BoxAt []int16
	// Player is the player's square.
	Player uint16
}

// NewPos returns an empty position for board b with room for its boxes.
func NewPos(b *board.Board) *Pos {
	p := &Pos{Boxes: make([]uint16, 0, len(b.StartBoxes)), BoxAt: make([]int16, b.Squares+1)}
	for i := range p.BoxAt {
		p.BoxAt[i] = -1
	}
	p.BoxAt[b.Squares] = -2
	return p
}

// Set places boxes (copied) and the player.
func (p *Pos) Set(boxes []uint16, player uint16) {
	for _, s := range p.Boxes {
		p.BoxAt[s] = -1
	}
	p.Boxes = append(p.Boxes[:0], boxes...)
	for i, s := range p.Boxes {
		p.BoxAt[s] = int16(i)
	}
	p.Player = player
}

// Apply plays move m.
func (p *Pos) Apply(m *Move) {
	p.BoxAt[m.From] = -1
	p.BoxAt[m.To] = m.Box
	p.Boxes[m.Box] = m.To
	p.Player = m.Norm
}

// Hash returns the Zobrist hash of the position with the player's region
// named by its smallest square norm.
func Hash(b *board.Board, boxes []uint16, norm uint16) uint64 {
	return BoxHash(b, boxes) ^ b.ZPlayer[norm]
}

// BoxHash returns the Zobrist hash of the boxes alone.
func BoxHash(b *board.Board, boxes []uint16) uint64 {
	var h uint64
	for _, s := range boxes {
		h ^= b.ZBox[s]
	}
	return h
}

// OnGoals counts the boxes on goals.
func OnGoals(b *board.Board, boxes []uint16) int {
	n := 0
	for _, s := range boxes {
		if b.GoalIndex[s] >= 0 {
			n++
		}
	}
	return n
}

// Undo takes back move m, the player returning to square player.
func (p *Pos) Undo(m *Move, player uint16) {
	p.BoxAt[m.To] = -1
	p.BoxAt[m.From] = m.Box
	p.Boxes[m.Box] = m.From
	p.Player = player
}
