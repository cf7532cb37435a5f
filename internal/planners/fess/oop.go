package fess

import (
	"slices"

	"github.com/sokod/sokod/board"
	"github.com/sokod/sokod/internal/planners/packing"
	"github.com/sokod/sokod/sdk/macro"
)

// The out-of-plan feature and its advisor, after Festival's (oop.cpp). A
// box is out of plan when it stands where no later step of the packing
// order can use it: once the boxes the plan has put for good are walls, it
// can no longer be pushed to any square a later step fills. Such a box has
// to be cleared out of the way, and the sooner the better, before the
// steps that shut it in are done; so a step's zone is the one of the next
// step at which the zone changes. The advisor proposes the move, of a box
// nearest the zone, that takes it farthest from the zone, among the moves
// that lose nothing and could be pushed back.

// oopZones are the out-of-plan zones and the distances from them, per
// step of the packing order.
type oopZones struct {
	// zone[k] marks the squares out of plan while k steps are done; nil
	// when none is.
	zone [][]bool
	// dist[k][sq] is the push distance of a lone box from zone[k] to sq,
	// with the boxes the plan has placed by step k as walls, or board.Inf.
	dist [][]uint16
}

// newOOPZones computes the zones of plan, or returns nil when plan's
// steps times b's squares pass maxHotspotWork: the zones would take more
// time and memory than they are worth there.
func newOOPZones(b *board.Board, plan *packing.Plan) *oopZones {
	n, steps := b.Squares, len(plan.Steps)
	if steps*n > maxHotspotWork {
		return nil
	}
	z := &oopZones{zone: make([][]bool, steps+1), dist: make([][]uint16, steps+1)}
	walled := make([]bool, n+1)
	seen := make([]bool, n+1)
	queue := make([]uint16, 0, n)
	// Each step's own zone; the last step leaves no later square to reach,
	// so it has none.
	own := make([][]bool, steps)
	for k := 0; k+1 < steps; k++ {
		// The squares of the steps up to k whose boxes no later step moves
		// on are walls from now on.
		if plan.MovedOn(k) < 0 {
			walled[plan.Steps[k].To] = true
		}
		own[k] = ownZone(b, plan.Steps[k+1:], walled, seen, queue)
	}
	// As soon as possible: the steps before the one where the zone changes
	// already take its zone.
	var cur []bool
	last := 0
	for k := 0; k+1 < steps; k++ {
		if slices.Equal(own[k], cur) {
			z.zone[k] = cur
			continue
		}
		cur = own[k]
		for j := last; j <= k; j++ {
			z.zone[j] = cur
		}
		last = k
	}
	// The distances, with the boxes in place at step k as walls: those of
	// the steps before k that no step before k moved on.
	for k := 0; k+1 < steps; k++ {
		if z.zone[k] == nil {
			continue
		}
		clear(walled)
		for j, st := range plan.Steps[:k] {
			if u := plan.MovedOn(j); u < 0 || u >= k {
				walled[st.To] = true
			}
		}
		z.dist[k] = zoneDist(b, z.zone[k], walled, queue)
	}
	return z
}

// ownZone returns the squares, neither walled nor dead, from which no
// relaxed push sequence reaches the square of one of later, or nil for
// none.
func ownZone(b *board.Board, later []packing.Step, walled, seen []bool, queue []uint16) []bool {
	wall := b.Wall()
	clear(seen)
	queue = queue[:0]
	for _, st := range later {
		if !seen[st.To] {
			seen[st.To] = true
			queue = append(queue, st.To)
		}
	}
	relaxedPulls(b, func(sq uint16) bool { return sq != wall && !walled[sq] }, seen, queue)
	var zone []bool
	for sq := range b.Squares {
		if !seen[sq] && !walled[sq] && !b.Dead[sq] {
			if zone == nil {
				zone = make([]bool, b.Squares+1)
			}
			zone[sq] = true
		}
	}
	return zone
}

// zoneDist returns the relaxed push distance of a lone box from zone to
// every square, walled squares walled up, board.Inf where none reaches.
func zoneDist(b *board.Board, zone, walled []bool, queue []uint16) []uint16 {
	wall := b.Wall()
	d := make([]uint16, b.Squares+1)
	queue = queue[:0]
	for sq, in := range zone {
		d[sq] = board.Inf
		if in {
			d[sq] = 0
			queue = append(queue, uint16(sq))
		}
	}
	for i := 0; i < len(queue); i++ {
		s := queue[i]
		for dir := range 4 {
			// A push in direction dir takes the box from s to t, the
			// player on s's other side.
			t := b.Nbr[int(s)*4+dir]
			p := b.Nbr[int(s)*4+(dir^2)]
			if t == wall || walled[t] || p == wall || walled[p] || d[t] != board.Inf {
				continue
			}
			d[t] = d[s] + 1
			queue = append(queue, t)
		}
	}
	return d
}

// count returns how many of boxes are out of plan while packed steps are
// done.
func (z *oopZones) count(packed int32, boxes []uint16) int32 {
	zone := z.zone[packed]
	if zone == nil {
		return 0
	}
	var c int32
	for _, q := range boxes {
		if zone[q] {
			c++
		}
	}
	return c
}

// relaxedPulls extends queue, whose squares seen marks, with every square
// from which a lone box reaches one of them by relaxed pushes (the player
// anywhere free), over the squares free admits. It returns the queue.
func relaxedPulls(b *board.Board, free func(uint16) bool, seen []bool, queue []uint16) []uint16 {
	for i := 0; i < len(queue); i++ {
		t := queue[i]
		for d := range 4 {
			// A push in direction d onto t comes from s = t-d, the
			// player on s-d.
			s := b.Nbr[int(t)*4+(d^2)]
			if !free(s) || seen[s] || !free(b.Nbr[int(s)*4+(d^2)]) {
				continue
			}
			seen[s] = true
			queue = append(queue, s)
		}
	}
	return queue
}

// clearOOP is the out-of-plan advisor: among the children not known that
// lose no packing and add no region, door or box out of plan, and whose box
// could be pushed back, it proposes the one whose box starts nearest the
// zone, taking it farthest from it among equals; -1 when none takes its
// box farther or no box is out of plan.
func (s *search) clearOOP(moves []macro.Move, parent features) int {
	if parent.outOfPlan == 0 {
		return -1
	}
	d := s.oop.dist[parent.packed]
	if d == nil {
		return -1
	}
	best, bestFrom, bestTo := -1, uint16(board.Inf), uint16(0)
	for i, f := range s.childFeat {
		if s.known[i] || f.packed < parent.packed || f.regions > parent.regions || f.doors > parent.doors || f.outOfPlan > parent.outOfPlan {
			continue
		}
		m := &moves[i]
		from, to := d[m.From], d[m.To]
		if from == board.Inf || to == board.Inf || to <= from || from > bestFrom {
			continue
		}
		if from == bestFrom && to <= bestTo {
			continue
		}
		if !s.ways.reversible(m.From, m.To) {
			continue
		}
		best, bestFrom, bestTo = i, from, to
	}
	return best
}
