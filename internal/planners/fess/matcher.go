package fess

import "math/bits"

// matcher tests whether boxes can be matched one to one with squares they
// can reach: Festival's matching deadlock (check_matching_deadlock), whose
// costs are 0 or 1, so an augmenting-path matching answers it.
type matcher struct {
	left, right []int32
	adj         [][]int32
	matchR      []int32
	seen        []uint32
	gen         uint32
	gr          *graph // pushMatched's
	reach       reachCache
}

func newMatcher(boxes int) *matcher {
	return &matcher{adj: make([][]int32, 0, boxes)}
}

// pullMatched reports whether every box of g, a position of a backward
// search, can still be pulled back to a square of its own: an open base
// (with bases set) or a start square, from which a box can be pushed to
// its square.
func (mt *matcher) pullMatched(lv *level, g grid, bases bool) bool {
	mt.left, mt.right = mt.left[:0], mt.right[:0]
	for _, c := range lv.cell {
		if g[c]&box != 0 {
			mt.left = append(mt.left, lv.idx[c])
		}
		if bases && g[c]&base != 0 || !bases && lv.start[c]&box != 0 {
			mt.right = append(mt.right, lv.idx[c])
		}
	}
	if len(mt.left) > len(mt.right) {
		return false
	}
	n := lv.n()
	mt.rows(len(mt.left))
	for i, bx := range mt.left {
		row := mt.adj[i][:0]
		for j, bs := range mt.right {
			if lv.dist[int(bs)*n+int(bx)] != inf {
				row = append(row, int32(j))
			}
		}
		mt.adj[i] = row
	}
	return mt.perfect()
}

// rows sizes adj to n rows, keeping their buffers.
func (mt *matcher) rows(n int) {
	for len(mt.adj) < n {
		mt.adj = append(mt.adj, nil)
	}
	mt.adj = mt.adj[:n]
}

// perfect reports whether adj matches every left vertex.
func (mt *matcher) perfect() bool {
	mt.matchR = mt.matchR[:0]
	for range mt.right {
		mt.matchR = append(mt.matchR, -1)
	}
	if len(mt.seen) < len(mt.right) {
		mt.seen = make([]uint32, len(mt.right))
	}
	for u := range mt.adj {
		mt.gen++
		if mt.gen == 0 {
			clear(mt.seen)
			mt.gen = 1
		}
		if !mt.augment(int32(u)) {
			return false
		}
	}
	return true
}

func (mt *matcher) augment(u int32) bool {
	for _, v := range mt.adj[u] {
		if mt.seen[v] == mt.gen {
			continue
		}
		mt.seen[v] = mt.gen
		if mt.matchR[v] < 0 || mt.augment(mt.matchR[v]) {
			mt.matchR[v] = u
			return true
		}
	}
	return false
}

// pushMatched reports whether every box of g, a forward position, can be
// given a target of its own that it could reach alone, on the board where
// the boxes that can never move again stand as walls (Festival's
// check_matching_deadlock): false is a deadlock. w and scratch are
// grid-sized buffers.
func (mt *matcher) pushMatched(lv *level, g, w, scratch grid) bool {
	lv.wallFixed(g, w, scratch)
	mt.left, mt.right = mt.left[:0], mt.right[:0]
	for _, c := range lv.cell {
		if w[c]&box != 0 {
			mt.left = append(mt.left, c)
		}
		if w[c]&target != 0 && w[c] != wall {
			mt.right = append(mt.right, c)
		}
	}
	if len(mt.left) != len(mt.right) {
		return false
	}
	rc := &mt.reach
	rc.init(lv)
	rc.shut = lv.holesInactive(w, rc.shut[:0])
	key := rc.keyOf(lv, w)
	e := rc.entry(key)
	mt.rows(len(mt.left))
	for i, c := range mt.left {
		sq := int(lv.idx[c])
		if !e.done[sq] {
			mt.searchFrom(lv, key, w, scratch, e, sq)
		}
		reached := e.bits[sq*rc.words : (sq+1)*rc.words]
		row := mt.adj[i][:0]
		for j, t := range mt.right {
			if b := rc.slot[t]; t == c || reached[b>>6]&(1<<(b&63)) != 0 {
				row = append(row, int32(j))
			}
		}
		mt.adj[i] = row
	}
	return mt.perfect()
}

// searchFrom finds the targets a lone box on inner square sq reaches in
// the box graph of w, the board with the fixed boxes walled, and keeps
// them in e. The graph is built again only when the last one built was of
// another key. scratch is a grid-sized buffer.
func (mt *matcher) searchFrom(lv *level, key uint64, w, scratch grid, e *reachEntry, sq int) {
	rc := &mt.reach
	if mt.gr == nil || rc.built != key {
		empty := scratch
		for i, v := range w {
			empty[i] = v &^ (box | player)
		}
		if mt.gr == nil {
			mt.gr = newGraph(lv, empty, false)
		} else {
			mt.gr.build(empty)
		}
		for _, v := range rc.shut {
			mt.gr.active[v] = false
		}
		rc.built = key
	}
	gr := mt.gr
	gr.reset()
	gr.startAt(sq)
	gr.iterate()
	reached := e.bits[sq*rc.words : (sq+1)*rc.words]
	clear(reached)
	for i, c := range lv.cell {
		if b := rc.slot[c]; b >= 0 && gr.around(i) != inf {
			reached[b>>6] |= 1 << (b & 63)
		}
	}
	e.done[sq] = true
}

// maxReachEntries bounds the box graphs reachCache keeps answers for;
// when full it starts over.
const maxReachEntries = 256

// reachCache keeps, per box graph pushMatched has used, the targets a lone
// box reaches from each square it was asked about. A graph depends only
// on which squares are walls (fixed boxes and closed holes among them)
// and which hole sides are shut; a search sees few of those, so most
// tests build no graph and search none.
type reachCache struct {
	// slot[c] is target cell c's bit, -1 for the other cells; words is
	// the bits' length per square.
	slot  []int32
	words int
	// squares is the number of inner squares.
	squares int
	// shut lists the graph vertices holesInactive takes out.
	shut []int32
	// table is an open-addressed index of entries by key: an entry's
	// index plus one, 0 for a free slot.
	table   []int32
	entries []reachEntry
	// built is the key of the graph the matcher holds.
	built uint64
}

// reachEntry is the cache of one box graph.
type reachEntry struct {
	key uint64
	// done[i] tells that bits[i*words:] holds inner square i's targets.
	done []bool
	bits []uint64
}

func (rc *reachCache) init(lv *level) {
	if rc.slot != nil {
		return
	}
	rc.slot = make([]int32, len(lv.start))
	n := 0
	for c, f := range lv.start {
		rc.slot[c] = -1
		if f&target != 0 && f != wall {
			rc.slot[c] = int32(n)
			n++
		}
	}
	rc.words = (n + 63) / 64
	rc.squares = lv.n()
	rc.table = make([]int32, 2*maxReachEntries)
	rc.entries = make([]reachEntry, 0, maxReachEntries)
}

// keyOf returns the key of w's box graph with rc.shut taken out.
func (rc *reachCache) keyOf(lv *level, w grid) uint64 {
	var key uint64
	for _, c := range lv.cell {
		if w[c] == wall {
			key ^= lv.zBox[c]
		}
	}
	for _, v := range rc.shut {
		key ^= bits.RotateLeft64(lv.zPlayer[lv.cell[v/4]], 16*int(v%4+1))
	}
	return key
}

// entry returns key's entry, a new one when it has none.
func (rc *reachCache) entry(key uint64) *reachEntry {
	mask := uint64(len(rc.table) - 1)
	h := key & mask
	for ; rc.table[h] != 0; h = (h + 1) & mask {
		if e := &rc.entries[rc.table[h]-1]; e.key == key {
			return e
		}
	}
	if len(rc.entries) == maxReachEntries {
		clear(rc.table)
		rc.entries = rc.entries[:0]
		h = key & mask
	}
	n := len(rc.entries)
	rc.entries = rc.entries[:n+1]
	e := &rc.entries[n]
	if e.done == nil {
		e.done = make([]bool, rc.squares)
		e.bits = make([]uint64, rc.squares*rc.words)
	}
	e.key = key
	clear(e.done)
	rc.table[h] = int32(n + 1)
	return e
}

// holesInactive takes out of gr the sides of a square from which the
// player would push a box out of a hole, a free cell walled on three
// sides, when the player could not stand there (Festival's
// make_holes_inactive): the hole is out of reach, or the player reaches
// both the hole and the square, so no box stands between. It appends
// those vertices to shut and returns it.
func (lv *level) holesInactive(g grid, shut []int32) []int32 {
	for _, c := range lv.cell {
		if g[c]&occupied != 0 {
			continue
		}
		walls := 0
		for _, d := range lv.d4 {
			if g[int(c)+d] == wall {
				walls++
			}
		}
		if walls != 3 {
			continue
		}
		for k, d := range lv.d4 {
			sq := int(c) + d
			if g[sq] == wall || !lv.inner[sq] {
				continue
			}
			v := int(lv.idx[sq])*4 + ((k + 2) & 3)
			if g[c]&player == 0 || g[sq]&player != 0 {
				shut = append(shut, int32(v))
			}
		}
	}
	return shut
}
