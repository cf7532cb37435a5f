package main

import (
	"context"
	"fmt"
	"slices"

	"github.com/sokod/sokod/board"
	"github.com/sokod/sokod/internal/engine"
	"github.com/sokod/sokod/internal/enginetables"
	"github.com/sokod/sokod/internal/heuristics"
	"github.com/sokod/sokod/sdk"
)

// defaultMaxStates bounds the backward search: the search keeps a counter
// per pattern and updates the patterns of the squares a push touches, so
// many patterns slow every push.
const defaultMaxStates = 20000

// pdb is the heuristic; maxStates bounds the positions its backward search
// visits per level.
type pdb struct{ maxStates int }

// Prepare builds the level's pattern database.
func (p pdb) Prepare(ctx context.Context, l *sdk.Level) (*sdk.PreparedHeuristic, error) {
	b, err := l.Analyze(ctx)
	if err != nil {
		return nil, err
	}
	h := heuristics.Matching(b)
	t, err := enginetables.Tables(b, h)
	if err != nil {
		return nil, err
	}
	ev, err := engine.NewEvaluator(b, h)
	if err != nil {
		return nil, err
	}
	db, err := explore(ctx, b, p.maxStates)
	if err != nil {
		return nil, err
	}
	t.Penalties, err = db.penalties(ctx, ev)
	if err != nil {
		return nil, err
	}
	return &sdk.PreparedHeuristic{Admissible: true, Tables: t}, nil
}

// database is what the backward search learnt: the pushes left of the
// positions it reached, each within complete layers of depth, by box
// placement (sorted squares) and the player's region (its smallest
// square).
type database struct {
	b        *board.Board
	complete int // every position with at most this many pushes left was reached
	placed   map[string]*placement
}

// placement is a box placement the backward search reached, with the
// pushes left from each of the player's regions it reached.
type placement struct {
	boxes []uint16
	left  map[uint16]int
}

// explore searches backwards from the solved positions, breadth first by
// pulls, layer after layer until more than max positions are known.
func explore(ctx context.Context, b *board.Board, max int) (*database, error) {
	db := &database{b: b, placed: map[string]*placement{}}
	f := newFlood(b)
	var layer []position
	goals := slices.Clone(b.Goals)
	slices.Sort(goals)
	for _, r := range f.regions(goals) {
		if db.add(goals, r, 0) {
			layer = append(layer, position{goals, r})
		}
	}
	seen := len(layer)
	for depth := 0; len(layer) > 0; depth++ {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		db.complete = depth
		if seen > max {
			break
		}
		var next []position
		reach := make([]bool, b.Squares+1)
		for _, pos := range layer {
			f.set(pos.boxes)
			copy(reach, f.reach(pos.player)) // norm below floods again
			for i, s := range pos.boxes {
				for d := range 4 {
					q := b.Nbr[int(s)*4+d] // where the player pulls from
					if int(q) >= b.Squares || !reach[q] {
						continue
					}
					q2 := b.Nbr[int(q)*4+d] // where the player steps back to
					if int(q2) >= b.Squares || f.box[q2] {
						continue
					}
					boxes := slices.Clone(pos.boxes)
					boxes[i] = q
					slices.Sort(boxes)
					f.set(boxes)
					player := f.norm(q2)
					f.set(pos.boxes)
					if db.add(boxes, player, depth+1) {
						next = append(next, position{boxes, player})
						seen++
					}
				}
			}
		}
		layer = next
	}
	if len(layer) == 0 {
		db.complete = int(^uint(0) >> 2) // every position that can be solved was reached
	}
	return db, nil
}

// position is a placement, sorted, and the player's normalised square.
type position struct {
	boxes  []uint16
	player uint16
}

// add records pushes left for a position seen first; it reports whether
// the position is new.
func (db *database) add(boxes []uint16, player uint16, left int) bool {
	k := fmt.Sprint(boxes)
	p := db.placed[k]
	if p == nil {
		p = &placement{boxes: boxes, left: map[uint16]int{}}
		db.placed[k] = p
	}
	if _, ok := p.left[player]; ok {
		return false
	}
	p.left[player] = left
	return true
}

// penalties returns one pattern per placement reached: the pushes ev's
// bound misses there, the least over the player's regions; none where it
// misses nothing.
func (db *database) penalties(ctx context.Context, ev *engine.Evaluator) ([]sdk.Penalty, error) {
	f := newFlood(db.b)
	keys := make([]string, 0, len(db.placed))
	for k := range db.placed {
		keys = append(keys, k)
	}
	slices.Sort(keys) // the same patterns in the same order every time
	var out []sdk.Penalty
	for _, k := range keys {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		boxes, known := db.placed[k].boxes, db.placed[k].left
		missed := -1
		for _, r := range f.regions(boxes) {
			left, ok := known[r]
			if !ok {
				left = db.complete + 1 // beyond every complete layer
			}
			bound, finite, err := ev.Bound(boxes, r)
			if err != nil {
				return nil, err
			}
			if !finite {
				continue // the host prunes this region itself
			}
			if missed < 0 || left-bound < missed {
				missed = left - bound
			}
		}
		if missed > 0 {
			sqs := make([]int, len(boxes))
			for i, s := range boxes {
				sqs[i] = int(s)
			}
			out = append(out, sdk.Penalty{Squares: sqs, Cost: missed})
		}
	}
	return out, nil
}

// flood finds the player's regions among boxes.
type flood struct {
	b     *board.Board
	box   []bool
	seen  []bool
	queue []uint16
}

func newFlood(b *board.Board) *flood {
	return &flood{b: b, box: make([]bool, b.Squares+1), seen: make([]bool, b.Squares+1)}
}

// set places boxes (and only them).
func (f *flood) set(boxes []uint16) {
	clear(f.box)
	for _, s := range boxes {
		f.box[s] = true
	}
	f.box[f.b.Squares] = true // the wall sentinel
}

// reach returns the squares the player reaches from p; the slice is
// reused by the next call.
func (f *flood) reach(p uint16) []bool {
	clear(f.seen)
	f.seen[p] = true
	f.queue = append(f.queue[:0], p)
	for len(f.queue) > 0 {
		q := f.queue[len(f.queue)-1]
		f.queue = f.queue[:len(f.queue)-1]
		for d := range 4 {
			n := f.b.Nbr[int(q)*4+d]
			if !f.box[n] && !f.seen[n] {
				f.seen[n] = true
				f.queue = append(f.queue, n)
			}
		}
	}
	return f.seen
}

// norm is the smallest square the player reaches from p.
func (f *flood) norm(p uint16) uint16 {
	reach := f.reach(p)
	for s := range f.b.Squares {
		if reach[s] {
			return uint16(s)
		}
	}
	return p
}

// regions returns the smallest square of each of the player's regions
// around boxes.
func (f *flood) regions(boxes []uint16) []uint16 {
	f.set(boxes)
	done := make([]bool, f.b.Squares)
	var out []uint16
	for s := range f.b.Squares {
		if f.box[s] || done[s] {
			continue
		}
		reach := f.reach(uint16(s))
		for q := range f.b.Squares {
			if reach[q] {
				done[q] = true
			}
		}
		out = append(out, uint16(s))
	}
	return out
}
