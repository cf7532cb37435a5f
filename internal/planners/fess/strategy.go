package fess

// Festival's strategy A: a base search backwards from the solved position
// takes the boxes off at the squares they start on; its path, read
// forwards, is the parking plan; the forward search follows the plan and
// meets the base search's positions.

// exhausted is a search's reason when no position is left to expand.
const exhausted = "search space exhausted"

// maxPlanDepth bounds the base search's path that becomes a plan
// (Festival's MAX_SOL_LEN less the boxes).
const maxPlanDepth = 1500 - 2

// maxFailedPicks ends the base search after this many picks in a row
// found nothing: a few boxes left moving around bases they cannot leave
// at.
const maxFailedPicks = 10000

// backResult is what a backward search leaves: the perimeter, and the
// parking plan (modeBase) or the imagined position (modeBicon,
// modeSpread).
type backResult struct {
	plan     *plan
	imagined grid
	per      perimeter
	why      string
}

// backward runs a backward search, the base search (modeBase, Festival's
// packing_search with BASE_SEARCH) or a spreading one (modeBicon with
// BICON_SEARCH, modeSpread with HF_SEARCH), until its leg of the run is
// spent, it has taken every box off (modeBase) or it reaches the start.
func backward(lv *level, s *search) *backResult {
	res := &backResult{per: perimeter{}}
	s.per = res.per
	g := lv.reverseStart(s.mode == modeBase)
	zones, n := lv.startZones()
	probe := newMover(lv, true, false)
	c := make(grid, len(g))
	for z := range n {
		copy(c, g)
		lv.playerInZone(c, zones, int32(z))
		if !probe.anyMove(c) {
			continue
		}
		h := lv.hash(c)
		if s.t.find(h) < 0 {
			s.t.addNode(h, s.sc.score(c))
		}
	}
	for z := range n {
		copy(c, g)
		lv.playerInZone(c, zones, int32(z))
		if !probe.anyMove(c) {
			continue
		}
		if id := s.t.find(lv.hash(c)); id >= 0 && s.t.nodes[id].exp >= 0 {
			continue
		}
		e := s.root(c)
		s.insertPerimeter(e, true)
	}
	if s.best < 0 {
		res.why = "the backward search found no pull"
		return res
	}
	failed := 0
	for iter := 1; ; iter++ {
		if stop, why := s.run.Tick(); stop {
			res.why = why
			break
		}
		t := s.t
		var label int32
		if iter&1 == 1 {
			label = s.cells.next()
		} else {
			label = s.cells.index[s.mode.key(&t.nodes[t.exps[s.best].past].sc)]
		}
		e, son, w := t.pick(label)
		if failed >= maxFailedPicks {
			res.why = "the backward search is stuck"
			break
		}
		if w == noWeight {
			failed++
			if failed >= maxFailedPicks || failed > 2*len(s.cells.keys)+2 && s.drained() {
				res.why = "the backward search has searched every position"
				break
			}
			continue
		}
		failed = 0
		k := t.children(e)[son]
		t.loadState(e, s.g)
		if !k.mv.base && s.deadAfter(s.g, &k.mv) {
			t.deadChild(e, son)
			continue
		}
		if s.mode == modeBase && !s.reversible(s.g, &k.mv) {
			t.children(e)[son].dead = true
			t.deadlockStatus(e)
			continue
		}
		nx := s.grow(e, son)
		if t.solved(nx, s.g) {
			break
		}
		if t.nodes[t.exps[s.best].node].dead {
			s.best = t.bestNode()
		}
		if s.best < 0 {
			res.why = "the backward search has searched every position"
			break
		}
		if t.nodes[t.exps[nx].node].sc.inLevel == 0 || t.full() {
			break
		}
		s.insertPerimeter(nx, true)
	}
	if s.best < 0 {
		return res
	}
	if s.mode.hf() {
		res.imagined = s.t.board(s.best)
		return res
	}
	if s.t.exps[s.best].depth < maxPlanDepth-int32(lv.boxes) {
		res.plan = newPlan(lv, s.t, s.best, s.run.Expired)
	}
	return res
}

// drained reports whether no cell has a child left to pick.
func (s *search) drained() bool {
	for i := range s.t.queues {
		if s.t.queues[i].len() > 0 {
			return false
		}
	}
	return true
}

// insertPerimeter adds expansion e's position, and with kids set its
// children's, to the perimeter when every box is on the board.
func (s *search) insertPerimeter(e int32, kids bool) {
	t := s.t
	lv := s.lv
	x := &t.exps[e]
	if t.nodes[x.node].sc.inLevel == int32(lv.boxes) {
		t.loadState(e, s.g)
		s.per.add(lv.hashNoBases(s.g), x.depth)
	}
	if !kids {
		return
	}
	for _, k := range t.children(e) {
		if k.mv.base || t.nodes[k.node].sc.inLevel != int32(lv.boxes) {
			continue
		}
		t.loadState(e, s.g)
		lv.apply(s.g, &k.mv, s.stack)
		s.per.add(lv.hashNoBases(s.g), x.depth+1)
	}
}

// reversible reports whether the pull m on g can be played back as a push
// in the plan: it makes no PI-corral that leaves the pulled box out
// (Festival's can_played_reversed).
func (s *search) reversible(g grid, m *move) bool {
	lv := s.lv
	c := s.scratch
	copy(c, g)
	lv.apply(c, m, s.stack)
	if lv.solvedPull(c) {
		return true
	}
	if lv.connectivity(c, s.sc.mark, &s.sc.gen, s.stack) <= 1 {
		return true
	}
	for _, x := range lv.cell {
		c[x] &^= base
	}
	w := make(grid, len(c))
	lv.wallFixed(c, w, s.t.c)
	opts := s.mv.options
	if s.mv.corrals.detect(w, opts) {
		if m.base || !opts[m.to] {
			return false
		}
	}
	return true
}

// reverseStart returns a backward search's start: a box on every target,
// no player and, with bases set, a base on every square a box starts on.
func (lv *level) reverseStart(bases bool) grid {
	g := make(grid, len(lv.start))
	for i, f := range lv.start {
		f &^= player
		if f == box {
			f = 0
		}
		if f == target {
			f = box | target
		}
		if bases && lv.start[i]&box != 0 {
			f |= base
		}
		g[i] = f
	}
	return g
}

// startZones labels the regions of the empty board with the targets as
// walls: where the player may stand when the level is solved.
func (lv *level) startZones() ([]int32, int) {
	g := lv.empty()
	for i, f := range g {
		if f&target != 0 {
			g[i] = wall
		}
	}
	zones := make([]int32, len(g))
	for i := range zones {
		zones[i] = -1
	}
	n := 0
	var stack []int32
	for _, c := range lv.cell {
		if g[c]&occupied != 0 || zones[c] >= 0 {
			continue
		}
		zones[c] = int32(n)
		stack = append(stack[:0], c)
		for len(stack) > 0 {
			x := int(stack[len(stack)-1])
			stack = stack[:len(stack)-1]
			for _, d := range lv.d4 {
				if y := x + d; g[y]&occupied == 0 && zones[y] < 0 {
					zones[y] = int32(n)
					stack = append(stack, int32(y))
				}
			}
		}
		n++
	}
	return zones, n
}

// playerInZone puts the player on every free cell of zone z of g.
func (lv *level) playerInZone(g grid, zones []int32, z int32) {
	lv.clearPlayer(g)
	var stack []int32
	for _, c := range lv.cell {
		if zones[c] == z && g[c]&occupied == 0 {
			g[c] |= player
			stack = append(stack, c)
		}
	}
	lv.flood(g, stack)
}

// anyMove reports whether g has a move.
func (m *mover) anyMove(g grid) bool {
	moves, _ := m.generate(g)
	return len(moves) > 0
}

// forwardSearch runs the forward search with bases (Festival's FESS with
// FORWARD_WITH_BASES). It returns the solved expansion, or -1 and why not.
func forwardSearch(lv *level, s *search) (int32, string) {
	g := make(grid, len(lv.start))
	copy(g, lv.start)
	if _, ok := s.per[lv.hash(g)]; ok {
		s.mv.lenient = true
	}
	s.root(g)
	empty := 0
	for iter := 1; ; iter++ {
		if stop, why := s.run.Tick(); stop {
			return -1, why
		}
		nx := s.step(iter, &empty)
		if nx < 0 {
			if empty > 2*len(s.cells.keys)+2 && s.drained() {
				return -1, exhausted
			}
			continue
		}
		t := s.t
		if t.solved(nx, s.g) {
			return nx, ""
		}
		t.cycleDeadlock(s.best)
		if t.nodes[t.exps[s.best].node].dead {
			s.best = t.bestNode()
		}
		if s.best < 0 {
			return -1, exhausted
		}
		if t.full() {
			return -1, "memory budget spent"
		}
		if s.per != nil && s.meet(nx) {
			key := t.nodes[t.exps[nx].past].sc.key(false)
			s.cells.pos = int(s.cells.index[key])
		}
	}
}
