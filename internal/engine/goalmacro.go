package engine

import (
	"context"
	"fmt"
	"slices"
)

// Goal macros: a packing order for goal areas, in the style of Rolling
// Stone's goal macros and YASS's packing order, and home moves
// (homemove.go). Both apply under ObjectiveAny only, unless Options.Off
// holds TechGoalMacros; under ObjectivePushes they are off, so optimality
// proofs keep holding.
//
// A goal area is a maximal set of goal squares connected through goal
// squares (4-neighbourhood), of minAreaGoals to maxAreaGoals squares. Only
// goal squares belong to an area: a non-goal square between goals splits
// them into two areas. That keeps the definition exact and cheap, and it
// covers the goal rows, columns and blocks that goal rooms are made of.
//
// An entrance of an area is a square e off it with a direction d such that
// e+d is in the area, e-d is floor, and a lone box starting on some box's
// start square off the area can be pushed to e without entering the area
// (orderSearch.outside): boxes really come in from there. A square next to
// the area that boxes only reach through the area (a pocket behind it) is
// no entrance.
//
// The packing order is computed once per level by a reverse search on a
// board where the area is filled and every other box is ignored: a box is
// pulled out of the area to an entrance, through empty area squares only,
// the player starting in the region of the anchor (the player's start
// square, or when that lies in the area the first square off it); the goal
// it came from is the last one to fill. Among the goals that can be pulled
// out, the one with the fewest pulls goes last (the goal nearest an
// entrance is filled last). The rest are ordered the same way. Taking any
// goal that can be pulled out never loses an order that exists: removing a
// box from the area only frees squares, so every pull possible before is
// possible after. When at some step no box can be pulled out, the area has
// no order and gets neither macro nor home moves. Forward, the order says:
// with the goals before o_k filled (and no other boxes near), a box on some
// entrance can be pushed to o_k through the area.
//
// The entrance macro, for areas of at least minMacroGoals goals: when a
// move (a push with its tunnel pushes) brings a box from off the area onto
// one of its entrances or squares, and the area's first empty goal of the
// order (not counting the box itself) is not where the box stands, the box
// is pushed on along a fewest-pushes path through empty area squares to
// that goal, the player's reach checked for every push with the real boxes
// (boxPath). The whole run is one move: every push counts in g. When no
// such path exists the move stays as it was. A box moved within its area or
// out of it is left alone: the macro would only push it back. So when the
// macro applies the position with the box on the entrance is not
// generated: the macro cuts moves, and a search that exhausts its space
// with it proves nothing. Solve then searches again without goal macros
// (with what is left of the node budget), so that Unsolvable always rests
// on the plain search; a search in which no entrance macro fired cut
// nothing (home moves only add children), and its exhaustion stands.
//
// The transposition table record of a macro move holds its first push (the
// box's square, with goalFlag set, and the direction): the rest is
// recomputed from the position before the move, which is the same every
// time (the first push fixes the player's square, and the tunnel pushes
// and the path search are deterministic). goTo does that when the move is
// not in the move cache (remember, recall), pushPath always.

const (
	// minAreaGoals and maxAreaGoals bound the size of a goal area. A lone
	// goal is no area: it has no packing order to follow. The upper bound
	// caps the order computation, quadratic in the area's size with a
	// flood fill per pull state.
	minAreaGoals = 2
	maxAreaGoals = 64
	// minMacroGoals is the size from which an area gets the entrance
	// macro, which cuts moves; smaller areas get home moves only. On
	// Microban's small areas of two to four goals, often in open floor that
	// boxes pass through, the cut cost more expansions than it saved (and
	// lost a level at 200,000); XSokoban's goal rooms, six goals and more,
	// need it (see the measurements in the commit that set it).
	minMacroGoals = 5
	// goalFlag marks a record whose move is a goal macro; square numbers
	// stay below MaxSquares = 1<<14.
	goalFlag = 1 << 15
	// homeFlag marks, with goalFlag, a record whose move is a home move.
	homeFlag = 1 << 14
)

// goalArea is one goal area with its packing order.
type goalArea struct {
	// squares are the area's goal squares, ascending.
	squares []uint16
	// order lists them in the order they are filled: order[0] first.
	order []uint16
	// entrances are the area's entrances, ascending.
	entrances []uint16
}

// computeGoalAreas finds the goal areas, their entrances and packing
// orders (see goalmacro.go), and fills b.areas, b.inArea and b.macroArea.
func (b *Board) computeGoalAreas(ctx context.Context) error {
	n := b.Squares
	wall := uint16(n)
	b.inArea = make([]int16, n+1)
	b.macroArea = make([]int16, n+1)
	for i := range b.inArea {
		b.inArea[i], b.macroArea[i] = -1, -1
	}
	if n == 0 {
		return nil
	}
	seen := make([]bool, n)
	po := newOrderSearch(b)
	for _, g0 := range b.Goals {
		if seen[g0] {
			continue
		}
		if err := ctx.Err(); err != nil {
			return fmt.Errorf("engine: analysis stopped: %w", err)
		}
		seen[g0] = true
		comp := []uint16{g0}
		for k := 0; k < len(comp); k++ {
			for d := 0; d < 4; d++ {
				m := b.Nbr[int(comp[k])*4+d]
				if m != wall && b.GoalIndex[m] >= 0 && !seen[m] {
					seen[m] = true
					comp = append(comp, m)
				}
			}
		}
		if len(comp) < minAreaGoals || len(comp) > maxAreaGoals {
			continue
		}
		slices.Sort(comp)
		order, entrances := po.order(comp)
		if order == nil {
			continue
		}
		a := int16(len(b.areas))
		for _, sq := range comp {
			b.inArea[sq], b.macroArea[sq] = a, a
		}
		b.areas = append(b.areas, goalArea{squares: comp, order: order, entrances: entrances})
	}
	// A square that is the entrance of two areas is the first one's.
	for ai := range b.areas {
		for _, e := range b.areas[ai].entrances {
			if b.macroArea[e] < 0 {
				b.macroArea[e] = int16(ai)
			}
		}
	}
	return nil
}

// orderSearch is the scratch of the packing-order computation.
type orderSearch struct {
	b        *Board
	filled   []bool  // boxes of the reverse search: the area's filled goals
	inComp   []bool  // the area being ordered
	out      []bool  // squares a box from outside reaches without entering it
	reach    []int32 // flood stamps
	rgen     int32
	start    []int32 // the anchor's region: start[sq] == startGen
	startGen int32
	visited  []int32 // pull states sq*4+side: enqueued
	expand   []int32 // pull states: expanded (the region's sides at once)
	vgen     int32
	queue    []int32
	dist     []uint16
	fq       []uint16
}

func newOrderSearch(b *Board) *orderSearch {
	n := b.Squares
	return &orderSearch{b: b, filled: make([]bool, n+1), inComp: make([]bool, n+1), out: make([]bool, n+1), reach: make([]int32, n+1), start: make([]int32, n+1),
		visited: make([]int32, n*4), expand: make([]int32, n*4), dist: make([]uint16, n*4), fq: make([]uint16, 0, n)}
}

// order returns the packing order of the area comp (ascending squares)
// and its entrances, or nil when there is no order.
func (o *orderSearch) order(comp []uint16) (order, entrances []uint16) {
	b := o.b
	for _, sq := range comp {
		o.filled[sq], o.inComp[sq] = true, true
	}
	defer func() {
		for _, sq := range comp {
			o.filled[sq], o.inComp[sq] = false, false
		}
	}()
	o.outside()
	wall := b.Wall()
	for _, sq := range comp {
		for d := 0; d < 4; d++ {
			e := b.Nbr[int(sq)*4+(d^2)] // the box comes from e, pushed in direction d
			if e != wall && o.out[e] && b.Nbr[int(e)*4+(d^2)] != wall {
				entrances = append(entrances, e)
			}
		}
	}
	if len(entrances) == 0 {
		return nil, nil
	}
	slices.Sort(entrances)
	entrances = slices.Compact(entrances)
	anchor := b.StartPlayer
	if o.inComp[anchor] {
		anchor = b.Wall()
		for sq := uint16(0); int(sq) < b.Squares; sq++ {
			if !o.inComp[sq] {
				anchor = sq
				break
			}
		}
		if anchor == b.Wall() {
			return nil, nil
		}
	}
	order = make([]uint16, len(comp))
	for k := len(comp) - 1; k >= 0; k-- {
		// The anchor's region, the same for every candidate of this step.
		o.flood(anchor, wall)
		copy(o.start, o.reach)
		o.startGen = o.rgen
		best, bestDist := b.Wall(), uint16(Inf)
		for _, g := range comp {
			if !o.filled[g] {
				continue
			}
			if d := o.pullOut(g, bestDist); d < bestDist {
				best, bestDist = g, d
			}
		}
		if best == b.Wall() {
			return nil, nil
		}
		order[k] = best
		o.filled[best] = false
	}
	return order, entrances
}

// outside fills o.out with the squares off the area that a lone box
// starting on a box's start square off the area reaches by pushes without
// entering the area (the player walks anywhere): the squares boxes come
// into the area from. It searches states (square, player side) as
// computeDistances does, forward.
func (o *orderSearch) outside() {
	b := o.b
	wall := b.Wall()
	clear(o.out)
	o.vgen++
	seen := o.vgen // marks states sq*4+side in o.visited
	o.queue = o.queue[:0]
	visit := func(sq uint16, d int) {
		lbl := b.sideComp[int(sq)*4+d]
		for e := 0; e < 4; e++ {
			if b.sideComp[int(sq)*4+e] == lbl {
				o.visited[int(sq)*4+e] = seen
			}
		}
		o.out[sq] = true
		o.queue = append(o.queue, int32(sq)*4+int32(d))
	}
	for _, sq := range b.StartBoxes {
		if o.inComp[sq] {
			continue
		}
		lbl := b.Region(sq, b.StartPlayer)
		for d := 0; d < 4; d++ {
			if b.Nbr[int(sq)*4+d] != wall && b.sideComp[int(sq)*4+d] == lbl && o.visited[int(sq)*4+d] != seen {
				visit(sq, d)
				break
			}
		}
	}
	for head := 0; head < len(o.queue); head++ {
		st := o.queue[head]
		sq, d := uint16(st/4), int(st%4)
		lbl := b.sideComp[int(sq)*4+d]
		for e := 0; e < 4; e++ {
			// Push towards e from the side opposite, if it is the
			// player's.
			if b.sideComp[int(sq)*4+(e^2)] != lbl || b.Nbr[int(sq)*4+(e^2)] == wall {
				continue
			}
			t := b.Nbr[int(sq)*4+e]
			if t == wall || o.inComp[t] || b.Dead[t] || o.visited[int(t)*4+(e^2)] == seen {
				continue
			}
			visit(t, e^2)
		}
	}
}

// flood stamps the squares the player reaches from sq with the filled
// squares and box as obstacles; it returns the stamp.
func (o *orderSearch) flood(sq, box uint16) int32 {
	b := o.b
	o.rgen++
	gen := o.rgen
	if sq == b.Wall() || sq == box || o.filled[sq] {
		return gen
	}
	o.reach[sq] = gen
	o.fq = append(o.fq[:0], sq)
	for k := 0; k < len(o.fq); k++ {
		c := int(o.fq[k]) * 4
		for _, m := range b.Nbr[c : c+4] {
			if m == b.Wall() || m == box || o.filled[m] || o.reach[m] == gen {
				continue
			}
			o.reach[m] = gen
			o.fq = append(o.fq, m)
		}
	}
	return gen
}

// pullOut returns the fewest pulls that take the box on goal g out of the
// area to an entrance, through empty area squares, the player starting in
// the anchor's region; Inf when it cannot get out in fewer than limit.
func (o *orderSearch) pullOut(g, limit uint16) uint16 {
	b := o.b
	wall := b.Wall()
	o.filled[g] = false
	defer func() { o.filled[g] = true }()
	o.vgen++
	vg := o.vgen
	o.queue = o.queue[:0]
	for e := 0; e < 4; e++ {
		if q := b.Nbr[int(g)*4+e]; q != wall && o.start[q] == o.startGen {
			st := int32(g)*4 + int32(e)
			o.visited[st], o.dist[st] = vg, 0
			o.queue = append(o.queue, st)
		}
	}
	for head := 0; head < len(o.queue); head++ {
		st := o.queue[head]
		if o.expand[st] == vg {
			continue
		}
		box, side := uint16(st/4), int(st%4)
		dist := o.dist[st]
		if dist+1 >= limit {
			break // breadth-first: nothing better is left
		}
		fg := o.flood(b.Nbr[int(box)*4+side], box)
		for e := 0; e < 4; e++ {
			if q := b.Nbr[int(box)*4+e]; q != wall && o.reach[q] == fg {
				o.expand[int(box)*4+e] = vg
			}
		}
		for e := 0; e < 4; e++ {
			// Pull towards e: the player on q steps on to q2, the box
			// follows onto q.
			q := b.Nbr[int(box)*4+e]
			if q == wall || o.reach[q] != fg {
				continue
			}
			q2 := b.Nbr[int(q)*4+e]
			if q2 == wall || o.filled[q2] {
				continue
			}
			if !o.inComp[q] {
				if o.out[q] {
					return dist + 1
				}
				continue // a square boxes from outside never reach
			}
			ns := int32(q)*4 + int32(e)
			if o.visited[ns] == vg {
				continue
			}
			o.visited[ns], o.dist[ns] = vg, dist+1
			o.queue = append(o.queue, ns)
		}
	}
	return Inf
}

// goalMacros is a searcher's goal-macro state: the board's tables and the
// scratch of the path search, all allocated in newSearcher.
type goalMacros struct {
	on         bool
	noEntrance bool
	minGoals   int // the smallest area that gets the entrance macro
	areas      []goalArea
	inArea     []int16
	macroArea  []int16
	// The path searches over (box square, player side) states sq*4+side
	// (boxPath, homeSources): vis marks states enqueued, exp states
	// expanded (all sides of one player region at once), both with
	// generation vgen; prev links a state to the one before it, depth
	// counts its pushes.
	vis, exp []uint32
	vgen     uint32
	prev     []int32
	depth    []uint16
	queue    []int32
	found    int32 // the final state of the last path found
	// cache holds the moves of goal macro records, so that goTo need not
	// search again (see redoGoal).
	cache []cachedMove
	// home moves (homemove.go), and the scratch list of moves homeMoves
	// returns
	home   homeSearch
	noHome bool
	all    []push
	// statistics: macros made, and pushes they added after the first
	count, pushes, homes int64
}

func (g *goalMacros) init(b *Board, on, noHome bool, slots int) {
	g.on, g.noHome = on && len(b.areas) > 0, noHome
	if !g.on {
		return
	}
	n := b.Squares
	g.areas, g.inArea, g.macroArea = b.areas, b.inArea, b.macroArea
	g.vis = make([]uint32, (n+1)*4)
	g.exp = make([]uint32, (n+1)*4)
	g.prev = make([]int32, (n+1)*4)
	g.depth = make([]uint16, (n+1)*4)
	g.queue = make([]int32, 0, (n+1)*4)
	g.cache = make([]cachedMove, moveCache(slots))
	g.home.init(n, len(b.StartBoxes))
	g.all = make([]push, 0, 5*len(b.StartBoxes))
}

// goalMacro continues the move p of box i, which has left the box on to
// and the player on s.player, as a goal macro when one applies (see
// goalmacro.go): the box is pushed on to the next goal of its area's order
// and the move returned with the pushes added (more), the box's and the
// player's final squares (end, last) and the last push's direction. ok is
// false, nothing changed, when no macro applies.
func (s *searcher) goalMacro(i int, p push, to uint16) (q push, end uint16, ok bool) {
	g := &s.gm
	a := g.macroArea[to]
	if a < 0 || g.inArea[p.from] == a || len(g.areas[a].squares) < g.minGoals {
		// No area here, a box moved within its area or out of it (the
		// macro is for boxes coming in, and would only push it back), or
		// an area too small to cut moves for.
		return p, to, false
	}
	target := s.wall
	for _, sq := range g.areas[a].order {
		if s.boxAt[sq] == -1 || sq == to {
			target = sq
			break
		}
	}
	if target == s.wall || target == to {
		return p, to, false
	}
	room := maxMacro - 1 - int(p.more)
	if room <= 0 || !s.goalPath(to, target, a, room) {
		return p, to, false
	}
	st := g.found
	side := uint8(st & 3)
	last := s.nbr[int(target)*4+int(side)]
	s.moveBox(i, to, target)
	s.player = last
	p.more += uint8(g.depth[st])
	p.goal, p.end, p.last, p.ldir = true, target, last, side^2
	return p, target, true
}

// goalPath searches for the fewest pushes that take the box on start to
// target through empty squares of area a, at most room pushes, the player
// starting on s.player (boxPath, with the labels of the board without the
// box). On success g.found is the final state and the prev links lead back.
func (s *searcher) goalPath(start, target uint16, a int16, room int) bool {
	bi := s.boxAt[start]
	s.boxAt[start] = -1
	s.freeDFS(s.boxHash ^ s.zbox[start])
	_, ok := s.boxPath(start, target, a, room, s.gm.home.label(s.player, start))
	s.boxAt[start] = bi
	return ok
}

// redoGoal makes again, in the current position, the goal macro move whose
// record holds its first push (from, dir), and returns it. The move is
// reproduced exactly: see goalmacro.go.
func (s *searcher) redoGoal(rec uint16, dir uint8) push {
	from := rec &^ (goalFlag | homeFlag)
	i := int(s.boxAt[from])
	if i < 0 {
		panic("engine: internal error: a goal macro record moves no box")
	}
	if rec&homeFlag != 0 {
		p := s.redoHome(from, dir)
		s.doMove(i, p)
		return p
	}
	s.doPush(i, dir)
	p, to, _ := s.slideRun(i, push{from: from, dir: dir}, s.nbr[int(from)*4+int(dir)])
	p, _, ok := s.goalMacro(i, p, to)
	if !ok {
		panic("engine: internal error: a goal macro does not repeat")
	}
	return p
}

// goalPushes appends the single pushes of the goal macro move recorded as
// (from, dir), made in the current position, which it leaves as it was.
func (s *searcher) goalPushes(out []push, rec uint16, dir uint8) []push {
	if rec&homeFlag != 0 {
		s.redoHome(rec&^(goalFlag|homeFlag), dir)
		return s.homePushes(out)
	}
	player := s.player
	p := s.redoGoal(rec, dir)
	from := p.from
	// The first push and the tunnel pushes run straight from p.from.
	sq := from
	straight := int(p.more) - int(s.gm.depth[s.gm.found])
	for k := 0; k <= straight; k++ {
		out = append(out, push{from: sq, dir: dir})
		sq = s.nbr[int(sq)*4+int(dir)]
	}
	start := len(out)
	for st := s.gm.found; s.gm.prev[st] >= 0; st = s.gm.prev[st] {
		pr := s.gm.prev[st]
		out = append(out, push{from: uint16(pr / 4), dir: uint8(st%4) ^ 2})
	}
	slices.Reverse(out[start:])
	s.undoPush(p, player)
	return out
}

// maxMoveCache is the most entries of the goal-macro move cache (2 MiB),
// direct-mapped by record slot: enough for the records on the paths between
// consecutive expansions. A small table gets a smaller cache (moveCache).
const maxMoveCache = 1 << 16

// moveCache returns the cache size for a table of slots records: a power
// of two, about one entry per 256 records, between 256 and maxMoveCache.
func moveCache(slots int) int {
	n := 256
	for n < maxMoveCache && n*256 < slots {
		n *= 2
	}
	return n
}

// cachedMove is the move of a goal macro record, valid while the record
// still holds that move (key, from and direction match).
type cachedMove struct {
	key  uint64
	slot uint32
	from uint16
	dir  uint8
	p    push
}

// remember caches the move p of the goal macro record in slot, whose key
// (without flags) is key. Every insert and relink of such a record calls it,
// so an entry that matches the record is its move.
func (s *searcher) remember(slot uint32, key uint64, p push) {
	if !p.goal {
		return
	}
	s.gm.cache[slot&uint32(len(s.gm.cache)-1)] = cachedMove{key: key &^ keyFlags, slot: slot, from: recFrom(p, 0), dir: p.dir, p: p}
}

// recall returns the cached move of goal macro record x, if any. The
// position before the move is the same whatever path led to the record's
// parent, up to the player's square within its region, so the box's squares
// and the player's final region are the same as when it was made.
func (s *searcher) recall(x uint32) (push, bool) {
	c := &s.gm.cache[x&uint32(len(s.gm.cache)-1)]
	rec := &s.tt.slots[x]
	if c.slot != x || c.key != rec.key&^keyFlags || c.from != rec.from || c.dir != rec.dir() {
		return push{}, false
	}
	return c.p, true
}

// recFrom is what a record stores for move p, after which the player
// stands on last: the player's square, from which the straight pushes are
// found again (macroStart), or for a goal macro its first push's square
// with goalFlag.
func recFrom(p push, last uint16) uint16 {
	switch {
	case p.home:
		return p.from | goalFlag | homeFlag
	case p.goal:
		return p.from | goalFlag
	}
	return last
}

// lastDir is the direction of the last push of move p.
func lastDir(p push) uint8 {
	if p.goal {
		return p.ldir
	}
	return p.dir
}
