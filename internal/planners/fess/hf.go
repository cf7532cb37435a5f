package fess

import "github.com/sokod/sokod/sdk/macro"

// Festival's HF searches (hf_search.cpp, biconnect.cpp). A backward search
// from the solved position spreads the boxes out; strategy E's also
// favours positions whose free squares lie on cycles, so that the player
// can go round the boxes. The forward search then heads for the best
// position it reached (the imagined position): it favours positions with
// more boxes on the imagined squares and fewer pushes to fill them, and
// meets the backward search's tree on the way.

// betterHF reports whether a is better than b in the HF searches
// (Festival's is_better_hf_score).
func betterHF(a, b *score, pull bool) bool {
	if !pull {
		if fa, fb := a.distImagined < macro.Unmatchable, b.distImagined < macro.Unmatchable; fa != fb {
			return fa
		}
		switch {
		case a.connectivity != b.connectivity:
			return a.connectivity < b.connectivity
		case a.imagine != b.imagine:
			return a.imagine > b.imagine
		case a.hotspots != b.hotspots:
			return a.hotspots < b.hotspots
		}
		return a.distImagined < b.distImagined
	}
	switch {
	case a.connectivity != b.connectivity:
		return a.connectivity < b.connectivity
	case a.rooms != b.rooms:
		return a.rooms < b.rooms
	}
	if a.connectivity == 1 && b.connectivity == 1 {
		switch {
		case a.hotspots != b.hotspots:
			return a.hotspots < b.hotspots
		case a.biconnect != b.biconnect:
			return a.biconnect < b.biconnect
		}
	}
	return a.dist > b.dist
}

// accessible reports whether the box on c could be pushed or pulled from
// some side: a side that is no wall with the cell beyond it free
// (Festival's can_be_accessed_from_some_direction).
func (lv *level) accessible(g grid, c int) bool {
	for _, d := range lv.d4 {
		if g[c+d] != wall && g[c+2*d]&occupied == 0 {
			return true
		}
	}
	return false
}

// hfHotspots is the HF searches' hotspot count (Festival's hf_hotspots):
// backwards the boxes no side gives access to; forwards the boxes off
// the imagined squares that touch a box or wall, and the imagined
// squares still empty that no side gives access to.
func (lv *level) hfHotspots(g, imagined grid, pull bool) int32 {
	n := int32(0)
	for _, c := range lv.cell {
		f := g[c]
		if pull {
			if f&box != 0 && !lv.accessible(g, int(c)) {
				n++
			}
			continue
		}
		if f&box != 0 && imagined[c]&box == 0 {
			for _, d := range lv.d4 {
				if g[int(c)+d]&occupied != 0 {
					n++
					break
				}
			}
		}
		if imagined[c]&box != 0 && f&box == 0 && !lv.accessible(g, int(c)) {
			n++
		}
	}
	return n
}

// onImagined counts the boxes of g on the imagined squares.
func (lv *level) onImagined(g, imagined grid) int32 {
	n := int32(0)
	for _, c := range lv.cell {
		if g[c]&box != 0 && imagined[c]&box != 0 {
			n++
		}
	}
	return n
}

// score returns the free squares of g on no cycle of free squares,
// empty targets counting as on one (Festival's biconnect_score): fewer
// means more room for the player to go round the boxes.
func (b *biconnector) score(g grid) int32 {
	lv := b.lv
	for i := range b.low {
		b.low[i] = inf
		b.visited[i] = false
		b.cycle[i] = false
	}
	for _, c := range lv.cell {
		if !b.visited[c] && g[c]&occupied == 0 {
			b.dfs(g, int(c), -1, 0)
		}
	}
	on := int32(0)
	for _, c := range lv.cell {
		if g[c]&target != 0 && g[c]&box == 0 {
			b.cycle[c] = true
		}
		if b.cycle[c] {
			on++
		}
	}
	return int32(lv.n()-lv.boxes) - on
}

// biconnector is the scratch of biconnect.
type biconnector struct {
	lv      *level
	low     []int32
	visited []bool
	cycle   []bool
}

func newBiconnector(lv *level) *biconnector {
	n := len(lv.start)
	return &biconnector{lv: lv, low: make([]int32, n), visited: make([]bool, n), cycle: make([]bool, n)}
}

// dfs is Festival's biconnect_dfs: it marks on a cycle every square whose
// subtree reaches above it, and the neighbours that reach above it.
func (b *biconnector) dfs(g grid, c, father int, depth int32) {
	lv := b.lv
	b.visited[c] = true
	b.low[c] = depth
	for k, d := range lv.d4 {
		if n := c + d; g[n]&occupied == 0 && !b.visited[n] {
			b.dfs(g, n, (k+2)&3, depth+1)
		}
	}
	for k, d := range lv.d4 {
		if k == father {
			continue
		}
		n := c + d
		b.low[c] = min(b.low[c], b.low[n])
		if b.low[n] < depth {
			b.cycle[n] = true
		}
	}
	if b.low[c] < depth {
		b.cycle[c] = true
	}
}

// defaultAdvisor is the HF searches' one advisor (Festival's
// set_default_advisor): the child better than the position itself and
// every other, among those not expanded yet; backwards, never a pull off
// a target hole.
func (s *search) defaultAdvisor(base *score, kids []child, scores []score) int32 {
	best := int32(-1)
	bs := *base
	for i := range kids {
		if s.pull && s.lv.targetHole[kids[i].mv.from] {
			continue
		}
		if s.t.nodes[kids[i].node].exp >= 0 {
			continue
		}
		if s.mode.better(&scores[i], &bs) {
			bs, best = scores[i], int32(i)
		}
	}
	return best
}

// imagineDistances sets the distance to the imagined position of
// expansion e, board g, and of its children: the least total pushes, by
// lone-box distances, that take the boxes to the imagined squares, a box
// frozen in a 2x2 block staying where it is (Festival's
// compute_imagine_distance). The children's differ from e's in one row of
// the assignment, which the assigner updates in O(n²).
func (s *search) imagineDistances(e int32, g grid) {
	lv, t := s.lv, s.t
	s.boxes = s.boxes[:0]
	for _, c := range lv.cell {
		if g[c]&box != 0 {
			s.boxes = append(s.boxes, c)
		}
	}
	n := len(s.boxes)
	if n != len(s.imag) {
		return
	}
	if s.asg == nil {
		s.asg = macro.NewAssigner(n)
	}
	a := s.asg
	for i, c := range s.boxes {
		s.imagineRow(g, int(c), a.Row(i))
	}
	baseCost := a.Solve()
	a.Save()
	t.nodes[t.exps[e].node].sc.distImagined = int32(min(baseCost, macro.Unmatchable))
	for _, k := range t.children(e) {
		m := &k.mv
		d := baseCost
		if m.from != m.to && !m.base {
			r := 0
			for r < n && s.boxes[r] != m.from {
				r++
			}
			g[m.from] &^= box
			g[m.to] |= box
			s.imagineRow(g, int(m.to), a.Row(r))
			g[m.to] &^= box
			g[m.from] |= box
			d = a.ReplaceRow(r)
			s.imagineRow(g, int(m.from), a.Row(r))
			a.Restore()
		}
		t.nodes[k.node].sc.distImagined = int32(min(d, macro.Unmatchable))
	}
}

// imagineRow fills row with the costs of the box on cell c of g to each
// imagined square.
func (s *search) imagineRow(g grid, c int, row []int32) {
	lv := s.lv
	frozen := lv.frozen2x2(g, c)
	for j, x := range s.imag {
		switch {
		case frozen && int(x) == c:
			row[j] = 0
		case frozen:
			row[j] = macro.Unmatchable
		default:
			d := lv.distance(c, int(x))
			if d == inf {
				row[j] = macro.Unmatchable
			} else {
				row[j] = d
			}
		}
	}
}

// frozen2x2 reports whether the box on c is one of a full 2x2 block of
// walls and boxes (Festival's is_box_2x2_frozen_at_index).
func (lv *level) frozen2x2(g grid, c int) bool {
	for _, o := range lv.blocksAround(c) {
		if lv.full2x2(g, o) {
			return true
		}
	}
	return false
}
