package fess

import "github.com/sokod/sokod/board"

// Hotspots, after Festival's hotspot advisor: a box off its goal is a
// hotspot when it stands where it cuts another box off some goal that box
// could reach with the first one gone. A move that leaves fewer hotspots
// clears a way, which none of the four features needs to improve for.
//
// Whether a square cuts another off is a table built once per plan: for
// each square q, which squares reach fewer goals by pushes of a lone box
// with q walled up. The pushes are relaxed (the player only needs the
// square behind the box to be floor, not to reach it), so a square that
// reaches no goal this way reaches none at all.
type hotspots struct {
	n int
	// cuts[q*n+p] is set when walling up q takes goals from a lone box
	// on p.
	cuts []bool
	// live[sq] is set for squares that are neither dead nor goals: a box on
	// a dead square is lost anyway, and one on a goal is no blocker and
	// needs no way.
	live []bool
}

// maxHotspotWork bounds the squares newHotspots visits, about squares
// squared times goals: past it a board gets no table, and no box is a
// hotspot, rather than a wait that would eat a short plan's budget (at
// the bound the table takes about a tenth of a second).
const maxHotspotWork = 1 << 24

// newHotspots builds b's hotspot table; on a board too large for it, one
// that finds no hotspots.
func newHotspots(b *board.Board) *hotspots {
	n := b.Squares
	h := &hotspots{n: n}
	if n*n*len(b.Goals) > maxHotspotWork {
		return h
	}
	h.cuts, h.live = make([]bool, n*n), make([]bool, n+1)
	for sq := range n {
		h.live[sq] = !b.Dead[sq] && b.GoalIndex[sq] < 0
	}
	open := make([]int, n)   // goals each square reaches, nothing walled up
	walled := make([]int, n) // the same with q walled up
	seen := make([]bool, n+1)
	queue := make([]uint16, 0, n)
	reach := func(blocked uint16, count []int) {
		clear(count)
		for _, g := range b.Goals {
			queue = pullReach(b, g, blocked, seen, queue)
			for _, sq := range queue {
				count[sq]++
			}
		}
	}
	reach(b.Wall(), open)
	for q := range n {
		if !h.live[q] {
			continue
		}
		reach(uint16(q), walled)
		for p := range n {
			if p != q && h.live[p] && walled[p] < open[p] {
				h.cuts[q*n+p] = true
			}
		}
	}
	return h
}

// pullReach returns in queue the squares from which a lone box reaches
// goal g by relaxed pushes, with square blocked walled up.
func pullReach(b *board.Board, g, blocked uint16, seen []bool, queue []uint16) []uint16 {
	clear(seen)
	wall := b.Wall()
	seen[g] = true
	return relaxedPulls(b, func(sq uint16) bool { return sq != wall && sq != blocked }, seen, append(queue[:0], g))
}

// count returns the hotspots among boxes.
func (h *hotspots) count(boxes []uint16) int32 {
	var n int32
	if h.cuts == nil {
		return 0
	}
	for _, q := range boxes {
		if !h.live[q] {
			continue
		}
		row := h.cuts[int(q)*h.n : int(q)*h.n+h.n]
		for _, p := range boxes {
			if row[p] {
				n++
				break
			}
		}
	}
	return n
}
