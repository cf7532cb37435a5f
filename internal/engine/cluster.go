package engine

import (
	"math/bits"
	"slices"
)

// Cluster deadlocks: a few boxes close together that can never all reach
// goals, whatever the other boxes do, though none of them is frozen and
// they fence in no corral the player cannot reach (YASS finds most of
// these with its precomputed deadlock sets).
//
// After a push, the boxes within two squares of the pushed one (its
// cluster, at most maxCluster, nearest first) are searched alone on a
// relaxed board. The relaxation only makes their task easier, so when even
// the relaxed task is impossible the position is dead:
//
//   - every other box is removed (boxes only take squares away);
//   - the zone is the 8x8 window around the pushed box; a box pushed out
//     of it is removed, as if it had reached a goal (unless the square it
//     lands on is dead);
//   - the player may walk from any square off the window to any other, as
//     if no wall stood between them.
//
// The task is to push boxes until every box left stands on a goal. The
// search is breadth-first over the boxes' squares and the player's region,
// pruning pushes onto dead squares and pushes after which boxes are frozen
// off a goal, and gives up (proving nothing) after clusterLimit positions.
// The window's squares are the bits of a uint64, row by row, so a player
// flood or a freeze test is a few shifts.
//
// Answers are cached by the cluster and the player's region. A dead
// cluster with the player off the window's pockets is also learned
// (learned.go), so that a position completing it by another push is
// pruned by a table look-up.

const (
	// maxCluster bounds the boxes of a cluster.
	maxCluster = 6
	// clusterLimit is the positions a cluster search explores before it
	// gives up.
	clusterLimit = 64
	// clusterCache is the number of cached answers.
	clusterCache = 1 << 16
	// clusterSeen is the size of the visited set of one cluster search,
	// clusterQueue the most states it queues.
	clusterSeen  = 1 << 10
	clusterQueue = (clusterLimit+1)*4*maxCluster + 1
	// clusterRadius is how far from the pushed box its cluster reaches.
	clusterRadius = 2
	clusterNear   = (2*clusterRadius+1)*(2*clusterRadius+1) - 1
	// noRegion names a player region with no square in the window.
	noRegion = 64
)

// The window's columns, for masking shifts that would wrap a row.
const (
	col0 uint64 = 0x0101010101010101
	col7 uint64 = col0 << 7
)

// window is the 8x8 neighbourhood of a square, as masks over its cells
// (bit 8*row+column, the square in row 3, column 3).
type window struct {
	sq     [64]uint16 // the cell's square, or the wall sentinel
	wall   uint64     // cells that are walls (or off the board)
	goal   uint64
	dead   uint64 // dead squares
	hBlock uint64 // a box here cannot move horizontally: a wall beside it, or dead squares on both sides
	vBlock uint64 // ... vertically
	// escape[d]: cells on the window's edge in direction d whose neighbour
	// that way, off the window, is a square a box may stand on; walk[d]:
	// one the player may stand on.
	escape [4]uint64
	walk   [4]uint64
	out    uint64 // cells next to a walkable square off the window
}

// clusterSearch is the scratch of the cluster deadlock test, allocated once
// per searcher.
type clusterSearch struct {
	b    *Board
	near []uint16 // per square, clusterNear squares within clusterRadius, nearest first, the wall sentinel for walls
	win  []window // per square, built on first use
	have []bool
	w    *window // the window of the test running
	// breadth-first queue: box mask, player cell (-1 off the window)
	qbox     []uint64
	qpl      []int8
	seen     []uint64 // visited states' boxes, open addressing, by epoch
	seenNorm []int8   // and their regions
	epoch    []uint32
	ep       uint32
	cache    []clusterAnswer
	members  []uint16 // scratch: the cluster's squares
	// learnable and corral: see deadlocked
	learnable bool
	corral    []uint16
	// statistics
	runs, dead int64
}

type clusterAnswer struct {
	key  uint64
	dead bool
}

func newClusterSearch(b *Board) *clusterSearch {
	n := b.Squares
	cs := &clusterSearch{b: b, near: make([]uint16, (n+1)*clusterNear),
		win: make([]window, n), have: make([]bool, n),
		qbox: make([]uint64, 0, clusterQueue), qpl: make([]int8, 0, clusterQueue),
		seen: make([]uint64, clusterSeen), seenNorm: make([]int8, clusterSeen), epoch: make([]uint32, clusterSeen),
		cache: make([]clusterAnswer, clusterCache), members: make([]uint16, 0, maxCluster),
		corral: make([]uint16, 0, 64)}
	var offs [][2]int
	for dy := -clusterRadius; dy <= clusterRadius; dy++ {
		for dx := -clusterRadius; dx <= clusterRadius; dx++ {
			if dx != 0 || dy != 0 {
				offs = append(offs, [2]int{dx, dy})
			}
		}
	}
	// Nearest first: by the larger coordinate, then the sum.
	slices.SortStableFunc(offs, func(a, b [2]int) int {
		return clusterRank(a) - clusterRank(b)
	})
	for sq := 0; sq <= n; sq++ {
		for k, o := range offs {
			cs.near[sq*clusterNear+k] = uint16(n)
			if sq == n {
				continue
			}
			if q, ok := cs.at(uint16(sq), o[0], o[1]); ok {
				cs.near[sq*clusterNear+k] = q
			}
		}
	}
	return cs
}

func clusterRank(o [2]int) int {
	ax, ay := o[0], o[1]
	if ax < 0 {
		ax = -ax
	}
	if ay < 0 {
		ay = -ay
	}
	return 4*max(ax, ay) + ax + ay
}

// at returns the square dx, dy away from sq, ok false for a wall or a cell
// off the board.
func (cs *clusterSearch) at(sq uint16, dx, dy int) (uint16, bool) {
	b := cs.b
	x, y := b.XY(sq)
	x, y = x+dx, y+dy
	if x < 0 || y < 0 || x >= b.Width || y >= b.Height {
		return 0, false
	}
	q := b.SquareOf[y*b.Width+x]
	return uint16(q), q >= 0
}

// window returns the window around sq, building it on first use.
func (cs *clusterSearch) window(sq uint16) *window {
	w := &cs.win[sq]
	if cs.have[sq] {
		return w
	}
	cs.have[sq] = true
	b := cs.b
	wall := b.Wall()
	for c := 0; c < 64; c++ {
		q, ok := cs.at(sq, c%8-3, c/8-3)
		bit := uint64(1) << uint(c)
		if !ok {
			w.sq[c] = wall
			w.wall |= bit
			continue
		}
		w.sq[c] = q
		if b.GoalIndex[q] >= 0 {
			w.goal |= bit
		}
		if b.Dead[q] {
			w.dead |= bit
		}
	}
	blocks := func(n uint16) (isWall, isDead bool) { return n == wall, b.Dead[n] }
	for c := 0; c < 64; c++ {
		q := w.sq[c]
		if q == wall {
			continue
		}
		bit := uint64(1) << uint(c)
		var wl, dd [4]bool
		for d := 0; d < 4; d++ {
			wl[d], dd[d] = blocks(b.Nbr[int(q)*4+d])
		}
		// LURD: 0 left, 1 up, 2 right, 3 down.
		if wl[0] || wl[2] || dd[0] && dd[2] {
			w.hBlock |= bit
		}
		if wl[1] || wl[3] || dd[1] && dd[3] {
			w.vBlock |= bit
		}
		x, y := c%8, c/8
		edge := [4]bool{x == 0, y == 0, x == 7, y == 7}
		for d := 0; d < 4; d++ {
			if !edge[d] || wl[d] {
				continue
			}
			w.walk[d] |= bit
			w.out |= bit
			if !dd[d] {
				w.escape[d] |= bit
			}
		}
	}
	return w
}

// shift moves every cell of m one step in direction d (LURD), dropping
// cells that leave the window.
func shift(m uint64, d int) uint64 {
	switch d {
	case 0:
		return m >> 1 &^ col7
	case 1:
		return m >> 8
	case 2:
		return m << 1 &^ col0
	}
	return m << 8
}

// clusterDead reports whether the cluster of the box on to, in the
// position on the board with the player on player, is dead.
func (s *searcher) clusterDead(to, player uint16) bool {
	cs := s.cluster
	k := append(cs.members[:0], to)
	offGoal := s.goals[to] < 0
	for _, q := range cs.near[int(to)*clusterNear : int(to)*clusterNear+clusterNear] {
		if s.boxAt[q] < 0 {
			continue
		}
		k = append(k, q)
		offGoal = offGoal || s.goals[q] < 0
		if len(k) == maxCluster {
			break
		}
	}
	cs.members = k
	if len(k) < 2 || !offGoal {
		return false
	}
	dead, fresh := cs.deadlocked(k, player)
	if dead && fresh {
		if s.onClusterDead != nil {
			s.onClusterDead(k, player)
		}
		if cs.learnable && s.learned.bySq != nil {
			s.learnSet(k, cs.corral)
		}
	}
	return dead
}

// deadlocked runs (or looks up) the relaxed search of the boxes k, k[0]
// the pushed one, with the player on player; fresh says the search ran.
// After a fresh run with the player's region reaching off the window,
// learnable is set and corral holds the window's squares the player does
// not reach (which it cannot enter without moving a box of k).
func (cs *clusterSearch) deadlocked(k []uint16, player uint16) (dead, fresh bool) {
	b := cs.b
	w := cs.window(k[0])
	cs.w = w
	var boxes uint64
	for _, sq := range k {
		boxes |= 1 << uint(cs.cell(k[0], sq))
	}
	start := cs.cell(k[0], player)
	reg, out := cs.flood(boxes, start)
	key := b.ZBox[k[0]] * 0x9e3779b97f4a7c15
	if reg != 0 {
		key ^= b.ZPlayer[cs.w.sq[bits.TrailingZeros64(reg)]]
	}
	for _, sq := range k {
		key ^= b.ZBox[sq]
	}
	c := &cs.cache[key&(clusterCache-1)]
	if c.key == key {
		return c.dead, false
	}
	cs.runs++
	dead = cs.search(boxes, start)
	if dead {
		cs.dead++
	}
	*c = clusterAnswer{key: key, dead: dead}
	cs.learnable = out
	cs.corral = cs.corral[:0]
	if out {
		for m := ^(reg | boxes | w.wall); m != 0; m &= m - 1 {
			cs.corral = append(cs.corral, w.sq[bits.TrailingZeros64(m)])
		}
	}
	return dead, true
}

// cell returns the cell of square sq in the window around center, -1 when
// it lies off the window.
func (cs *clusterSearch) cell(center, sq uint16) int8 {
	cx, cy := cs.b.XY(center)
	x, y := cs.b.XY(sq)
	x, y = x-cx+3, y-cy+3
	if x < 0 || y < 0 || x > 7 || y > 7 {
		return -1
	}
	return int8(8*y + x)
}

// flood returns the cells the player reaches from cell start (-1: from
// off the window) with boxes on the cells of boxes, and whether it reaches
// off the window.
func (cs *clusterSearch) flood(boxes uint64, start int8) (reg uint64, out bool) {
	w := cs.w
	free := ^(w.wall | boxes)
	if start < 0 {
		out = true
		reg = w.out & free
	} else {
		reg = 1 << uint(start)
	}
	for {
		grow := reg | (shift(reg, 0)|shift(reg, 1)|shift(reg, 2)|shift(reg, 3))&free
		if !out && grow&w.out != 0 {
			out = true
			grow |= w.out & free
		}
		if grow == reg {
			return reg, out
		}
		reg = grow
	}
}

// frozenOff reports whether, with boxes on the cells of boxes, some boxes
// can never move again and one of them is off a goal: the greatest set of
// boxes each blocked on both axes by a wall, by dead squares on both
// sides, or by a box of the set.
func (cs *clusterSearch) frozenOff(boxes uint64) bool {
	w := cs.w
	f := boxes
	for {
		h := w.hBlock | shift(f, 0) | shift(f, 2)
		v := w.vBlock | shift(f, 1) | shift(f, 3)
		next := f & h & v
		if next == f {
			return f&^w.goal != 0
		}
		f = next
	}
}

// search reports whether no sequence of pushes leaves every remaining box
// on a goal, starting from boxes with the player on cell start (-1: off
// the window); false also when it gives up.
func (cs *clusterSearch) search(boxes uint64, start int8) bool {
	w := cs.w
	cs.ep++
	if cs.ep == 0 {
		clear(cs.epoch)
		cs.ep = 1
	}
	cs.qbox = append(cs.qbox[:0], boxes)
	cs.qpl = append(cs.qpl[:0], start)
	expanded := 0
	for head := 0; head < len(cs.qbox); head++ {
		boxes, pl := cs.qbox[head], cs.qpl[head]
		if boxes&^w.goal == 0 || boxes&(boxes-1) == 0 {
			return false
		}
		reg, out := cs.flood(boxes, pl)
		norm := noRegion
		if reg != 0 {
			norm = bits.TrailingZeros64(reg)
		}
		if !cs.visit(boxes, norm) {
			continue
		}
		if expanded++; expanded > clusterLimit {
			return false
		}
		free := ^(w.wall | boxes | w.dead)
		for d := 0; d < 4; d++ {
			// The player stands on the side opposite d: in the region, or
			// off the window beyond an edge cell.
			side := shift(reg, d)
			if out {
				side |= w.walk[d^2]
			}
			movers := boxes & side
			inside := movers & shift(free, d^2)
			escaping := movers & w.escape[d]
			for m := inside | escaping; m != 0; m &= m - 1 {
				i := bits.TrailingZeros64(m)
				bit := uint64(1) << uint(i)
				next := boxes &^ bit
				if inside&bit != 0 {
					next |= shift(bit, d)
					if cs.frozenOff(next) {
						continue
					}
				}
				cs.qbox = append(cs.qbox, next)
				cs.qpl = append(cs.qpl, int8(i))
			}
		}
	}
	return true
}

// visit adds a state to the visited set; false when it was there. States
// are compared whole, so that no collision can hide one from the search.
func (cs *clusterSearch) visit(boxes uint64, norm int) bool {
	h := (boxes ^ uint64(norm+1)*0x9e3779b97f4a7c15) * 0xbf58476d1ce4e5b9
	i := int(h>>54) & (clusterSeen - 1)
	for probes := 0; probes < clusterSeen; probes++ {
		if cs.epoch[i] != cs.ep {
			cs.epoch[i], cs.seen[i], cs.seenNorm[i] = cs.ep, boxes, int8(norm)
			return true
		}
		if cs.seen[i] == boxes && cs.seenNorm[i] == int8(norm) {
			return false
		}
		i = (i + 1) & (clusterSeen - 1)
	}
	return true
}
