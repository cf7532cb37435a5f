package engine

import "slices"

// Home moves: goal macros from anywhere, in the style of YASS's moves that
// "bring the box home".
//
// Under ObjectiveAny with goal macros on, every expansion also generates,
// for every goal area with an empty goal left (of any size, see
// goalmacro.go), one move per box off the area's goals that can be pushed
// all the way to the area's next goal of the packing order (its first empty
// one) in the current position: the whole push path is one
// move, every push counted. Unlike the entrance macro (goalmacro.go) a home
// move replaces nothing: it is one more child, so it cuts no moves, and it
// is skipped when the path is a single push (a plain push already makes
// it). On goal-room levels the A* list of the default strategy follows
// such moves straight down: with an exact distance they keep f and add
// depth.
//
// Finding them costs linear passes over the board instead of a flood fill
// per push tried:
//
//  1. A depth-first search over the position's free squares gives, for
//     every free square b, which free squares stay connected when b is
//     blocked (the articulation labels of Board.Region, on the position's
//     free squares instead of the empty board): label(p, b).
//  2. A search backwards from the target pulls a virtual box over free
//     squares, the player's region when the box is on b being read from
//     the labels. It ends at a real box B next to the virtual box's square
//     b when B can be pushed onto b: the player reaches the square behind
//     B now, and after the push, standing on B's old square, touches the
//     region the pulls from b needed. The regions were computed with B in
//     place, which only makes them smaller than in the forward game, where
//     B's square is free once it has moved, so B can really go home; but
//     the path may be longer than B's shortest, and a box whose every path
//     needs its own old square is missed (a move that cuts nothing may
//     miss some).
//  3. For each box found, the labels are computed again with that box off
//     the board, and a forward search finds its shortest push path home
//     from where it stands, the player's region read from the labels. That
//     path is the move: its length matters, since A* only follows a move
//     whose pushes the bound's drop pays for.
//
// The record of a home move holds its first push, with goalFlag and
// homeFlag; rebuilding it runs step 3 again for the box on the position
// before it, which gives the same path (goTo when the move cache misses,
// pushPath).

// homeSearch is a searcher's scratch for home moves, allocated with the
// goal macros.
type homeSearch struct {
	// The depth-first search over free squares: seen[sq] == dgen marks a
	// square visited in this one; disc is its discovery time, low its low
	// link, comp its component.
	// lo/hi[sq*4+d] is the discovery interval of the subtree of sq's child
	// in direction d (empty for no child), sep[sq*4+d] whether blocking sq
	// cuts that subtree off.
	dgen      uint32
	tag       uint64 // the blocked squares' hash of the labels (freeDFS)
	tagged    bool
	seen      []uint32
	disc, low []int32
	comp      []int32
	parent    []int32
	lo, hi    []int32
	sep       []bool
	stack     []dfsFrame
	// The home moves found, and the boxes the backward search found
	// (cmark[box] == cgen).
	cands  []push
	cboxes []int16
	cmark  []uint32
	cgen   uint32
}

type dfsFrame struct {
	sq       uint16
	dir, via uint8 // next direction to try; the direction from the parent
}

func (h *homeSearch) init(n, boxes int) {
	h.seen = make([]uint32, n+1)
	h.disc = make([]int32, n+1)
	h.low = make([]int32, n+1)
	h.comp = make([]int32, n+1)
	h.parent = make([]int32, n+1)
	h.lo = make([]int32, (n+1)*4)
	h.hi = make([]int32, (n+1)*4)
	h.sep = make([]bool, (n+1)*4)
	h.stack = make([]dfsFrame, 0, n+1)
	h.cands = make([]push, 0, boxes)
	h.cboxes = make([]int16, 0, boxes)
	h.cmark = make([]uint32, boxes)
}

// freeDFS runs the depth-first search over the free squares of the
// position (see homemove.go), every component. tag is the Zobrist hash of
// the squares blocked by boxes: when it is the last search's, the labels
// are still good and nothing is done. (An expansion asks for the same board
// without one box several times: for its home move and for the entrance
// macros of its pushes.)
func (s *searcher) freeDFS(tag uint64) {
	h := &s.gm.home
	if h.tagged && h.tag == tag {
		return
	}
	h.tag, h.tagged = tag, true
	if h.dgen == ^uint32(0) {
		clear(h.seen)
		h.dgen = 0
	}
	h.dgen++
	dg := h.dgen
	t, c := int32(0), int32(0)
	boxAt, nbr := s.boxAt, s.nbr
	visit := func(sq uint16, parent int32, via uint8) {
		h.seen[sq], h.disc[sq], h.low[sq], h.comp[sq], h.parent[sq] = dg, t, t, c, parent
		i := int(sq) * 4
		h.lo[i], h.hi[i], h.lo[i+1], h.hi[i+1], h.lo[i+2], h.hi[i+2], h.lo[i+3], h.hi[i+3] = 0, 0, 0, 0, 0, 0, 0, 0
		t++
		h.stack = append(h.stack, dfsFrame{sq: sq, via: via})
	}
	for root := uint16(0); int(root) < s.b.Squares; root++ {
		if boxAt[root] != -1 || h.seen[root] == dg {
			continue
		}
		c++
		visit(root, -1, 0)
		for len(h.stack) > 0 {
			f := &h.stack[len(h.stack)-1]
			x := f.sq
			if f.dir < 4 {
				d := f.dir
				f.dir++
				m := nbr[int(x)*4+int(d)]
				if boxAt[m] != -1 {
					continue
				}
				if h.seen[m] != dg {
					visit(m, int32(x), d)
				} else if int32(m) != h.parent[x] && h.disc[m] < h.low[x] {
					h.low[x] = h.disc[m]
				}
				continue
			}
			via := f.via
			h.stack = h.stack[:len(h.stack)-1]
			if p := h.parent[x]; p >= 0 {
				h.low[p] = min(h.low[p], h.low[x])
				i := int(p)*4 + int(via)
				h.lo[i], h.hi[i], h.sep[i] = h.disc[x], t, h.low[x] >= h.disc[p]
			}
		}
	}
}

// label names the player's region of free square p when free square b is
// blocked as well: equal labels, one region (freeDFS).
func (h *homeSearch) label(p, b uint16) int32 {
	c := h.comp[p] * 5
	if h.comp[p] != h.comp[b] {
		return c + 4
	}
	d := h.disc[p]
	i := int(b) * 4
	for e := 0; e < 4; e++ {
		if d >= h.lo[i+e] && d < h.hi[i+e] {
			if h.sep[i+e] {
				return c + int32(e)
			}
			return c + 4
		}
	}
	return c + 4
}

// findHomes fills g.home.cands with the home moves of the current position:
// the backward searches of every area with an empty goal find the boxes,
// and exactHome their moves.
func (s *searcher) findHomes() {
	g := &s.gm
	h := &g.home
	h.cands, h.cboxes = h.cands[:0], h.cboxes[:0]
	if h.cgen == ^uint32(0) {
		clear(h.cmark)
		h.cgen = 0
	}
	h.cgen++
	searched := false
	for a := range g.areas {
		if s.overdue() {
			return // the expansion ends with the search
		}
		target := s.areaTarget(a)
		if target == s.wall {
			continue
		}
		if !searched {
			s.freeDFS(s.boxHash)
			searched = true
		}
		s.homeSources(int16(a), target)
	}
	for _, bi := range h.cboxes {
		if s.overdue() {
			return
		}
		if p, ok := s.exactHome(s.boxes[bi]); ok {
			h.cands = append(h.cands, p)
		}
	}
}

// areaTarget returns the first empty goal of area a's order, or the wall
// sentinel when the area is full.
func (s *searcher) areaTarget(a int) uint16 {
	for _, sq := range s.gm.areas[a].Order {
		if s.boxAt[sq] == -1 {
			return sq
		}
	}
	return s.wall
}

// homeSources is the backward search from target (see homemove.go) over
// states sq*4+side, the virtual box on sq and the player on its side; it
// appends the boxes it finds to g.home.cboxes. Boxes on goals of area a
// are home already and are not taken.
func (s *searcher) homeSources(a int16, target uint16) {
	g := &s.gm
	h := &g.home
	if g.vgen == ^uint32(0) {
		clear(g.vis)
		clear(g.exp)
		g.vgen = 0
	}
	g.vgen++
	vg := g.vgen
	boxAt, nbr := s.boxAt, s.nbr
	playerComp := h.comp[s.player]
	g.queue = g.queue[:0]
	for e := 0; e < 4; e++ {
		if m := nbr[int(target)*4+e]; boxAt[m] == -1 {
			st := int32(target)*4 + int32(e)
			g.vis[st], g.prev[st], g.depth[st] = vg, -1, 0
			g.queue = append(g.queue, st)
		}
	}
	for head := 0; head < len(g.queue); head++ {
		st := g.queue[head]
		if g.exp[st] == vg {
			continue
		}
		box, side := uint16(st/4), int(st%4)
		lbl := h.label(nbr[int(box)*4+side], box)
		for e := 0; e < 4; e++ {
			if m := nbr[int(box)*4+e]; boxAt[m] == -1 && h.label(m, box) == lbl {
				g.exp[int(box)*4+e] = vg
			}
		}
		dep := g.depth[st]
		for e := 0; e < 4; e++ {
			p := nbr[int(box)*4+e]
			if bi := boxAt[p]; bi >= 0 {
				// A real box on p, pushed onto box by the player on pp, who
				// then stands on p next to the region lbl.
				pp := nbr[int(p)*4+e]
				if dep == 0 || h.cmark[bi] == h.cgen || g.inArea[p] == a || boxAt[pp] != -1 || h.comp[pp] != playerComp {
					continue
				}
				for f := 0; f < 4; f++ {
					if m := nbr[int(p)*4+f]; m != box && boxAt[m] == -1 && h.label(m, box) == lbl {
						h.cmark[bi] = h.cgen
						h.cboxes = append(h.cboxes, bi)
						break
					}
				}
				continue
			}
			if boxAt[p] != -1 || h.label(p, box) != lbl {
				continue
			}
			// Pull towards e: the player on p steps on to q2, the box
			// follows onto p.
			if boxAt[nbr[int(p)*4+e]] != -1 {
				continue
			}
			ns := int32(p)*4 + int32(e)
			if g.vis[ns] == vg {
				continue
			}
			g.vis[ns], g.prev[ns], g.depth[ns] = vg, st, dep+1
			g.queue = append(g.queue, ns)
		}
	}
}

// exactHome finds the home move of the box on from: with the labels
// computed for the board without that box, a breadth-first search over
// (box square, player side) states for the fewest pushes that take it from
// where it stands, the player where it stands, to the next goal of the
// first area whose next goal it reaches. ok is false when it reaches none
// in at most maxMacro pushes, or only with a single push (a plain push
// makes that one). On success g.found is the final state and the prev
// links lead back to the start.
func (s *searcher) exactHome(from uint16) (p push, ok bool) {
	g := &s.gm
	h := &g.home
	bi := s.boxAt[from]
	s.boxAt[from] = -1
	defer func() { s.boxAt[from] = bi }()
	s.freeDFS(s.boxHash ^ s.zbox[from])
	lbl0 := h.label(s.player, from)
	for a := range g.areas {
		target := s.areaTarget(a)
		if target == s.wall || target == from {
			continue
		}
		if st, found := s.boxPath(from, target, -1, maxMacro, lbl0); found {
			if g.depth[st] < 2 {
				return push{}, false
			}
			second := st // the state after the first push
			for g.prev[g.prev[second]] >= 0 {
				second = g.prev[second]
			}
			last := uint16(g.prev[st] / 4)
			return push{from: from, dir: uint8(second%4) ^ 2, more: uint8(g.depth[st] - 1), goal: true, home: true,
				end: target, last: last, ldir: uint8(st%4) ^ 2}, true
		}
	}
	return push{}, false
}

// boxPath searches breadth-first for the fewest pushes, at most room, that
// take the box on from to target, the player starting in the region
// labelled lbl0, over free squares of area a (any free squares for a < 0).
// The labels must be those of the board without the box (freeDFS with its
// square free). It returns the final state, also left in g.found.
func (s *searcher) boxPath(from, target uint16, a int16, room int, lbl0 int32) (int32, bool) {
	g := &s.gm
	h := &g.home
	if g.vgen == ^uint32(0) {
		clear(g.vis)
		clear(g.exp)
		g.vgen = 0
	}
	g.vgen++
	vg := g.vgen
	boxAt, nbr := s.boxAt, s.nbr
	g.queue = g.queue[:0]
	for e := 0; e < 4; e++ {
		if m := nbr[int(from)*4+e]; boxAt[m] == -1 && h.label(m, from) == lbl0 {
			st := int32(from)*4 + int32(e)
			g.vis[st], g.prev[st], g.depth[st] = vg, -1, 0
			g.queue = append(g.queue, st)
			break
		}
	}
	for head := 0; head < len(g.queue); head++ {
		st := g.queue[head]
		if g.exp[st] == vg {
			continue
		}
		box, side := uint16(st/4), int(st%4)
		lbl := h.label(nbr[int(box)*4+side], box)
		for e := 0; e < 4; e++ {
			if m := nbr[int(box)*4+e]; boxAt[m] == -1 && h.label(m, box) == lbl {
				g.exp[int(box)*4+e] = vg
			}
		}
		d := g.depth[st] + 1
		if int(d) > room {
			continue
		}
		for dir := 0; dir < 4; dir++ {
			behind := nbr[int(box)*4+(dir^2)]
			t := nbr[int(box)*4+dir]
			if boxAt[behind] != -1 || boxAt[t] != -1 || (a >= 0 && g.inArea[t] != a) || h.label(behind, box) != lbl {
				continue
			}
			ns := int32(t)*4 + int32(dir^2)
			if g.vis[ns] == vg {
				continue
			}
			g.vis[ns], g.prev[ns], g.depth[ns] = vg, st, d
			if t == target {
				g.found = ns
				return ns, true
			}
			g.queue = append(g.queue, ns)
		}
	}
	return 0, false
}

// homeMoves returns moves followed by the home moves of the current
// position. The slice is scratch, valid until the next call.
func (s *searcher) homeMoves(moves []push) []push {
	g := &s.gm
	g.all = append(g.all[:0], moves...)
	s.findHomes()
	g.all = append(g.all, g.home.cands...)
	return g.all
}

// redoHome finds again, in the current position, the home move whose first
// push is (from, dir); see redoGoal. Its path stays in the search links
// (homePushes).
func (s *searcher) redoHome(from uint16, dir uint8) push {
	p, ok := s.exactHome(from)
	if !ok || p.dir != dir {
		panic("engine: internal error: a home move does not repeat")
	}
	return p
}

// homePushes appends the single pushes of the home move just found again
// by redoHome.
func (s *searcher) homePushes(out []push) []push {
	g := &s.gm
	start := len(out)
	for st := g.found; g.prev[st] >= 0; st = g.prev[st] {
		out = append(out, push{from: uint16(g.prev[st] / 4), dir: uint8(st%4) ^ 2})
	}
	slices.Reverse(out[start:])
	return out
}
