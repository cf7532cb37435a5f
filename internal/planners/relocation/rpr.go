package relocation

import (
	"slices"

	"github.com/sokod/sokod/sdk/macro"
)

// RPR, reverse pull routes ("reverse spreadout"), and RSB, reverse shuffle
// boxes (Holland, section 3).
//
// From a solved position, RPR takes the pullable boxes in turn (boxes that
// become pullable go to the front of the queue) and pulls each along one
// pull route to the first free-space square (RFS order) it can reach.
// When a box reaches none though free squares are left, RSB moves one box
// already parked to another free square by one pull route and tries
// again. A box that still cannot go stays (Holland's SBL). The order the
// boxes leave is the stacking order, backwards.
//
// Where this differs: RPR does not stop at the first position with one
// corral; it goes on while boxes can leave, and every position of the
// variation is stored, so the relocation can aim at any of them (the last
// one first). Every pull route must keep the position reachable from the
// start as far as the static knowledge tells (reverse restrictions and
// the start-box matching). RSB tries single-box shuffles only, not the
// chains of Holland's steps 3 and 4.

// rprResult is a reverse variation found by RPR.
type rprResult struct {
	// nodes are the positions of the variation in order, the root first.
	nodes []int32
	// first is the index in nodes of Holland's success: one region of
	// free squares, and no box left on its goal frozen; -1 when none.
	first int
	// stuck are the boxes that never left their goals (SBL).
	stuck int
}

// rpr runs RPR from reverse node root. expired is polled between routes.
func (r *reverser) rpr(root int32, expired func() bool) rprResult {
	b := r.b
	res := rprResult{nodes: []int32{root}, first: -1}
	q := macro.NewPos(b)
	r.store.Load(root, q)
	bl := r.fs.compute(q)
	if len(bl) == 0 {
		return res
	}
	rank := make([]int32, b.Squares+1)
	for i := range rank {
		rank[i] = -1
	}
	for k, s := range bl {
		rank[s] = int32(k)
	}
	n := len(q.Boxes)
	moved := make([]bool, n)
	queued := make([]bool, n)
	var pb []int
	for i := range q.Boxes {
		if r.pg.pullable(q, i) {
			pb = append(pb, i)
			queued[i] = true
		}
	}
	cur := root
	for len(pb) > 0 && !expired() {
		i := pb[0]
		pb = pb[1:]
		steps := r.route(q, i, bl, rank)
		if steps == nil {
			steps = r.shuffle(q, i, bl, rank)
		}
		if steps == nil {
			res.stuck++
			continue
		}
		moved[i] = true
		for k := range steps {
			m := &steps[k]
			if k > 0 && q.Boxes[m.Box] != m.From {
				break // a transposition renumbered the boxes: see below
			}
			q.Apply(m)
			id, fresh := r.add(cur, m, q)
			if id < 0 {
				return res // store full
			}
			cur = id
			res.nodes = append(res.nodes, id)
			if !fresh {
				// The store held the position, its boxes maybe in
				// another order; the variation goes on from the stored
				// node, so take its numbering.
				pb = renumber(q, r.store.Boxes(id), moved, queued, pb)
				if k+1 < len(steps) {
					steps[k+1].Box = q.BoxAt[steps[k+1].From]
				}
			}
		}
		// Boxes that became pullable go first.
		var fresh []int
		for j := range q.Boxes {
			if !moved[j] && !queued[j] && r.pg.pullable(q, j) {
				fresh = append(fresh, j)
				queued[j] = true
			}
		}
		pb = append(fresh, pb...)
		if res.first < 0 && r.regionsOf(cur) == 1 && !r.frozenOnGoals(q, moved) {
			res.first = len(res.nodes) - 1
		}
	}
	return res
}

// renumber sets q's boxes to the order of boxes (the same squares) and
// carries the per-box flags and the queue along.
func renumber(q *macro.Pos, boxes []uint16, moved, queued []bool, pb []int) []int {
	old := slices.Clone(q.Boxes)
	om, oq := slices.Clone(moved), slices.Clone(queued)
	q.Set(boxes, q.Player)
	for i, x := range old {
		j := q.BoxAt[x]
		moved[j], queued[j] = om[i], oq[i]
	}
	for k, i := range pb {
		pb[k] = int(q.BoxAt[old[i]])
	}
	return pb
}

// frozenOnGoals reports whether a box that has not moved is frozen on its
// goal.
func (r *reverser) frozenOnGoals(q *macro.Pos, moved []bool) bool {
	mark := r.fs.fmark
	for i, x := range q.Boxes {
		if moved[i] || r.b.GoalIndex[x] < 0 {
			continue
		}
		clear(mark)
		if frozenAt(r.b, q, x, mark, nil) {
			return true
		}
	}
	return false
}

// route returns the reverse move that takes box i of q to the first empty
// free-space square it reaches, keeping q feasible, or nil.
func (r *reverser) route(q *macro.Pos, i int, bl []uint16, rank []int32) []macro.Move {
	moves := r.pg.GenerateBox(q, i)
	best := -1
	player := q.Player
	for k := range moves {
		m := &moves[k]
		if rank[m.To] < 0 || best >= 0 && rank[m.To] >= rank[moves[best].To] {
			continue
		}
		q.Apply(m)
		ok := r.feasible(q)
		q.Undo(m, player)
		if ok {
			best = k
		}
	}
	if best < 0 {
		return nil
	}
	return []macro.Move{moves[best]}
}

// shuffle is RSB: it moves one box parked on a free-space square to
// another free-space square so that box i can then reach one, and returns
// both moves, or nil.
func (r *reverser) shuffle(q *macro.Pos, i int, bl []uint16, rank []int32) []macro.Move {
	player := q.Player
	var parked []int
	free := 0
	for _, s := range bl {
		if j := q.BoxAt[s]; j >= 0 {
			parked = append(parked, int(j))
		} else {
			free++
		}
	}
	if free == 0 {
		return nil
	}
	for _, j := range parked {
		moves := slices.Clone(r.pg.GenerateBox(q, j))
		for k := range moves {
			m := &moves[k]
			if rank[m.To] < 0 {
				continue
			}
			q.Apply(m)
			if r.feasible(q) {
				if next := r.route(q, i, bl, rank); next != nil {
					q.Undo(m, player)
					return []macro.Move{*m, next[0]}
				}
			}
			q.Undo(m, player)
		}
	}
	return nil
}
