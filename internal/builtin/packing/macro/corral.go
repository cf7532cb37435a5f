package macro

import "math/bits"

// Corral deadlocks.
//
// A corral is a region of free squares the player cannot reach, fenced by
// boxes. When a fence box is off its goal, or the corral holds an empty
// goal, the fence must open some day. The test removes every box but the
// fence (fewer boxes only make things easier, so the test stays sound) and
// searches the fence boxes' pushes, pruning dead squares and frozen boxes,
// for a position where the player gets into the corral or the fence
// stands on goals with no goal left inside. When that bounded search runs
// dry, the position is a deadlock. When it reaches its bound, the test
// says nothing.
//
// At macro level this matters more than in a push-level search: one macro
// move can seal a corral, and every position below it is dead, so a
// planner that does not see it spends its budget there.

// corralLimit bounds the positions of one corral search, corralBoxes the
// size of the fence it examines.
const (
	corralLimit = 600
	corralBoxes = 10
	corralSlots = 4096 // power of two, well above twice corralLimit
	// corralCacheBits sizes the table of fence searches already run.
	corralCacheBits = 14
)

// corral is the scratch space of the corral test.
type corral struct {
	region []uint32 // each corral of one test gets its own stamp
	cgen   uint32
	prev   []uint32 // a state's region while its children are generated
	pgen   uint32
	fence  []uint16
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

// CorralDeadlock reports whether some corral of pos is a deadlock. It
// uses the flood marks.
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
		if fenceOK && needed && g.fenceDead(pos.Player, least, gen, goalInside) {
			return true
		}
	}
	return false
}

// corralAt stamps the corral holding square s with gen and collects its
// fence. It reports whether the corral holds an empty goal, whether the
// fence is small enough to examine, and whether the fence must open.
func (g *Gen) corralAt(pos *Pos, s uint16, gen uint32) (goalInside, fenceOK, needed bool) {
	b := g.b
	c := g.corral
	c.fence = c.fence[:0]
	fenceOK = true
	c.region[s] = gen
	g.stack = append(g.stack[:0], s)
	for len(g.stack) > 0 {
		q := g.stack[len(g.stack)-1]
		g.stack = g.stack[:len(g.stack)-1]
		if b.GoalIndex[q] >= 0 {
			goalInside = true
		}
		for d := range 4 {
			n := g.nbr[int(q)*4+d]
			switch {
			case n == g.wall || c.region[n] == gen:
			case pos.BoxAt[n] >= 0:
				known := false
				for _, f := range c.fence {
					known = known || f == n
				}
				if !known {
					if len(c.fence) == corralBoxes {
						fenceOK = false
					} else {
						c.fence = append(c.fence, n)
					}
				}
			default:
				c.region[n] = gen
				g.stack = append(g.stack, n)
			}
		}
	}
	needed = goalInside
	for _, f := range c.fence {
		needed = needed || b.GoalIndex[f] < 0
	}
	return goalInside, fenceOK, needed
}

// fenceDead searches the pushes of the fence of corral gen alone, the
// player starting on player, and reports whether no position opens the
// corral or settles it. least is the corral's smallest square.
//
// The verdict depends on the fence, the corral and the player's region
// among the fence boxes alone, nothing else: the corral is the part of the
// board the fence cuts off around least (every box next to it is in the
// fence). So it is cached under the Zobrist hash of the fence, mixed with
// keys for least and the player's square: the square names that region
// as well as its smallest square would, and costs no flood of the board,
// which was most of the test's time; the player's square is the smallest
// of its region among all the boxes, which most positions with the same
// fence share.
func (g *Gen) fenceDead(player, least uint16, gen uint32, goalInside bool) bool {
	b := g.b
	c := g.corral
	key := (BoxHash(b, c.fence) ^ b.ZPlayer[player] ^ bits.RotateLeft64(b.ZBox[least], 29)) &^ 1
	slot := &c.cache[key>>(64-corralCacheBits)]
	if *slot&^1 == key && key != 0 {
		return *slot&1 == 1
	}
	dead := g.searchFence(player, gen, goalInside)
	*slot = key
	if dead {
		*slot |= 1
	}
	return dead
}

// searchFence runs fenceDead's search.
func (g *Gen) searchFence(player uint16, gen uint32, goalInside bool) bool {
	b := g.b
	c := g.corral
	k := len(c.fence)
	stride := 1 + k
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
		onGoals := true
		for _, x := range mini.Boxes {
			onGoals = onGoals && b.GoalIndex[x] >= 0
		}
		// Settled: every fence box on a goal. An empty goal inside still
		// needs a box, but once a fence box has left its square (any
		// state but the first) a box this test removed may come in
		// through the gap, so only the first state must open.
		if onGoals && (!goalInside || head > 0) {
			return false
		}
		pg := bump(&c.pgen, c.prev)
		for s := range b.Squares {
			if g.mark[s] == g.mgen {
				if c.region[s] == gen {
					return false // the player is in
				}
				c.prev[s] = pg
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
						if len(c.states)/stride >= corralLimit {
							mini.BoxAt[to], mini.BoxAt[x], mini.Boxes[j] = -1, int16(j), x
							return false // too big to tell
						}
						c.states = append(c.states, x)
						c.states = append(c.states, mini.Boxes...)
					}
				}
				mini.BoxAt[to], mini.BoxAt[x], mini.Boxes[j] = -1, int16(j), x
			}
		}
	}
	return true
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
