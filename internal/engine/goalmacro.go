package engine

import (
	"slices"

	"github.com/sokod/sokod/board"
)

// Goal macros: a packing order for goal areas, in the style of Rolling
// Stone's goal macros and YASS's packing order, and home moves
// (homemove.go). Both apply under ObjectiveAny only, unless Options.Off
// holds TechGoalMacros; under ObjectivePushes they are off, so optimality
// proofs keep holding.
//
// Goal areas, their entrances and packing orders are the board's
// (board.GoalArea, Board.Areas); an area with no packing order gets
// neither macro nor home moves.
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
	// minMacroGoals is the size from which an area gets the entrance
	// macro, which cuts moves; smaller areas get home moves only. Small
	// areas often lie in open floor that boxes pass through, where the cut
	// costs more expansions than it saves, while goal rooms need it (the
	// measurements are in the commit that set it).
	minMacroGoals = 5
	// goalFlag marks a record whose move is a goal macro; square numbers
	// stay below MaxSquares = 1<<14.
	goalFlag = 1 << 15
	// homeFlag marks, with goalFlag, a record whose move is a home move.
	homeFlag = 1 << 14
)

// goalMacros is a searcher's goal-macro state: the board's tables and the
// scratch of the path search, all allocated in newSearcher.
type goalMacros struct {
	on         bool
	noEntrance bool
	minGoals   int // the smallest area that gets the entrance macro
	areas      []board.GoalArea
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
	// statistics: macros made, and pushes they added after the first;
	// macros whose child was a deadlock, made again as plain pushes
	count, pushes, homes, undone int64
}

func (g *goalMacros) init(b *Board, on, noHome bool, slots int) {
	g.on, g.noHome = on && len(b.Areas) > 0, noHome
	if !g.on {
		return
	}
	n := b.Squares
	g.areas, g.inArea, g.macroArea = b.Areas, b.InArea, b.EntranceArea
	g.vis = make([]uint32, (n+1)*4)
	g.exp = make([]uint32, (n+1)*4)
	g.prev = make([]int32, (n+1)*4)
	g.depth = make([]uint16, (n+1)*4)
	g.queue = make([]int32, 0, (n+1)*4)
	g.cache = make([]cachedMove, moveCache(slots))
	g.home.init(n, len(b.StartBoxes))
	g.all = make([]push, 0, 5*len(b.StartBoxes))
}

// followPlan orders each area's goals by their fill phase (phaseOf, per
// square), keeping the area's order within a phase, so that the macros
// fill the goals the way a packing search's plan does.
func (g *goalMacros) followPlan(phaseOf []int16) {
	areas := slices.Clone(g.areas)
	for i := range areas {
		order := slices.Clone(areas[i].Order)
		slices.SortStableFunc(order, func(a, b uint16) int { return int(phaseOf[a]) - int(phaseOf[b]) })
		areas[i].Order = order
	}
	g.areas = areas
}

// goalMacro continues the move p of box i, which has left the box on to
// and the player on s.player, as a goal macro when one applies (see
// goalmacro.go): the box is pushed on to the next goal of its area's order
// and the move returned with the pushes added (more), the box's and the
// player's final squares (end, last) and the last push's direction. ok is
// false, nothing changed, when no macro applies. When the deadlock tests
// prune the macro's child, pushChild makes the move without it instead.
func (s *searcher) goalMacro(i int, p push, to uint16) (q push, end uint16, ok bool) {
	g := &s.gm
	a := g.macroArea[to]
	if a < 0 || g.inArea[p.from] == a || len(g.areas[a].Squares) < g.minGoals {
		// No area here, a box moved within its area or out of it (the
		// macro is for boxes coming in, and would only push it back), or
		// an area too small to cut moves for.
		return p, to, false
	}
	target := s.wall
	for _, sq := range g.areas[a].Order {
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
