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
// goal) and cached by F's Zobrist key.

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
}

type gfEntry struct {
	key   uint64
	set   bool
	reach []uint64 // per goal index, words bits: squares that reach it
}

const gfCacheSize = 64

func (g *goalFreeze) init(b *Board) {
	n := b.Squares + 1
	g.ps = newPhaseSearch(b)
	g.mark = make([]uint32, n)
	g.words = (n + 63) / 64
	g.cache = make([]gfEntry, gfCacheSize)
	g.matchG = make([]int16, len(b.Goals))
	g.seen = make([]uint32, len(b.Goals))
	g.boxes = make([]uint16, 0, len(b.StartBoxes))
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
	e := &g.cache[key&(gfCacheSize-1)]
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
	ps := g.ps
	if len(e.reach) == 0 {
		e.reach = make([]uint64, len(s.b.Goals)*g.words)
	}
	clear(e.reach)
	for gi, t := range s.b.Goals {
		if ps.filled[t] {
			continue
		}
		d := ps.pullDistancesInto(t, ps.dist)
		for sq := 0; sq < s.b.Squares; sq++ {
			if d[sq] != Inf {
				e.reach[gi*g.words+sq/64] |= 1 << (sq % 64)
			}
		}
	}
	e.key, e.set = key, true
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
