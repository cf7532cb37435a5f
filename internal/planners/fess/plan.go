package fess

import "fmt"

// Step origins besides a cell.
const (
	// fromBase: the box comes from the squares the boxes start on, which
	// one is left open.
	fromBase = -1
	// fromStart: one of the boxes the base search left on the board,
	// which must first be brought to its square from wherever it starts.
	fromStart = -2
)

// step is one step of a parking plan: a box goes from from to to and
// rests there until step until moves it on (-1: for good).
type step struct {
	from, to int32
	until    int32
}

// plan is a parking plan (Festival's parking order): the order in which
// boxes are brought to their squares, targets or parkings, read off the
// base search's pulls backwards.
type plan struct {
	steps []step
	// starts counts the leading fromStart steps.
	starts int
	// removed is set when the base search took boxes off the board; when
	// it did not, only the targets' order is kept.
	removed bool
	// planned marks every square some step of the full plan uses.
	planned []bool
	// zone[k] marks the cells out of plan after k steps packed (see
	// zones), dist[k] the pushes from zone[k] to each cell; nil past the
	// last step that has one.
	zone [][]bool
	dist [][]int32
	// Scratch.
	has []bool
}

// String describes the plan.
func (p *plan) String() string {
	parked := 0
	for _, s := range p.steps {
		if s.until >= 0 {
			parked++
		}
	}
	return fmt.Sprintf("parking plan of %d steps, %d parked", len(p.steps), parked)
}

// newPlan reads the plan off the path of the base search's node e, from
// which the boxes left stand where they are (Festival's get_parking_plan,
// reduce_parking_order and prepare_oop_zones). When stop says so before
// the out-of-plan zones are done, the plan has none.
func newPlan(lv *level, t *tree, e int32, stop func() bool) *plan {
	p := &plan{}
	g := t.board(e)
	for c := len(g) - 1; c >= 0; c-- {
		if lv.inner[c] && g[c]&box != 0 {
			p.steps = append(p.steps, step{from: fromStart, to: int32(c)})
		}
	}
	for x := e; t.exps[x].father >= 0; x = t.exps[x].father {
		m := t.moveTo(x)
		from, to := m.from, m.to
		if m.base {
			to = fromBase
		}
		if from == to {
			continue
		}
		p.steps = append(p.steps, step{from: to, to: from})
	}
	p.recomputeUntil()
	p.mergeConsecutive()
	p.mandatoryFirst()
	p.planned = make([]bool, len(lv.start))
	for _, s := range p.steps {
		p.planned[s.to] = true
		if s.from == fromStart {
			p.starts++
		}
	}
	p.removed = p.starts != lv.boxes
	if !p.removed {
		p.keepTargets()
	}
	p.zones(lv, stop)
	p.has = make([]bool, len(p.steps))
	return p
}

// recomputeUntil sets each step's until: the next step that moves its box
// on.
func (p *plan) recomputeUntil() {
	for i := range p.steps {
		p.steps[i].until = -1
		for j := i + 1; j < len(p.steps); j++ {
			if p.steps[j].from == p.steps[i].to {
				p.steps[i].until = int32(j)
				break
			}
		}
	}
}

// mergeConsecutive drops the steps that put a box back where it was and
// joins a step with the next when the next moves its box on (Festival's
// fix_consecutive_pushes, its restarts included).
func (p *plan) mergeConsecutive() {
	s := p.steps
	for i := 0; i < len(s)-1; i++ {
		if s[i].from == fromStart {
			continue
		}
		if s[i].to == s[i].from {
			s = append(s[:i], s[i+1:]...)
			i = 0
		}
		if i < len(s)-1 && s[i].to == s[i+1].from {
			s[i].to = s[i+1].to
			s = append(s[:i+1], s[i+2:]...)
			i = 0
		}
	}
	p.steps = s
	p.recomputeUntil()
}

// mandatoryFirst puts the start boxes that never move first.
func (p *plan) mandatoryFirst() {
	out := make([]step, 0, len(p.steps))
	for _, s := range p.steps {
		if s.from == fromStart && s.until < 0 {
			out = append(out, s)
		}
	}
	for _, s := range p.steps {
		if s.from != fromStart || s.until >= 0 {
			out = append(out, s)
		}
	}
	p.steps = out
}

// keepTargets reduces a plan that removed no box to the order of its
// final squares (Festival's keep_only_perm).
func (p *plan) keepTargets() {
	out := p.steps[:0]
	for _, s := range p.steps {
		if s.until >= 0 {
			continue
		}
		if s.from != fromStart {
			s.from = fromBase
		}
		out = append(out, s)
	}
	p.steps = out
	p.starts = 0
	for _, s := range p.steps {
		if s.from == fromStart {
			p.starts++
		}
	}
}

// boxesIn sets p.has: which steps' squares hold a box in g.
func (p *plan) boxesIn(g grid) {
	for i, s := range p.steps {
		p.has[i] = g[s.to]&box != 0
	}
}

// packed returns the packing feature of g: how far the plan has got
// (Festival's score_parked_boxes).
func (p *plan) packed(g grid) int32 {
	p.boxesIn(g)
	// A start box that must stay and does not: count the ones that do.
	missing := false
	kept := int32(0)
	for i := range p.starts {
		if p.steps[i].until < 0 {
			if p.has[i] {
				kept++
			} else {
				missing = true
			}
		}
	}
	if missing {
		return kept
	}
	done := p.prefix()
	good := 0
	for i := range p.starts {
		if p.has[i] || p.steps[i].until < done {
			good++
		}
	}
	return done - int32(p.starts-good)
}

// prefix returns the longest prefix of steps not contradicted by p.has: a
// missing box is allowed where a later step of the prefix moved it on.
func (p *plan) prefix() int32 {
	done := int32(len(p.steps))
	for i := len(p.steps) - 1; i >= p.starts; i-- {
		if p.has[i] {
			continue
		}
		if u := p.steps[i].until; u < 0 || u >= done {
			done = int32(i)
		}
	}
	return done
}

// next returns the square of the next step to do in g, or -1 (Festival's
// next_parking_place).
func (p *plan) next(g grid) int32 {
	p.boxesIn(g)
	for i := range p.starts {
		if p.steps[i].until < 0 && !p.has[i] {
			return -1
		}
	}
	done := p.prefix()
	if int(done) == len(p.steps) {
		return -1
	}
	return p.steps[done].to
}

// zones computes the out-of-plan zones (Festival's prepare_oop_zones):
// after step k, with the boxes placed for good standing as walls, the
// cells from which no later step's square can be reached are out of
// plan. Each step takes the zone of the next step where the zone changes,
// so that boxes are cleared out before they are shut in.
func (p *plan) zones(lv *level, stop func() bool) {
	n := len(p.steps)
	if n < 2 {
		return
	}
	p.zone = make([][]bool, n)
	p.dist = make([][]int32, n)
	for k := 0; k < n-1; k++ {
		if stop() {
			p.zone, p.dist = nil, nil
			return
		}
		p.zone[k] = p.zoneAt(lv, k)
	}
	var cur []bool
	last := 0
	for k := 0; k < n-1; k++ {
		if cur != nil && equal(p.zone[k], cur) {
			continue
		}
		if cur == nil && !anySet(p.zone[k]) {
			continue
		}
		cur = p.zone[k]
		for j := last; j <= k; j++ {
			p.zone[j] = cur
		}
		last = k
	}
	for k := 0; k < n-1; k++ {
		if stop() {
			p.zone, p.dist = nil, nil
			return
		}
		p.dist[k] = p.zoneDistance(lv, k)
	}
}

func equal(a, b []bool) bool {
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func anySet(a []bool) bool {
	for _, v := range a {
		if v {
			return true
		}
	}
	return false
}

// zoneAt returns the cells out of plan once step k is done.
func (p *plan) zoneAt(lv *level, k int) []bool {
	g := lv.empty()
	for i := 0; i <= k; i++ {
		if p.steps[i].until < 0 {
			g[p.steps[i].to] = wall
		}
	}
	next := make([]bool, len(g))
	for i := k + 1; i < len(p.steps); i++ {
		next[p.steps[i].to] = true
	}
	src := lv.sourcesOf(g, next)
	zone := make([]bool, len(g))
	for i, c := range lv.cell {
		if g[c] != wall && !lv.impossible[i] && !src[c] {
			zone[c] = true
		}
	}
	return zone
}

// zoneDistance returns the pushes from zone k to each cell, the boxes
// parked at step k standing as walls.
func (p *plan) zoneDistance(lv *level, k int) []int32 {
	g := lv.empty()
	for i := 0; i < max(k, p.starts); i++ {
		if u := p.steps[i].until; u < 0 || int(u) >= max(k, p.starts) {
			g[p.steps[i].to] = wall
		}
	}
	return lv.distanceFrom(g, p.zone[k], false)
}

// outOfPlan returns the boxes of g in the zone after packed steps.
func (p *plan) outOfPlan(lv *level, g grid, packed int32) int32 {
	if int(packed) >= len(p.zone) || p.zone[packed] == nil {
		return 0
	}
	z := p.zone[packed]
	n := int32(0)
	for _, c := range lv.cell {
		if z[c] && g[c]&box != 0 {
			n++
		}
	}
	return n
}
