package fess

import "context"

// hotspots is Festival's hotspot table: blocks[p*n+q] is set when a box
// on inner square q, standing as a wall, cuts a lone box on p off some
// target it reaches otherwise. A box of a position is a hotspot when it
// blocks another box of the position; the feature counts them.
type hotspots struct {
	lv     *level
	blocks []bool // nil when the table was not finished in time
	at     []int32
}

// maxHotspotWork bounds the table's work, in vertex visits: a board past
// it has no hotspot feature rather than one that takes its whole time.
const maxHotspotWork = 4e9

// newHotspots builds the table, unless ctx ends first or the board is too
// large for it (the table is then empty and the feature 0, as in
// Festival, whose table aborts after a quarter of the time).
func newHotspots(ctx context.Context, lv *level) *hotspots {
	h := &hotspots{lv: lv}
	n := lv.n()
	reach := make([]int32, n)
	var targets []int
	for i, c := range lv.cell {
		if lv.start[c]&target != 0 {
			targets = append(targets, i)
		}
	}
	if float64(n)*float64(len(targets))*float64(4*n) > maxHotspotWork {
		return h
	}
	for p := range n {
		for _, t := range targets {
			if lv.dist[p*n+t] != inf {
				reach[p]++
			}
		}
	}
	blocks := make([]bool, n*n)
	g := lv.empty()
	count := make([]int32, n)
	gr := newGraph(lv, g, true)
	for q := range n {
		if ctx.Err() != nil {
			return h
		}
		cq := lv.cell[q]
		if lv.impossible[q] || g[cq]&target != 0 {
			continue
		}
		saved := g[cq]
		g[cq] = wall
		gr.build(g)
		clear(count)
		for i, t := range targets {
			if i%32 == 31 && ctx.Err() != nil {
				return h
			}
			gr.reset()
			gr.startAt(t)
			gr.iterate()
			for p := range n {
				if gr.around(p) != inf {
					count[p]++
				}
			}
		}
		g[cq] = saved
		for p := range n {
			if p == q || lv.impossible[p] || g[lv.cell[p]]&target != 0 {
				continue
			}
			blocks[p*n+q] = reach[p]-count[p] != 0
		}
	}
	h.blocks = blocks
	return h
}

// score returns the number of boxes of g that block another box of g.
func (h *hotspots) score(g grid) int32 {
	if h.blocks == nil {
		return 0
	}
	lv := h.lv
	h.at = h.at[:0]
	for i, c := range lv.cell {
		if g[c]&box != 0 {
			h.at = append(h.at, int32(i))
		}
	}
	n := lv.n()
	sum := int32(0)
	for _, q := range h.at {
		for _, p := range h.at {
			if p != q && h.blocks[int(p)*n+int(q)] {
				sum++
				break
			}
		}
	}
	return sum
}
