package fess

import (
	"github.com/sokod/sokod/sdk/macro"
)

// cells are the feature-space cells a search has found, in the order
// found, with the cursor of their round (Festival's requests).
type cells struct {
	keys  []cellKey
	index map[cellKey]int32
	pos   int
}

// add makes key a cell, if new, and the next in turn.
func (c *cells) add(key cellKey) {
	if _, ok := c.index[key]; ok {
		return
	}
	c.index[key] = int32(len(c.keys))
	c.pos = len(c.keys)
	c.keys = append(c.keys, key)
}

// next returns the cell in turn and moves the cursor on.
func (c *cells) next() int32 {
	i := c.pos
	c.pos++
	if c.pos == len(c.keys) {
		c.pos = 0
	}
	return int32(i)
}

// perimeter holds the base search's positions with every box on the
// board, by their hash without bases, and their depth: the forward search
// that meets one follows the base search's path from there to the end.
type perimeter map[uint64]int32

// add records hash at depth, keeping the least depth.
func (p perimeter) add(h uint64, depth int32) {
	if d, ok := p[h]; !ok || depth < d {
		p[h] = depth
	}
}

// search is one of Festival's searches over the tree (see mode).
type search struct {
	lv    *level
	mode  mode
	pull  bool
	t     *tree
	mv    *mover
	sc    *scorer
	plan  *plan
	cells cells
	run   *macro.Run
	// per is the base search's perimeter: filled by the base search,
	// met by the forward search.
	per   perimeter
	met   bool // the forward search has met the perimeter
	best  int32
	dead  deadlockTests
	stack []int32
	// weighted is set when a move no advisor proposes costs 1; unset,
	// every move costs 0 and the search is best-first within its cells
	// (Festival's weighted_search, off for most of the HF search).
	weighted bool
	// imagined is the position the HF search heads for (nil otherwise):
	// its boxes flagged.
	imagined grid
	asg      *macro.Assigner
	imag     []int32 // the imagined boxes' cells
	boxes    []int32
	// Scratch.
	scores  []score
	scratch grid
	scc     []bool
	g       grid
	match   *matcher
}

// newSearch returns a search in mode m. p is the parking plan (modeBases),
// imagined the position to head for (modeHF); hot the hotspot table
// (forwards), per the perimeter to fill (backwards) or meet (forwards).
func newSearch(lv *level, m mode, p *plan, imagined grid, hot *hotspots, per perimeter, run *macro.Run, dead deadlockTests, maxNodes int) *search {
	cells := len(lv.start)
	pull := m.pull()
	s := &search{lv: lv, mode: m, pull: pull, t: newTree(lv, m, maxNodes), mv: newMover(lv, pull, m == modeBase), plan: p, run: run, per: per, dead: dead,
		scratch: make(grid, cells), scc: make([]bool, cells), g: make(grid, cells), best: -1, weighted: true, imagined: imagined,
		match: newMatcher(lv.boxes)}
	s.cells.index = map[cellKey]int32{}
	s.sc = newScorer(lv, m, p, hot, imagined)
	s.mv.stop = run.Expired
	switch {
	case p != nil:
		s.mv.planned = p.planned
	case imagined != nil:
		s.mv.planned = make([]bool, cells)
		for _, c := range lv.cell {
			if imagined[c]&box != 0 {
				s.mv.planned[c] = true
				s.imag = append(s.imag, c)
			}
		}
	}
	return s
}

// prepare sets expansion e's advisors and the weights of its moves, and
// picks its best child (Festival's set_advisors_and_weights_to_last_node).
func (s *search) prepare(e int32, g grid) {
	t := s.t
	kids := t.children(e)
	s.scores = s.scores[:0]
	moves := s.mv.moves[:0]
	for _, k := range kids {
		s.scores = append(s.scores, t.nodes[k.node].sc)
		moves = append(moves, k.mv)
	}
	x := &t.exps[e]
	if s.mode == modeHF {
		s.imagineDistances(e, g)
		for i, k := range kids {
			s.scores[i] = t.nodes[k.node].sc
		}
	}
	base := t.nodes[x.node].sc
	if s.mode.hf() {
		x.adv = noAdvice()
		x.adv.pack = s.defaultAdvisor(&base, kids, s.scores)
	} else {
		x.adv = s.advise(g, &base, moves, s.scores)
	}
	for i := range kids {
		kids[i].mv.weight = 1
		if x.adv.has(int32(i)) || !s.weighted {
			kids[i].mv.weight = 0
		}
	}
	if len(kids) <= 2 && len(kids) > 0 {
		kids[0].mv.weight = 0
	}
	if s.met {
		for i := range kids {
			kids[i].mv.weight = 1
		}
	}
	t.setBest(e)
}

// place puts expansion e in its cell.
func (s *search) place(e int32) {
	t := s.t
	key := s.mode.key(&t.nodes[t.exps[e].past].sc)
	s.cells.add(key)
	t.label(e, s.cells.index[key], s.met)
}

// improve makes e the best so far if its path's best score beats the best
// so far's (Festival's update_best_so_far); it reports whether it did.
func (s *search) improve(e int32) bool {
	t := s.t
	if s.best < 0 || s.mode.better(&t.nodes[t.exps[e].past].sc, &t.nodes[t.exps[s.best].past].sc) {
		s.best = e
		return true
	}
	return false
}

// root adds g as a root of the search: the start forwards, one per region
// of the solved position backwards.
func (s *search) root(g grid) int32 {
	e := s.t.setRoot(g, s.mv, s.sc)
	s.prepare(e, g)
	s.place(e)
	s.improve(e)
	return e
}

// step picks and expands one child. It returns the new expansion, or -1
// when it expanded none (the cell was empty, or the child was dead); a
// cell with nothing to pick counts in empty.
func (s *search) step(iter int, empty *int) int32 {
	t := s.t
	var label int32
	if iter&1 == 1 || s.met {
		label = s.cells.next()
	} else {
		label = s.cells.index[s.mode.key(&t.nodes[t.exps[s.best].past].sc)]
	}
	e, son, w := t.pick(label)
	if s.met && w >= 0 && w != noWeight {
		return -1
	}
	if w == noWeight {
		*empty++
		return -1
	}
	*empty = 0
	k := t.children(e)[son]
	t.loadState(e, s.g)
	if !k.mv.base && s.deadAfter(s.g, &k.mv) {
		t.deadChild(e, son)
		return -1
	}
	return s.grow(e, son)
}

// grow expands child son of e and sets the new expansion up: its board
// in s.g, its advisors and weights, its cell, the best so far.
func (s *search) grow(e int32, son int) int32 {
	t := s.t
	nx := t.expand(e, son, s.mv, s.sc)
	t.loadState(nx, s.g)
	s.prepare(nx, s.g)
	s.place(nx)
	s.improve(nx)
	s.run.Best = max(s.run.Best, int(t.nodes[t.exps[nx].node].sc.onTargets))
	return nx
}

// deadAfter reports whether move m on g leads to a deadlock the full
// tests see (Festival's move_is_deadlocked).
func (s *search) deadAfter(g grid, m *move) bool {
	c := s.scratch
	copy(c, g)
	s.lv.apply(c, m, s.stack)
	if s.pull {
		if !s.match.pullMatched(s.lv, c, s.mode == modeBase) {
			return true
		}
		return s.lv.freePullDeadlock(c, s.t.c)
	}
	return s.dead != nil && s.dead.deadlocked(c)
}

// freePullDeadlock reports whether some box off the start squares stays
// when every box the player can pull one square is taken away, over and
// over (Festival's free_pull_deadlock).
func (lv *level) freePullDeadlock(g, scratch grid) bool {
	b := scratch
	copy(b, g)
	for changed := true; changed; {
		changed = false
		for _, c := range lv.cell {
			if b[c]&box == 0 {
				continue
			}
			for _, d := range lv.d4 {
				if b[int(c)+d]&player != 0 && b[int(c)+2*d]&occupied == 0 {
					b[c] &^= box
					b[c] |= player
					changed = true
					break
				}
			}
		}
		if changed {
			lv.cloud(b)
		}
	}
	for _, c := range lv.cell {
		if b[c]&box != 0 && lv.start[c]&box == 0 {
			return true
		}
	}
	return false
}

// deadlockTests are the forward search's full deadlock tests of a
// position, run on the child a pick is about to expand.
type deadlockTests interface {
	deadlocked(g grid) bool
}

// meet looks among expansion e's children for one in the perimeter, the
// least deep not yet expanded, and makes the path to it the one picks
// follow (Festival's check_if_perimeter_reached).
func (s *search) meet(e int32) bool {
	t := s.t
	x := &t.exps[e]
	eDepth := int32(0)
	if x.weight < 0 {
		eDepth = 2000 + x.weight
	}
	best, bestDepth := -1, int32(noWeight)
	kids := t.children(e)
	for i := range kids {
		k := &kids[i]
		d, ok := s.per[t.nodes[k.node].hash]
		if !ok || x.weight < 0 && d >= eDepth {
			continue
		}
		if k.dead || t.nodes[k.node].dead || t.nodes[k.node].exp >= 0 {
			continue
		}
		if d < bestDepth {
			best, bestDepth = i, d
		}
	}
	if best < 0 {
		return false
	}
	x.weight = -2000 + bestDepth + 1
	kids[best].mv.weight = -1
	t.setBest(e)
	q := &t.queues[x.label]
	q.remove(t, e)
	if x.best >= 0 {
		q.push(t, e)
	}
	s.met = true
	s.mv.lenient = true
	return true
}
