package board

// AreaCheck tells whether the goal areas of a position (see GoalArea)
// can still be completed: whether the goals still empty in an area can be
// filled, one at a time, by boxes pushed in from its entrances while the
// boxes already on its goals stand still. It answers as the packing order
// is computed, in reverse: from the full area it pulls the boxes of the
// empty goals out to an entrance, through empty area squares, any that can
// go first (taking one out only frees squares, so the choice loses
// nothing). The player may stand anywhere the filled goals leave free, and
// the other boxes are ignored.
//
// A "no" is no proof: a box on a goal may have to move again, so this is a
// planner's guide, never a deadlock test for the exhaustive search. An
// area whose start position already fails the check is left alone: there,
// boxes on goals do move again. Verdicts are memoised per area and set of
// filled goals. An AreaCheck is not safe for concurrent use.
type AreaCheck struct {
	b *Board
	o *orderSearch
	// slot[sq] is the index of goal sq among its area's squares.
	slot []int8
	// off marks the areas the check leaves alone.
	off []bool
	// memo[a] holds area a's verdicts; masks is the per-call scratch of
	// each area's filled goals.
	memo  []verdicts
	masks []uint64
}

// NewAreaCheck returns an AreaCheck for b. It runs the check on the start
// position once, to find the areas it must leave alone.
func NewAreaCheck(b *Board) *AreaCheck {
	c := &AreaCheck{b: b, o: newOrderSearch(b), slot: make([]int8, b.Squares+1),
		off: make([]bool, len(b.Areas)), memo: make([]verdicts, len(b.Areas)), masks: make([]uint64, len(b.Areas))}
	for _, a := range b.Areas {
		for i, sq := range a.Squares {
			c.slot[sq] = int8(i) // an area has at most maxAreaGoals = 64 squares
		}
	}
	c.fill(b.StartBoxes)
	for ai := range b.Areas {
		c.off[ai] = c.areaDead(ai)
	}
	return c
}

// Dead reports whether some goal area of the position with boxes on the
// squares boxes cannot be completed.
func (c *AreaCheck) Dead(boxes []uint16) bool {
	c.fill(boxes)
	for ai := range c.b.Areas {
		if !c.off[ai] && c.areaDead(ai) {
			return true
		}
	}
	return false
}

// fill sets masks to the goals the boxes fill, area by area.
func (c *AreaCheck) fill(boxes []uint16) {
	clear(c.masks)
	for _, sq := range boxes {
		if a := c.b.InArea[sq]; a >= 0 {
			c.masks[a] |= 1 << c.slot[sq]
		}
	}
}

// areaDead answers for area ai with the goals of masks[ai] filled.
func (c *AreaCheck) areaDead(ai int) bool {
	mask := c.masks[ai]
	// For 64 squares the shift gives 0, and 0 - 1 is all ones.
	all := uint64(1)<<len(c.b.Areas[ai].Squares) - 1
	if mask == all {
		return false
	}
	if dead, ok := c.memo[ai].find(mask); ok {
		return dead
	}
	dead := c.search(ai, mask)
	if c.memo[ai].n < maxVerdicts {
		c.memo[ai].add(mask, dead)
	}
	return dead
}

// search runs the reverse search for area ai with the goals in mask
// filled by boxes that stay.
func (c *AreaCheck) search(ai int, mask uint64) bool {
	b, o := c.b, c.o
	a := &b.Areas[ai]
	for _, sq := range a.Squares {
		o.filled[sq], o.inComp[sq] = true, true
	}
	defer func() {
		for _, sq := range a.Squares {
			o.filled[sq], o.inComp[sq] = false, false
		}
	}()
	o.outside()
	for {
		// The player may stand anywhere off the filled squares.
		o.startGen = o.fl.Fresh()
		for sq := range b.Squares {
			if !o.filled[sq] {
				o.start[sq] = o.startGen
			}
		}
		left, out := false, false
		for i, g := range a.Squares {
			if mask&(1<<i) != 0 || !o.filled[g] {
				continue
			}
			left = true
			if o.pullOut(g, Inf) < Inf {
				o.filled[g] = false
				out = true
				break
			}
		}
		if !left {
			return false
		}
		if !out {
			return true
		}
	}
}

// maxVerdicts bounds the verdicts memoised per area, about 18 MiB: the
// memo lives outside a planner's store and its memory budget.
const maxVerdicts = 1 << 20

// verdicts is an open-addressing table from a set of filled goals to its
// verdict: the check runs per expanded position, where a map would cost
// an allocation and a hash call each time.
type verdicts struct {
	keys []uint64
	vals []uint8 // 0 empty, 1 alive, 2 dead
	n    int
}

func (v *verdicts) find(k uint64) (dead, ok bool) {
	if len(v.keys) == 0 {
		return false, false
	}
	m := uint64(len(v.keys) - 1)
	for i := mix(k) & m; ; i = (i + 1) & m {
		switch {
		case v.vals[i] == 0:
			return false, false
		case v.keys[i] == k:
			return v.vals[i] == 2, true
		}
	}
}

func (v *verdicts) add(k uint64, dead bool) {
	if 2*(v.n+1) > len(v.keys) {
		old, oldVals := v.keys, v.vals
		size := max(64, 2*len(old))
		v.keys, v.vals, v.n = make([]uint64, size), make([]uint8, size), 0
		for i, val := range oldVals {
			if val != 0 {
				v.add(old[i], val == 2)
			}
		}
	}
	m := uint64(len(v.keys) - 1)
	i := mix(k) & m
	for v.vals[i] != 0 {
		i = (i + 1) & m
	}
	v.keys[i], v.n = k, v.n+1
	v.vals[i] = 1
	if dead {
		v.vals[i] = 2
	}
}

// mix scrambles a set of goals into a table index (splitmix64's finaliser).
func mix(k uint64) uint64 {
	k ^= k >> 30
	k *= 0xbf58476d1ce4e5b9
	k ^= k >> 27
	k *= 0x94d049bb133111eb
	return k ^ k>>31
}
