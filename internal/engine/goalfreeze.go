package engine

// Frozen goals.
//
// A box frozen on a goal (deadlock.go: it and the boxes blocking it can
// never move again) is as good as a wall for the rest of the game. When a
// push freezes a box on a goal, the boxes frozen on goals in the child, F,
// are taken as walls and every other box must still be able to reach a
// goal of its own: a perfect matching of the other boxes to the other
// goals, a box matched to a goal only when a lone box can be pushed from
// its square to it with F's squares walled. Without one, the child is a
// deadlock. The goals' reach for a set F is computed once (pulls from each
// goal) and cached by F's Zobrist key. The player's regions around a lone
// box on a square, with F walled, are the same for every goal's pulls:
// they are flooded once per F, when a pull first stands on the square.

// goalFreeze is a searcher's frozen-goal state.
type goalFreeze struct {
	ps *phaseSearch // the pull searches, over ps.filled = F
	// F in the expanded position, found when a child first needs it:
	// mark[sq] == gen for its squares.
	mark    []uint32
	gen     uint32
	list    []uint16
	key     uint64
	cluster []uint16 // scratch: the boxes a push froze
	cache   []gfEntry
	words   int // per reach bitset
	// matching scratch
	matchG  []int16 // per goal index: the box matched, -1
	seen    []uint32
	seenGen uint32
	boxes   []uint16
	pruned  int64
	// the player's regions around a lone box, for the F of one fillReach
	sideGen   int32
	sideStamp []int32 // per square: sideGen when sideLbl holds its sides
	sideLbl   []uint8 // per square side: a region label, noSide for none
}

// noSide labels a side of a square that is a wall or in F.
const noSide = 0xFF

type gfEntry struct {
	key   uint64
	set   bool
	reach []uint64 // per goal index, words bits: squares that reach it
}

const (
	// gfCacheBytes bounds the reach sets a searcher caches: in a goal room
	// the search meets many frozen sets again, and each costs a pull
	// search from every goal.
	gfCacheBytes = 2 << 20
	// gfCacheMax bounds the entries, whatever their size.
	gfCacheMax = 4096
)

func (g *goalFreeze) init(b *Board) {
	n := b.Squares + 1
	g.ps = newPhaseSearch(b)
	g.mark = make([]uint32, n)
	g.words = (n + 63) / 64
	size := gfCacheMax
	for size > 64 && size*len(b.Goals)*g.words*8 > gfCacheBytes {
		size /= 2
	}
	g.cache = make([]gfEntry, size)
	g.matchG = make([]int16, len(b.Goals))
	g.seen = make([]uint32, len(b.Goals))
	g.boxes = make([]uint16, 0, len(b.StartBoxes))
	g.sideStamp = make([]int32, n)
	g.sideLbl = make([]uint8, 4*n)
}

// frozenGoals finds F for the expanded position (at the start of its
// expansion).
func (s *searcher) frozenGoals() {
	g := &s.gf
	g.gen++
	if g.gen == 0 {
		clear(g.mark)
		g.gen = 1
	}
	g.list = g.list[:0]
	g.key = 0
	for _, sq := range s.boxes {
		if s.goals[sq] < 0 || g.mark[sq] == g.gen {
			continue
		}
		if s.freezeDeadlock(sq) || !s.frozeOnGoal {
			continue // (a frozen box off a goal here would be the parent's own deadlock)
		}
		for _, x := range s.fstack {
			if g.mark[x] != g.gen {
				g.mark[x] = g.gen
				g.list = append(g.list, x)
				g.key ^= s.zbox[x]
			}
		}
	}
}

// frozenGoalDead reports whether the child on the board, in which the push
// that ended on to froze boxes on goals (s.fstack), is a deadlock.
func (s *searcher) frozenGoalDead(to uint16) bool {
	g := &s.gf
	key := g.key
	g.cluster = g.cluster[:0]
	for _, x := range s.fstack {
		if g.mark[x] != g.gen {
			key ^= s.zbox[x]
			g.cluster = append(g.cluster, x)
		}
	}
	if len(g.cluster) == 0 {
		return false // nothing new froze
	}
	ps := g.ps
	for _, x := range g.list {
		ps.filled[x] = true
	}
	for _, x := range g.cluster {
		ps.filled[x] = true
	}
	e := &g.cache[key&uint64(len(g.cache)-1)]
	if !e.set || e.key != key {
		s.fillReach(e, key)
	}
	// Match the other boxes to the other goals (augmenting paths).
	g.boxes = g.boxes[:0]
	for _, sq := range s.boxes {
		if g.mark[sq] != g.gen && !g.ps.filled[sq] {
			g.boxes = append(g.boxes, sq)
		}
	}
	for i := range g.matchG {
		g.matchG[i] = -1
	}
	for bi := range g.boxes {
		g.seenGen++
		if g.seenGen == 0 {
			clear(g.seen)
			g.seenGen = 1
		}
		if !s.augmentGF(e, bi) {
			clear(g.ps.filled)
			g.pruned++
			return true
		}
	}
	clear(g.ps.filled)
	return false
}

// fillReach computes e's reach sets for the frozen set marked in
// ps.filled.
func (s *searcher) fillReach(e *gfEntry, key uint64) {
	g := &s.gf
	if len(e.reach) == 0 {
		e.reach = make([]uint64, len(s.b.Goals)*g.words)
	}
	clear(e.reach)
	g.sideGen++
	for gi, t := range s.b.Goals {
		if !g.ps.filled[t] {
			s.pullReach(t, e.reach[gi*g.words:(gi+1)*g.words])
		}
	}
	e.key, e.set = key, true
}

// pullReach sets in reach the squares from which a lone box can be pushed
// to goal t, F walled: the squares a box on t can be pulled to.
func (s *searcher) pullReach(t uint16, reach []uint64) {
	g, b := &s.gf, s.b
	ps := g.ps
	wall := b.Wall()
	ps.sgen++
	gen := ps.sgen
	ps.queue = ps.queue[:0]
	reach[t/64] |= 1 << (t % 64)
	for e := 0; e < 4; e++ {
		if q := b.Nbr[int(t)*4+e]; q != wall && !ps.filled[q] {
			ps.seen[int(t)*4+e] = gen
			ps.queue = append(ps.queue, int32(t)*4+int32(e))
		}
	}
	for head := 0; head < len(ps.queue); head++ {
		st := ps.queue[head]
		box, side := uint16(st/4), int(st%4)
		lbl := s.sides(box)
		for e := 0; e < 4; e++ {
			// The player reaches side e of the box and pulls it there,
			// stepping back onto the square beyond.
			if lbl[e] != lbl[side] {
				continue
			}
			q := b.Nbr[int(box)*4+e]
			q2 := b.Nbr[int(q)*4+e]
			if q2 == wall || ps.filled[q2] {
				continue
			}
			reach[q/64] |= 1 << (q % 64)
			if ns := int32(q)*4 + int32(e); ps.seen[ns] != gen {
				ps.seen[ns] = gen
				ps.queue = append(ps.queue, ns)
			}
		}
	}
}

// sides returns the region labels of the four sides of a lone box on sq,
// F walled, flooding them when this F has not needed them yet. When the
// free squares of the ring around sq join its free neighbours, they are
// one region without a flood (as in childNorm).
func (s *searcher) sides(sq uint16) []uint8 {
	g := &s.gf
	ps := g.ps
	wall := s.wall
	lbl := g.sideLbl[int(sq)*4 : int(sq)*4+4 : int(sq)*4+4]
	if g.sideStamp[sq] == g.sideGen {
		return lbl
	}
	g.sideStamp[sq] = g.sideGen
	lbl[0], lbl[1], lbl[2], lbl[3] = noSide, noSide, noSide, noSide
	var mask uint8
	for k, q := range s.ring[int(sq)*8 : int(sq)*8+8] {
		if q != wall && !ps.filled[q] {
			mask |= 1 << k
		}
	}
	oneRegion := s.ringOK[mask]
	next := uint8(0)
	for d := 0; d < 4; d++ {
		q := s.nbr[int(sq)*4+d]
		if q == wall || ps.filled[q] || lbl[d] != noSide {
			continue
		}
		if oneRegion {
			lbl[d] = 0
			continue
		}
		fg := ps.flood(q, sq)
		for e := d; e < 4; e++ {
			if r := s.nbr[int(sq)*4+e]; r != wall && ps.fl.Reach[r] == fg {
				lbl[e] = next
			}
		}
		next++
	}
	return lbl
}

// augmentGF tries to match box bi of g.boxes, moving earlier matches along.
func (s *searcher) augmentGF(e *gfEntry, bi int) bool {
	g := &s.gf
	sq := int(g.boxes[bi])
	for gi, t := range s.b.Goals {
		if g.ps.filled[t] || g.seen[gi] == g.seenGen || e.reach[gi*g.words+sq/64]&(1<<(sq%64)) == 0 {
			continue
		}
		g.seen[gi] = g.seenGen
		if g.matchG[gi] < 0 || s.augmentGF(e, int(g.matchG[gi])) {
			g.matchG[gi] = int16(bi)
			return true
		}
	}
	return false
}
