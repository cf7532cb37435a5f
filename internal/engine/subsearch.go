package engine

// Corral deadlock search: a small search of a few boxes alone on the board.
//
// Take a set K of boxes from the position, remove every other box, and ask
// whether K's boxes can all be pushed onto goals, the player starting where
// it stands. Removing boxes only frees squares, so every solution of the
// whole position, cut down to the pushes of K's boxes, is a way to do that:
// if it is impossible, the position is a deadlock.
//
// A box that gets out of the corral, onto a square of the player's region
// at the start (K's boxes alone on the board), leaves the search there, as
// YASS's corral deadlock search does: the question becomes whether the
// boxes that never get out can all end on goals. Every solution still cuts
// down to a way to do that (take each box off where it first gets out;
// fewer boxes only free squares), so the proof stands, and the search no
// longer follows a box that got out across the board.
//
// The search also prunes a position that holds one of the searcher's
// learned deadlocks (learned.go), as YASS's corral search prunes by its
// deadlock sets. A learned set says that its boxes, with the player outside
// its corral, can never all reach goals, whatever other boxes there are.
// Along a way for K's boxes alone to all reach goals, each position has the
// boxes of this search's position at that move and maybe more (those that
// got out), the player on the same square; it holds no set, so neither
// does the search's position. The proof stands, and what one corral's
// proof learned shortens the next's.
//
// The search explores K's positions depth-first, a child whose box got out
// first, pruning by dead squares, by the freeze test among the boxes left
// and by the learned sets. A corral that is not dead is mostly shown so by
// its boxes getting out one after another, which depth-first finds after a
// few positions where breadth-first explores every shallower one first; a
// dead corral costs the same either way, every position it reaches. It
// gives up (proving nothing) after subLimit positions, when the boxes left
// are all on goals, or, when its caller asks (corral.go, subInside), as
// soon as the player gets into the corral. Answers are cached by the boxes'
// squares and the player's region.

// subSearch is the scratch of the corral deadlock search, allocated once
// per searcher.
type subSearch struct {
	b      *Board
	known  *learnedSets // the searcher's learned deadlocks
	boxAt  []int16      // -1 free, -2 the wall sentinel, else a K box
	stamp  []uint32     // the expanded position's player region
	gen    uint32
	fq     []uint16
	fmark  []uint32 // freeze test marks
	fgen   uint32
	fstack []uint16
	// visited positions: open addressing on Zobrist keys, cleared by epoch
	seen  []uint64
	epoch []uint32
	ep    uint32
	// the depth-first stack: k squares per position, then the player
	states []uint16
	cur    []uint16 // the position being expanded, off the stack
	cache  []subResult
	limit  int
	inside uint16 // a square of the corral under test
	// out stamps (with ogen) the player's region at the start: a box
	// pushed there leaves the search
	out  []uint32
	ogen uint32
	// statistics
	runs, dead int64
	outDead    int64 // dead verdicts reached after a box got out
	work       int64 // positions expanded, over all sub-searches
}

type subResult struct {
	key  uint64
	dead bool
}

const (
	subSeen = 1 << 13 // visited-position slots
	// subCache is the answers cached: the same corral comes back in many
	// positions that differ elsewhere, and a sub-search that follows the
	// player into the corral costs far more than a slot.
	subCache = 1 << 16
	// maxSubK is the most boxes a sub-search takes, and cheapSubK the
	// most once the sub-searches are past their budget (corral.go,
	// subAffordable). Large corrals are dead too, often where a packing
	// search jams, but where few are dead their sub-searches can cost
	// several times the search.
	maxSubK   = 12
	cheapSubK = 8
	// subLimit is the positions a sub-search explores before it gives
	// up: the dead corrals it finds are tight, and a larger limit costs
	// more on the corrals that are not dead than it finds.
	subLimit = 300
	// quickLimit is the limit of the sub-search of a single region's boxes
	// (corral.go), run for every such region: its dead corrals are tighter
	// still.
	quickLimit = 48
	// maxQuickK is the most boxes a quick sub-search takes.
	maxQuickK = 4
	// quickKey marks the cache keys of the quick sub-searches, whose
	// answers a full one must not take.
	quickKey = 0x5bd1e9955bd1e995
	// expandedKey marks the visited-set keys of positions expanded, by
	// their player's region, apart from those stacked, by its square.
	expandedKey = 0x9e3779b97f4a7c15
)

func newSubSearch(b *Board, known *learnedSets) *subSearch {
	n := b.Squares + 1
	ss := &subSearch{b: b, known: known, boxAt: make([]int16, n), stamp: make([]uint32, n), fq: make([]uint16, 0, n),
		fmark: make([]uint32, n), fstack: make([]uint16, 0, maxSubK+1),
		seen: make([]uint64, subSeen), epoch: make([]uint32, subSeen), cache: make([]subResult, subCache),
		states: make([]uint16, 0, (maxSubK+1)*(subLimit+4*maxSubK)), cur: make([]uint16, 0, maxSubK+1), out: make([]uint32, n)}
	for i := range ss.boxAt {
		ss.boxAt[i] = -1
	}
	ss.boxAt[b.Squares] = -2
	return ss
}

// deadlocked reports whether the boxes on squares k (at most maxSubK) can
// be proved unable to reach goals on their own, the player on player, whose
// region in the whole position has the normalised square pnorm (the
// answer's cache key with k: that region decides the player's with k's
// boxes alone). It explores at most limit positions. The search gives up
// as soon as the player gets to inside, a square of the corral, or never
// for the wall sentinel: a corral that opens is less often a deadlock, and
// proving one costs a search to the end.
func (ss *subSearch) deadlocked(k []uint16, player, pnorm, inside uint16, limit int) bool {
	b := ss.b
	key := b.ZPlayer[pnorm]
	if limit < subLimit {
		key ^= quickKey
	}
	for _, sq := range k {
		key ^= b.ZBox[sq]
	}
	c := &ss.cache[key&(subCache-1)]
	if c.key == key {
		return c.dead
	}
	start := b.ZPlayer[player]
	for _, sq := range k {
		start ^= b.ZBox[sq]
	}
	ss.runs++
	ss.inside, ss.limit = inside, limit
	dead := ss.search(k, player, start)

	if dead {
		ss.dead++
	}
	*c = subResult{key: key, dead: dead}
	return dead
}

// search runs the depth-first search from the boxes k, the player on
// player. A child is stacked under its player's square as it stands, not
// its region's smallest square, which would cost a flood per child; the
// region is flooded when the position is taken off, and a position whose
// boxes and region were expanded already is skipped then.
func (ss *subSearch) search(k []uint16, player uint16, key uint64) bool {
	b := ss.b
	n := len(k)
	ss.ep++
	if ss.ep == 0 {
		clear(ss.epoch)
		ss.ep = 1
	}
	ss.visit(key)
	ss.markOut(k, player)
	ss.states = append(ss.states[:0], k...)
	ss.states = append(ss.states, player)
	width := n + 1
	expanded := 0
	out := false
	for len(ss.states) > 0 {
		top := len(ss.states) - width
		ss.cur = append(ss.cur[:0], ss.states[top:]...)
		ss.states = ss.states[:top]
		st := ss.cur
		onGoal, left := 0, 0
		for i, sq := range st[:n] {
			if sq == noSquare {
				continue
			}
			left++
			ss.boxAt[sq] = int16(i)
			if b.GoalIndex[sq] >= 0 {
				onGoal++
			}
		}
		if onGoal == left {
			ss.clearBoxes(st[:n])
			return false
		}
		norm := ss.flood(st[n])
		gen := ss.gen
		if ss.stamp[ss.inside] == gen {
			ss.clearBoxes(st[:n])
			return false // the corral is open
		}
		var h uint64
		for _, sq := range st[:n] {
			if sq != noSquare {
				h ^= b.ZBox[sq]
			}
		}
		if !ss.visit(h ^ b.ZPlayer[norm] ^ expandedKey) {
			ss.clearBoxes(st[:n])
			continue // its region was expanded from another square
		}
		ss.work++
		if expanded++; expanded > ss.limit {
			ss.clearBoxes(st[:n])
			return false // too big to decide
		}
		escaped := -1 // the stack offset of a child whose box got out
		for i := 0; i < n; i++ {
			from := st[i]
			if from == noSquare {
				continue
			}
			for d := 0; d < 4; d++ {
				to := b.Nbr[int(from)*4+d]
				side := b.Nbr[int(from)*4+(d^2)]
				if ss.boxAt[to] != -1 || b.Dead[to] || ss.stamp[side] != gen {
					continue
				}
				escapes := ss.out[to] == ss.ogen
				ss.boxAt[from], ss.boxAt[to] = -1, int16(i)
				dead := ss.freeze(to)
				if !dead && !escapes && ss.known.used > 0 {
					dead = ss.known.holds(ss.boxAt, to, from)
				}
				ss.boxAt[to], ss.boxAt[from] = -1, int16(i)
				if dead {
					continue
				}
				dst, zto := to, b.ZBox[to]
				if escapes {
					dst, zto, out = noSquare, 0, true // out of the corral
				}
				ck := h ^ b.ZBox[from] ^ zto ^ b.ZPlayer[from]
				if !ss.visit(ck) {
					continue
				}
				if escapes {
					escaped = len(ss.states)
				}
				for j := 0; j < n; j++ {
					sq := st[j]
					if j == i {
						sq = dst
					}
					ss.states = append(ss.states, sq)
				}
				ss.states = append(ss.states, from)
			}
		}
		ss.clearBoxes(st[:n])
		if top := len(ss.states) - width; escaped >= 0 && escaped != top {
			for j := range width {
				ss.states[escaped+j], ss.states[top+j] = ss.states[top+j], ss.states[escaped+j]
			}
		}
	}
	if out {
		ss.outDead++
	}
	return true
}

// outside appends to out the free squares the player on player cannot
// reach with only the boxes k on the board.
func (ss *subSearch) outside(k []uint16, player uint16, out []uint16) []uint16 {
	for i, sq := range k {
		ss.boxAt[sq] = int16(i)
	}
	defer ss.clearBoxes(k)
	ss.flood(player)
	gen := ss.gen
	for sq := 0; sq < ss.b.Squares; sq++ {
		if ss.stamp[sq] != gen && ss.boxAt[sq] == -1 {
			out = append(out, uint16(sq))
		}
	}
	return out
}

// markOut stamps the player's region with the boxes k alone on the board,
// the player on player, as the squares out of the corral.
func (ss *subSearch) markOut(k []uint16, player uint16) {
	for i, sq := range k {
		ss.boxAt[sq] = int16(i)
	}
	ss.flood(player)
	ss.clearBoxes(k)
	ss.ogen++
	if ss.ogen == 0 {
		clear(ss.out)
		ss.ogen = 1
	}
	for _, sq := range ss.fq {
		ss.out[sq] = ss.ogen
	}
}

func (ss *subSearch) clearBoxes(sqs []uint16) {
	for _, sq := range sqs {
		if sq != noSquare {
			ss.boxAt[sq] = -1
		}
	}
}

// visit adds key to the visited set; false when it was there already (or
// the set is full, which ends nothing but may repeat work).
func (ss *subSearch) visit(key uint64) bool {
	i := int(key>>51) & (subSeen - 1)
	for probes := 0; probes < subSeen; probes++ {
		if ss.epoch[i] != ss.ep {
			ss.epoch[i], ss.seen[i] = ss.ep, key
			return true
		}
		if ss.seen[i] == key {
			return false
		}
		i = (i + 1) & (subSeen - 1)
	}
	return true
}

// flood stamps in ss.stamp the player's region from sq (with a new
// generation, ss.gen) and returns its smallest square.
func (ss *subSearch) flood(sq uint16) uint16 {
	b, stamp := ss.b, ss.stamp
	ss.gen++
	if ss.gen == 0 {
		clear(ss.stamp)
		ss.gen = 1
	}
	gen := ss.gen
	stamp[sq] = gen
	ss.fq = append(ss.fq[:0], sq)
	low := sq
	for k := 0; k < len(ss.fq); k++ {
		c := int(ss.fq[k]) * 4
		for _, m := range b.Nbr[c : c+4] {
			if ss.boxAt[m] != -1 || stamp[m] == gen {
				continue
			}
			stamp[m] = gen
			ss.fq = append(ss.fq, m)
			if m < low {
				low = m
			}
		}
	}
	return low
}

// freeze reports whether the box on sq is frozen with a box off a goal,
// among the sub-search's boxes (the same test as searcher.freezeDeadlock).
func (ss *subSearch) freeze(sq uint16) bool {
	ss.fgen++
	if ss.fgen == 0 {
		clear(ss.fmark)
		ss.fgen = 1
	}
	ss.fstack = ss.fstack[:0]
	if !ss.frozen(sq) {
		return false
	}
	for _, x := range ss.fstack {
		if ss.b.GoalIndex[x] < 0 {
			return true
		}
	}
	return false
}

func (ss *subSearch) frozen(sq uint16) bool {
	mark := len(ss.fstack)
	ss.fmark[sq] = ss.fgen
	ss.fstack = append(ss.fstack, sq)
	nb := ss.b.Nbr[int(sq)*4 : int(sq)*4+4]
	if ss.blocked(nb[0], nb[2]) && ss.blocked(nb[1], nb[3]) {
		return true
	}
	for _, x := range ss.fstack[mark:] {
		ss.fmark[x] = 0
	}
	ss.fstack = ss.fstack[:mark]
	return false
}

func (ss *subSearch) blocked(a, c uint16) bool {
	wall := ss.b.Wall()
	if a == wall || c == wall || ss.fmark[a] == ss.fgen || ss.fmark[c] == ss.fgen {
		return true
	}
	if ss.b.Dead[a] && ss.b.Dead[c] {
		return true
	}
	return (ss.boxAt[a] >= 0 && ss.frozen(a)) || (ss.boxAt[c] >= 0 && ss.frozen(c))
}
