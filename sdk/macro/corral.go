package macro

import (
	"math/bits"
	"slices"
)

// Corral deadlocks.
//
// A corral is a region of free squares the player cannot reach, fenced by
// boxes. When a fence box is off its goal, or the corral holds an empty
// goal, the fence must open some day. The test keeps only some boxes and
// searches their pushes, pruning dead squares and frozen boxes, for a
// position where the player gets into the corral or the boxes all stand
// on goals (with no goal left inside). When that bounded search runs dry,
// the position is a deadlock. When it reaches its bound, the test says
// nothing. It is sound with any set of boxes that holds the fence: fewer
// boxes only make things easier for the player, and every solution passes
// through a position with all boxes on goals.
//
// It runs in two strengths. The sharp one keeps the fence and the boxes
// next to it, and counts the corral open only once the player reaches
// every square of it that no kept box stands on: a box pushed into the
// corral can shut the rest of it off again. When that search is too big to
// tell, the quick one keeps the fence alone and counts the corral open as
// soon as the player sets foot in it.
//
// At macro level this matters more than in a push-level search: one macro
// move can seal a corral, and every position below it is dead, so a
// planner that does not see it spends its budget there.
//
// The goal test (goalShut) runs the same search for an empty goal whose
// push squares the player cannot reach, with a different way out.

// corralLimit bounds the positions of one quick corral search, sharpLimit
// those of a sharp one, corralBoxes the boxes either keeps. A sharp search
// that reaches its bound is where the test spends its time, and one that
// finds a deadlock mostly does so early, so its bound is the smaller.
const (
	corralLimit = 600
	sharpLimit  = 100
	goalLimit   = 200
	corralBoxes = 10
	corralSlots = 4096 // power of two, well above twice corralLimit
	// corralCacheBits sizes the table of fence searches already run, the
	// sharp and quick verdicts both in it: a planner meets the same fence
	// in many positions, and 2^18 entries (2 MiB) keep enough of them to
	// spare most repeated searches for little memory.
	corralCacheBits = 18
)

// corral is the scratch space of the corral test.
type corral struct {
	region []uint32 // each corral of one test gets its own stamp
	cgen   uint32
	prev   []uint32 // a state's region while its children are generated
	pgen   uint32
	fence  []uint16
	// targets are the push squares of goalShut's goal.
	targets []uint16
	// size is the number of squares of the corral under test.
	size   int
	mini   *Pos
	states []uint16 // queued states, stride 1+len(fence)
	slots  []uint64 // hash set of the states seen; 0 is empty
	// cache remembers the verdicts of fence searches, direct-mapped: the
	// key with its lowest bit replaced by the verdict (1 dead), 0 empty.
	// The children of one position share most of their corrals, and
	// siblings in the search share them again, so most searches repeat.
	cache []uint64
}

func bump(gen *uint32, marks []uint32) uint32 {
	*gen++
	if *gen == 0 {
		clear(marks)
		*gen = 1
	}
	return *gen
}

// CorralDeadlock reports whether some corral of pos is a deadlock, or
// some empty goal of pos is shut off for good (see goalShut). It uses the
// flood marks.
func (g *Gen) CorralDeadlock(pos *Pos) bool {
	b := g.b
	c := g.corral
	if c == nil {
		n := b.Squares + 1
		c = &corral{region: make([]uint32, n), prev: make([]uint32, n), mini: NewPos(b),
			slots: make([]uint64, corralSlots), fence: make([]uint16, 0, corralBoxes), cache: make([]uint64, 1<<corralCacheBits)}
		g.corral = c
	}
	if c.cgen > 1<<30 {
		clear(c.region)
		c.cgen = 0
	}
	// The corrals are the regions of free squares but the player's.
	g.label(pos)
	r := g.regions
	pl := r.label[pos.Player]
	for k, least := range r.minOf {
		if r.labelBase+uint32(k) == pl {
			continue
		}
		c.cgen++
		gen := c.cgen
		goalInside, fenceOK, needed := g.corralAt(pos, least, gen)
		if !fenceOK || !needed {
			continue
		}
		// The sharp test first, the quick one when it cannot tell.
		n := len(c.fence)
		g.extendFence(pos)
		v := g.fenceDead(pos.Player, least, gen, goalInside, sharpTest)
		if v == fenceUnknown {
			c.fence = c.fence[:n]
			v = g.fenceDead(pos.Player, least, gen, goalInside, quickTest)
		}
		if v == fenceDeadlock {
			return true
		}
	}
	return g.goalShut(pos)
}

// goalShut reports whether some empty goal of pos never gets a box. A box
// comes onto a goal by a push from a square next to it, the player two
// squares away on that line: the goal's push squares. When the player
// reaches none of them now, the test keeps the boxes that cut them off
// (and their neighbours) and searches their pushes for a position where
// the player stands on one; when there is none, the position is a
// deadlock. It needs no "every box on a goal" way out, as the corral test
// does: the goal is empty, so every solution has the player on one of its
// push squares first, and the kept boxes' pushes up to then are a path of
// the search. It sees goal rooms packed in the wrong order when the boxes
// that shut the last goals off are not frozen (an empty goal with one push
// square under a packed box and the other behind boxes on goals, none of
// them frozen, each of which can move only into a square that keeps the
// player out). It uses the region labels
// CorralDeadlock made.
func (g *Gen) goalShut(pos *Pos) bool {
	b := g.b
	c := g.corral
	r := g.regions
	pl := r.label[pos.Player]
	for _, goal := range b.Goals {
		if pos.BoxAt[goal] >= 0 {
			continue
		}
		c.targets = c.targets[:0]
		skip := false
		for d := range 4 {
			n := g.nbr[int(goal)*4+d]
			if n == g.wall {
				continue
			}
			p := g.nbr[int(n)*4+d]
			if p == g.wall {
				continue
			}
			// Only a goal boxed in on every side a box can come from is
			// examined: a goal room packed in the wrong order shuts its
			// last goals in that way, and the searches for the goals of
			// a room that is merely out of the player's reach would cost
			// far more than the deadlocks they find.
			if pos.BoxAt[n] < 0 || pos.BoxAt[p] < 0 && r.label[p] == pl {
				skip = true
				break
			}
			c.targets = append(c.targets, p)
		}
		// With no push square at all the goal keeps the box it has; an
		// empty one makes the level unsolvable, which is not this test's
		// to say.
		if skip || len(c.targets) == 0 {
			continue
		}
		gen := bump(&c.cgen, c.region)
		if !g.shutFence(pos, gen) {
			continue
		}
		g.extendFence(pos)
		if g.fenceDead(pos.Player, goal, gen, false, goalTest) == fenceDeadlock {
			return true
		}
	}
	return false
}

// shutFence collects in c.fence the boxes that keep the player from goal
// test's push squares in c.targets: the boxes on them, and the fences of
// the regions the free ones lie in. It reports false when they are too
// many to examine.
func (g *Gen) shutFence(pos *Pos, gen uint32) bool {
	c := g.corral
	c.fence = c.fence[:0]
	for _, p := range c.targets {
		switch {
		case pos.BoxAt[p] >= 0:
			if !c.keep(p) {
				return false
			}
		case c.region[p] != gen:
			if _, ok := g.fenceRegion(pos, p, gen); !ok {
				return false
			}
		}
	}
	return true
}

// keep adds box square x to c.fence unless it is there already, and
// reports false when the fence is full.
func (c *corral) keep(x uint16) bool {
	if slices.Contains(c.fence, x) {
		return true
	}
	if len(c.fence) == corralBoxes {
		return false
	}
	c.fence = append(c.fence, x)
	return true
}

// corralAt stamps the corral holding square s with gen and collects its
// fence. It reports whether the corral holds an empty goal, whether the
// fence is small enough to examine, and whether the fence must open.
func (g *Gen) corralAt(pos *Pos, s uint16, gen uint32) (goalInside, fenceOK, needed bool) {
	b := g.b
	c := g.corral
	c.fence = c.fence[:0]
	c.size = 0
	if goalInside, fenceOK = g.fenceRegion(pos, s, gen); !fenceOK {
		return goalInside, false, false
	}
	needed = goalInside
	for _, f := range c.fence {
		needed = needed || b.GoalIndex[f] < 0
	}
	return goalInside, true, needed
}

// fenceRegion stamps the region of free squares holding s with gen,
// counting its squares in c.size, and adds the boxes next to it to
// c.fence. It reports whether the region holds a goal, and false when the
// fence overflows (the region is then left half stamped).
func (g *Gen) fenceRegion(pos *Pos, s uint16, gen uint32) (goalInside, ok bool) {
	b := g.b
	c := g.corral
	c.region[s] = gen
	g.stack = append(g.stack[:0], s)
	for len(g.stack) > 0 {
		q := g.stack[len(g.stack)-1]
		g.stack = g.stack[:len(g.stack)-1]
		c.size++
		if b.GoalIndex[q] >= 0 {
			goalInside = true
		}
		for d := range 4 {
			n := g.nbr[int(q)*4+d]
			switch {
			case n == g.wall || c.region[n] == gen:
			case pos.BoxAt[n] >= 0:
				if !c.keep(n) {
					return goalInside, false
				}
			default:
				c.region[n] = gen
				g.stack = append(g.stack, n)
			}
		}
	}
	return goalInside, true
}

// extendFence adds to the fence the boxes next to it, while there is
// room: a box that holds a fence box in place is the one whose absence
// most often lets the search open the corral by a push no real position
// allows (a box beside a fence box may be all that keeps it from being
// pushed aside).
func (g *Gen) extendFence(pos *Pos) {
	c := g.corral
	for i, n0 := 0, len(c.fence); i < n0; i++ {
		for d := range 4 {
			n := g.nbr[int(c.fence[i])*4+d]
			if n != g.wall && pos.BoxAt[n] >= 0 && !c.keep(n) {
				return
			}
		}
	}
}

// fenceDead searches the pushes of the boxes in c.fence alone, the player
// starting on player, in the sharp or the quick strength, and says whether
// some position opens the corral or settles it. least is the corral's
// smallest square.
//
// The verdict depends on the kept boxes, the corral, the player's region
// among those boxes alone and the strength, nothing else: the corral is
// the part of the board the boxes cut off around least (every box next to
// it is kept). So it is cached under the Zobrist hash of the boxes, mixed
// with keys for least, the player's square and the strength: the square
// names that region as well as its smallest square would, and costs no
// flood of the board, which was most of the test's time; the player's
// square is the smallest of its region among all the boxes, which most
// positions with the same fence share.
func (g *Gen) fenceDead(player, at uint16, gen uint32, goalInside bool, test fenceTest) fenceVerdict {
	b := g.b
	c := g.corral
	key := BoxHash(b, c.fence) ^ b.ZPlayer[player]
	switch test {
	case quickTest:
		key ^= bits.RotateLeft64(b.ZBox[at], 29)
	case sharpTest:
		key = ^(key ^ bits.RotateLeft64(b.ZBox[at], 29))
	case goalTest:
		key ^= bits.RotateLeft64(b.ZBox[at], 41)
	}
	key &^= 3
	slot := &c.cache[key>>(64-corralCacheBits)]
	if *slot&^3 == key && *slot != 0 {
		return fenceVerdict(*slot & 3)
	}
	v := g.searchFence(player, gen, goalInside, test)
	*slot = key | uint64(v)
	return v
}

// fenceTest is the strength of a fence search: what counts as open, and
// its bound.
type fenceTest uint8

const (
	quickTest fenceTest = iota // the player sets foot in the corral
	sharpTest                  // the player reaches all of the corral
	goalTest                   // the player reaches a push square of goalShut's goal
)

// fenceVerdict is the outcome of a fence search; never 0, so that a cache
// slot holding one is never empty.
type fenceVerdict uint8

const (
	fenceDeadlock fenceVerdict = 1 + iota // no position opens or settles the corral
	fenceOpens                            // some position does
	fenceUnknown                          // the search reached its bound
)

// searchFence runs fenceDead's search.
func (g *Gen) searchFence(player uint16, gen uint32, goalInside bool, test fenceTest) fenceVerdict {
	b := g.b
	c := g.corral
	k := len(c.fence)
	stride := 1 + k
	limit := [...]int{quickTest: corralLimit, sharpTest: sharpLimit, goalTest: goalLimit}[test]
	mini := c.mini
	mini.Set(c.fence, player)
	h := Hash(b, mini.Boxes, g.Flood(mini, player))
	clear(c.slots)
	c.states = append(c.states[:0], player)
	c.states = append(c.states, c.fence...)
	c.insert(h | 1)
	for head := 0; head*stride < len(c.states); head++ {
		st := c.states[head*stride : (head+1)*stride]
		mini.Set(st[1:], st[0])
		g.Flood(mini, st[0])
		if test == goalTest {
			for _, p := range c.targets {
				if g.Reached(p) {
					return fenceOpens
				}
			}
		}
		onGoals := test != goalTest
		for _, x := range mini.Boxes {
			onGoals = onGoals && b.GoalIndex[x] >= 0
		}
		// Settled: every kept box on a goal. An empty goal inside still
		// needs a box, but once a kept box has left its square (any
		// state but the first) a box this test removed may come in
		// through the gap, so only the first state must open.
		if onGoals && (!goalInside || head > 0) {
			return fenceOpens
		}
		pg := bump(&c.pgen, c.prev)
		reached := 0
		for s := range b.Squares {
			if g.mark[s] == g.mgen {
				if c.region[s] == gen {
					reached++
				}
				c.prev[s] = pg
			}
		}
		if reached > 0 && test != goalTest {
			if test == quickTest {
				return fenceOpens // the player is in
			}
			// The sharp test has the player in when it reaches every
			// square of the corral no kept box stands on. A box pushed
			// into the corral may still shut it off from the rest.
			for _, x := range mini.Boxes {
				if c.region[x] == gen {
					reached++
				}
			}
			if reached == c.size {
				return fenceOpens
			}
		}
		for j := range mini.Boxes {
			x := mini.Boxes[j]
			for d := range 4 {
				behind, to := g.nbr[int(x)*4+d^2], g.nbr[int(x)*4+d]
				if behind == g.wall || c.prev[behind] != pg || mini.BoxAt[to] != -1 || b.Dead[to] {
					continue
				}
				mini.BoxAt[x], mini.BoxAt[to], mini.Boxes[j] = -1, int16(j), to
				if !g.frozenDeadlock(mini, to) {
					h := Hash(b, mini.Boxes, g.Flood(mini, x)) | 1
					if c.insert(h) {
						if len(c.states)/stride >= limit {
							mini.BoxAt[to], mini.BoxAt[x], mini.Boxes[j] = -1, int16(j), x
							return fenceUnknown
						}
						c.states = append(c.states, x)
						c.states = append(c.states, mini.Boxes...)
					}
				}
				mini.BoxAt[to], mini.BoxAt[x], mini.Boxes[j] = -1, int16(j), x
			}
		}
	}
	return fenceDeadlock
}

// insert adds h to the set of states seen and reports whether it is new.
func (c *corral) insert(h uint64) bool {
	mask := uint64(len(c.slots) - 1)
	for i := h & mask; ; i = (i + 1) & mask {
		switch c.slots[i] {
		case 0:
			c.slots[i] = h
			return true
		case h:
			return false
		}
	}
}
