package fess

// The search tree of Festival's FESS (tree.cpp). A node is a position seen
// as a child, with its score; an expansion is a node whose children were
// generated, with its board and, per child, the move to it and its
// weight. Every expansion waits in the queue of its feature-space cell
// (its label) with its best child not yet expanded; a pick takes the
// expansion of least weight (its path's weight plus the child's move)
// and expands that one child.

// noWeight is the weight of an expansion with no child left.
const noWeight = 1000000

type node struct {
	hash uint64
	sc   score
	exp  int32 // its expansion, or -1
	dead bool
}

type child struct {
	mv   move
	node int32
	dead bool
}

type expansion struct {
	node, father int32
	depth        int32
	// weight is the sum of the moves' weights along the path.
	weight int32
	label  int32
	// kids is the first of its children in tree.kids, nkids their number.
	kids, nkids int32
	// best is the child a pick takes next, bestWeight its weight (weight
	// plus the move's), bestScore its score; best is -1 when none is left.
	best       int32
	bestWeight int32
	bestScore  score
	// past is the node whose score is the best along the path: the
	// expansion's cell is that score's.
	past      int32
	hasCorral bool
	adv       advisors
	// subtree counts the expansions below and including this one.
	subtree int32
	// leaf is a child that leads to a child not yet expanded (a leaf),
	// when it was last known; -1 for none.
	leaf int32
	// state is the offset of its position in tree.states.
	state int32
}

// tree is one search's tree.
type tree struct {
	lv    *level
	mode  mode
	pull  bool
	nodes []node
	table hashTable
	exps  []expansion
	kids  []child
	// states holds each expansion's position: the player's first cell,
	// the number of boxes, their cells, the number of open bases, theirs.
	states []uint16
	queues []queue
	// maxNodes bounds the nodes; past it the search stops.
	maxNodes int
	// Scratch.
	g, c grid
	// cycleDeadlock's: findLeaf's stack, the expansions it reached and
	// its marks of them (seen[i] == mark).
	frames  []frame
	reached []int32
	seen    []uint32
	mark    uint32
}

func newTree(lv *level, m mode, maxNodes int) *tree {
	cells := len(lv.start)
	t := &tree{lv: lv, mode: m, pull: m.pull(), maxNodes: maxNodes, g: make(grid, cells), c: make(grid, cells)}
	t.table.init(1 << 16)
	return t
}

// full reports whether the tree is nearly at its bound.
func (t *tree) full() bool { return len(t.nodes) >= t.maxNodes-maxMoves }

// find returns the node of hash, or -1.
func (t *tree) find(h uint64) int32 { return t.table.find(h) }

// addNode adds a node.
func (t *tree) addNode(h uint64, sc score) int32 {
	id := int32(len(t.nodes))
	t.nodes = append(t.nodes, node{hash: h, sc: sc, exp: -1})
	t.table.insert(h, id)
	return id
}

// saveState appends g's position to states and returns its offset.
func (t *tree) saveState(g grid) int32 {
	lv := t.lv
	off := int32(len(t.states))
	first := -1
	nb, nbase := 0, 0
	for _, c := range lv.cell {
		if first < 0 && g[c]&player != 0 {
			first = int(c)
		}
		if g[c]&box != 0 {
			nb++
		}
		if g[c]&base != 0 {
			nbase++
		}
	}
	t.states = append(t.states, uint16(first), uint16(nb))
	for _, c := range lv.cell {
		if g[c]&box != 0 {
			t.states = append(t.states, uint16(c))
		}
	}
	t.states = append(t.states, uint16(nbase))
	for _, c := range lv.cell {
		if g[c]&base != 0 {
			t.states = append(t.states, uint16(c))
		}
	}
	return off
}

// loadState sets g to the position of expansion e.
func (t *tree) loadState(e int32, g grid) {
	lv := t.lv
	s := t.states[t.exps[e].state:]
	for i, f := range lv.start {
		g[i] = f &^ (box | player)
	}
	nb := int(s[1])
	for _, c := range s[2 : 2+nb] {
		g[c] |= box
	}
	nbase := int(s[2+nb])
	for _, c := range s[3+nb : 3+nb+nbase] {
		g[c] |= base
	}
	g[s[0]] |= player
	lv.flood(g, []int32{int32(s[0])})
}

// board returns expansion e's position in a grid of its own.
func (t *tree) board(e int32) grid {
	g := make(grid, len(t.lv.start))
	t.loadState(e, g)
	return g
}

// children returns expansion e's children.
func (t *tree) children(e int32) []child {
	x := &t.exps[e]
	return t.kids[x.kids : x.kids+x.nkids]
}

// moveTo returns the move from expansion e's father to e.
func (t *tree) moveTo(e int32) move {
	x := &t.exps[e]
	for _, k := range t.children(x.father) {
		if k.node == x.node {
			return k.mv
		}
	}
	panic("fess: an expansion is no child of its father")
}

// fill generates the moves of expansion e, on board g, and adds the new
// children as nodes (Festival's fill_expansion_structures).
func (t *tree) fill(e int32, g grid, mv *mover, sc *scorer) {
	moves, corral := mv.generate(g)
	x := &t.exps[e]
	x.hasCorral = corral
	x.kids = int32(len(t.kids))
	x.nkids = int32(len(moves))
	lv := t.lv
	hb := lv.boxHash(g)
	for i := range moves {
		if i%256 == 255 && mv.stopped() {
			x.nkids = int32(i)
			break
		}
		m := &moves[i]
		if m.base {
			// Without its box the player may reach further.
			copy(t.c, g)
			m.norm = lv.apply(t.c, m, mv.stack)
		}
		h := lv.childHash(hb, m)
		id := t.find(h)
		if id < 0 {
			// The score needs no player: move the box alone.
			copy(t.c, g)
			t.c[m.from] &^= box
			if m.base {
				t.c[m.to] &^= base
			} else {
				t.c[m.to] |= box
			}
			id = t.addNode(h, sc.score(t.c))
		}
		t.kids = append(t.kids, child{mv: *m, node: id})
	}
	t.setLeaf(e)
}

// setLeaf sets e's leaf: its first live child not expanded.
func (t *tree) setLeaf(e int32) {
	x := &t.exps[e]
	x.leaf = -1
	if t.nodes[x.node].dead {
		return
	}
	for i, k := range t.children(e) {
		n := &t.nodes[k.node]
		if !k.dead && !n.dead && n.exp < 0 {
			x.leaf = int32(i)
			return
		}
	}
}

// cycleDeadlock follows the leaves from best and, when they lead to no
// leaf, searches the expansions best reaches, depth first, for a child not
// yet expanded: found, the path to it becomes their leaves; not found,
// every expansion the search reached is dead, since none leads to a
// position still to expand (Festival's check_cycle_deadlock sweeps the
// whole tree instead, so it also finds the dead expansions best does not
// reach; those die here once a best reaches them).
func (t *tree) cycleDeadlock(best int32) {
	e := best
	for depth := 0; t.exps[e].leaf >= 0; depth++ {
		x := &t.exps[e]
		if t.nodes[x.node].dead || depth > len(t.exps) {
			break
		}
		n := &t.nodes[t.children(e)[x.leaf].node]
		if n.dead {
			break
		}
		if n.exp < 0 {
			return
		}
		e = n.exp
	}
	if !t.findLeaf(best) {
		for _, f := range t.reached {
			t.nodes[t.exps[f].node].dead = true
		}
	}
}

// frame is a step of findLeaf's search: an expansion and the child it
// follows.
type frame struct{ e, j int32 }

// findLeaf searches depth first from expansion root for a live child not
// yet expanded and, if it finds one, sets the leaves along the path to
// it. The expansions it reached are left in t.reached.
func (t *tree) findLeaf(root int32) bool {
	t.reached = t.reached[:0]
	if t.nodes[t.exps[root].node].dead {
		return false
	}
	for len(t.seen) < len(t.exps) {
		t.seen = append(t.seen, 0)
	}
	if t.mark++; t.mark == 0 {
		clear(t.seen)
		t.mark = 1
	}
	t.seen[root] = t.mark
	t.reached = append(t.reached, root)
	t.frames = append(t.frames[:0], frame{root, 0})
	for len(t.frames) > 0 {
		top := len(t.frames) - 1
		f := &t.frames[top]
		kids := t.children(f.e)
		next := int32(-1)
		for ; int(f.j) < len(kids); f.j++ {
			k := &kids[f.j]
			if k.dead {
				continue
			}
			n := &t.nodes[k.node]
			if n.dead {
				k.dead = true
				continue
			}
			if n.exp < 0 {
				for _, g := range t.frames {
					t.exps[g.e].leaf = g.j
				}
				return true
			}
			if t.seen[n.exp] != t.mark {
				next = n.exp
				break
			}
		}
		if next < 0 {
			t.frames = t.frames[:top]
			if top > 0 {
				t.frames[top-1].j++
			}
			continue
		}
		t.seen[next] = t.mark
		t.reached = append(t.reached, next)
		t.frames = append(t.frames, frame{next, 0})
	}
	return false
}

// newExpansion makes node id an expansion with board g.
func (t *tree) newExpansion(id, father int32, g grid) int32 {
	e := int32(len(t.exps))
	t.exps = append(t.exps, expansion{node: id, father: father, best: -1, bestWeight: noWeight, past: id, label: -1, state: t.saveState(g)})
	t.nodes[id].exp = e
	return e
}

// setRoot adds the search's root, board g (Festival's set_root).
func (t *tree) setRoot(g grid, mv *mover, sc *scorer) int32 {
	h := t.lv.hash(g)
	id := t.find(h)
	if id < 0 {
		id = t.addNode(h, sc.score(g))
	}
	e := t.newExpansion(id, -1, g)
	t.fill(e, g, mv, sc)
	t.deadlockStatus(e)
	t.exps[e].subtree = 1
	return e
}

// expand expands child son of expansion e (Festival's expand_node).
func (t *tree) expand(e int32, son int, mv *mover, sc *scorer) int32 {
	k := t.children(e)[son]
	t.loadState(e, t.g)
	t.lv.apply(t.g, &k.mv, mv.stack)
	nx := t.newExpansion(k.node, e, t.g)
	x, f := &t.exps[nx], &t.exps[e]
	x.past = f.past
	if t.mode.better(&t.nodes[k.node].sc, &t.nodes[f.past].sc) {
		x.past = k.node
	}
	x.weight = f.weight + int32(k.mv.weight)
	x.depth = f.depth + 1
	t.fill(nx, t.g, mv, sc)
	t.deadlockStatus(nx)
	for y := nx; y >= 0; y = t.exps[y].father {
		t.exps[y].subtree++
	}
	return nx
}

// solved reports whether expansion e's position is solved.
func (t *tree) solved(e int32, g grid) bool {
	if t.exps[e].depth == 0 {
		return false
	}
	if t.pull {
		return t.lv.solvedPull(g)
	}
	return t.lv.solvedPush(g)
}

// deadlockStatus marks e's children that are dead, and e itself when all
// are, then its father's (Festival's set_deadlock_status).
func (t *tree) deadlockStatus(e int32) {
	for e >= 0 {
		x := &t.exps[e]
		if t.nodes[x.node].dead {
			return
		}
		if t.solved(e, t.boardIfSolvable(e)) {
			return
		}
		kids := t.children(e)
		alive := false
		for i := range kids {
			if !kids[i].dead && t.nodes[kids[i].node].dead {
				kids[i].dead = true
			}
			if !kids[i].dead {
				alive = true
			}
		}
		if alive {
			return
		}
		t.nodes[x.node].dead = true
		e = x.father
	}
}

// boardIfSolvable loads expansion e's board into the scratch grid.
func (t *tree) boardIfSolvable(e int32) grid {
	t.loadState(e, t.c)
	return t.c
}

// setBest picks expansion e's best child not yet expanded: least move
// weight, then best score (Festival's set_best_move).
func (t *tree) setBest(e int32) {
	x := &t.exps[e]
	x.best, x.bestWeight = -1, noWeight
	if t.nodes[x.node].dead {
		return
	}
	bw := int32(noWeight)
	var bs score
	kids := t.children(e)
	for i := range kids {
		k := &kids[i]
		if k.dead {
			continue
		}
		n := &t.nodes[k.node]
		if n.exp >= 0 {
			continue
		}
		if n.dead {
			k.dead = true
			continue
		}
		w := int32(k.mv.weight)
		if w > bw {
			continue
		}
		if w < bw || t.mode.better(&n.sc, &bs) {
			bw, x.best, bs = w, int32(i), n.sc
		}
	}
	if bw != noWeight {
		x.bestScore = bs
		x.bestWeight = x.weight + bw
		return
	}
	t.deadlockStatus(e)
}

// bestAvailable reports whether e's best child is still to expand.
func (t *tree) bestAvailable(e int32) bool {
	x := &t.exps[e]
	if x.best < 0 {
		return false
	}
	k := &t.children(e)[x.best]
	if k.dead {
		return false
	}
	n := &t.nodes[k.node]
	if n.dead {
		k.dead = true
		return false
	}
	return n.exp < 0
}

// pick takes the best child of the cell label (Festival's
// best_move_in_tree): the expansion and child, and its weight; noWeight
// when the cell has none.
func (t *tree) pick(label int32) (e int32, son int, w int32) {
	q := &t.queues[label]
	for {
		if q.len() == 0 {
			return -1, -1, noWeight
		}
		x := q.pop(t)
		e, son = -1, -1
		if t.bestAvailable(x) {
			e, son, w = x, int(t.exps[x].best), t.exps[x].bestWeight
		}
		t.setBest(x)
		if t.exps[x].best >= 0 {
			q.push(t, x)
		}
		if e >= 0 {
			return e, son, w
		}
	}
}

// deadChild marks child son of e dead (Festival's set_node_as_deadlocked).
func (t *tree) deadChild(e int32, son int) {
	k := &t.children(e)[son]
	t.nodes[k.node].dead = true
	k.dead = true
	t.deadlockStatus(e)
}

// label puts expansion e in the queue of cell label (Festival's
// add_label_to_last_node).
func (t *tree) label(e, label int32, perimeter bool) {
	for int(label) >= len(t.queues) {
		t.queues = append(t.queues, queue{})
	}
	t.exps[e].label = label
	if perimeter {
		t.setBest(e)
	}
	if t.exps[e].best >= 0 {
		t.queues[label].push(t, e)
	}
}

// bestNode returns the best live expansion below the root, positions
// without a corral first (Festival's best_node_in_tree), or -1.
func (t *tree) bestNode() int32 {
	res := int32(-1)
	for i := range t.exps {
		e := int32(i)
		x := &t.exps[e]
		if t.nodes[x.node].dead {
			continue
		}
		if res < 0 {
			res = e
			continue
		}
		r := &t.exps[res]
		if x.depth == 0 {
			continue
		}
		if r.depth == 0 {
			res = e
			continue
		}
		if x.hasCorral {
			continue
		}
		if r.hasCorral {
			res = e
			continue
		}
		if t.mode.better(&t.nodes[x.node].sc, &t.nodes[r.node].sc) {
			res = e
		}
	}
	return res
}

// queue is a binary heap of expansions: least best weight first, then
// best child's score, then oldest.
type queue struct{ h []int32 }

func (q *queue) len() int { return len(q.h) }

func (t *tree) before(a, b int32) bool {
	x, y := &t.exps[a], &t.exps[b]
	if x.bestWeight != y.bestWeight {
		return x.bestWeight < y.bestWeight
	}
	if t.mode.better(&x.bestScore, &y.bestScore) {
		return true
	}
	if t.mode.better(&y.bestScore, &x.bestScore) {
		return false
	}
	return a < b
}

func (q *queue) push(t *tree, e int32) {
	q.h = append(q.h, e)
	i := len(q.h) - 1
	for i > 0 {
		p := (i - 1) / 2
		if !t.before(q.h[i], q.h[p]) {
			break
		}
		q.h[i], q.h[p] = q.h[p], q.h[i]
		i = p
	}
}

func (q *queue) pop(t *tree) int32 {
	top := q.h[0]
	last := len(q.h) - 1
	q.h[0] = q.h[last]
	q.h = q.h[:last]
	q.down(t, 0)
	return top
}

func (q *queue) down(t *tree, i int) {
	for {
		l, r, m := 2*i+1, 2*i+2, i
		if l < len(q.h) && t.before(q.h[l], q.h[m]) {
			m = l
		}
		if r < len(q.h) && t.before(q.h[r], q.h[m]) {
			m = r
		}
		if m == i {
			return
		}
		q.h[i], q.h[m] = q.h[m], q.h[i]
		i = m
	}
}

// remove takes e out of the queue, if there.
func (q *queue) remove(t *tree, e int32) {
	for i, x := range q.h {
		if x != e {
			continue
		}
		last := len(q.h) - 1
		q.h[i] = q.h[last]
		q.h = q.h[:last]
		if i < len(q.h) {
			q.down(t, i)
			// Up as well: the moved element may be better than its parent.
			for j := i; j > 0; {
				p := (j - 1) / 2
				if !t.before(q.h[j], q.h[p]) {
					break
				}
				q.h[j], q.h[p] = q.h[p], q.h[j]
				j = p
			}
		}
		return
	}
}

// hashTable maps position hashes to nodes, by open addressing.
type hashTable struct {
	keys []uint64
	vals []int32
	n    int
}

func (h *hashTable) init(size int) {
	h.keys = make([]uint64, size)
	h.vals = make([]int32, size)
	h.n = 0
}

func (h *hashTable) find(k uint64) int32 {
	mask := uint64(len(h.keys) - 1)
	for i := k & mask; ; i = (i + 1) & mask {
		if h.keys[i] == k && h.vals[i] != 0 {
			return h.vals[i] - 1
		}
		if h.vals[i] == 0 {
			return -1
		}
	}
}

func (h *hashTable) insert(k uint64, v int32) {
	if 2*(h.n+1) > len(h.keys) {
		old, oldv := h.keys, h.vals
		h.init(2 * len(old))
		for i, key := range old {
			if oldv[i] != 0 {
				h.insert(key, oldv[i]-1)
			}
		}
	}
	mask := uint64(len(h.keys) - 1)
	i := k & mask
	for h.vals[i] != 0 {
		i = (i + 1) & mask
	}
	h.keys[i], h.vals[i] = k, v+1
	h.n++
}
