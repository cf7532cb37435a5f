package engine

// Learned deadlocks: corrals the search proved dead, kept so that no other
// branch has to find them again.
//
// When a corral test (corral.go, subsearch.go) proves a position dead by a
// set K of its boxes alone, with the player outside a set C of squares, the
// proof holds for every position with boxes on all of K's squares and the
// player outside C, whatever the other boxes: it never looked at them
// (other boxes only take squares away from K's boxes and the player). The
// search keeps K and C, and prunes a child whose last move put a box on a
// square of some K when the child has boxes on all of K and its player is
// outside C. A set can only become complete by a box arriving on one of its
// squares, so checking the sets of the square a move ends on is enough;
// and the player can only leave C of a complete set by pushing one of K's
// boxes, which breaks the set.
//
// This is YASS's dynamic deadlock sets, in the form of a plain check of the
// moved box's square's sets instead of capacity counters, so nothing is
// updated per push and the check costs nothing for squares in no set.

// learnedSets is a searcher's store of learned deadlocks.
type learnedSets struct {
	// set i holds boxes data[off[i]:off[i+1]] and corral squares the bits
	// of cbits[i*words:(i+1)*words]: a corral can be most of the board, and
	// a bit is one test for the player.
	data  []uint16
	off   []int32
	cbits []uint64
	words int
	bySq  [][]int32 // per square: the sets whose K holds it
	keys  []uint64  // open addressing over the sets' hashes, to learn each once
	used  int
	hits  int64 // children pruned
	late  int64 // queued positions found dead when taken out
}

const (
	// maxLearned bounds the sets kept, so the store stays small beside the
	// transposition table.
	maxLearned = 1 << 14
	// recentLearned is how many of the sets learned last a position taken
	// out of the open list is checked against (holds).
	recentLearned = 32
	// maxPerSquare bounds the sets a square is in: every move onto the
	// square looks at all of them, and on a small board the sets learned
	// late are mostly variants of the ones before. The corral sub-search
	// proves many sets around the same squares, so a tighter bound drops
	// ones that still prune.
	maxPerSquare = 64
)

func (l *learnedSets) init(squares int) {
	l.bySq = make([][]int32, squares+1)
	l.words = (squares + 64) / 64
	l.keys = make([]uint64, 2*maxLearned)
	l.off = append(make([]int32, 0, 64), 0)
}

// learn adds the deadlock of boxes k with the player outside corral c;
// key identifies the pair. It does nothing for a pair known already, a
// square in maxPerSquare sets already, or a full store.
func (l *learnedSets) learn(k, c []uint16, key uint64) {
	if len(l.off)-1 >= maxLearned || len(k) == 0 {
		return
	}
	for _, sq := range k {
		if len(l.bySq[sq]) >= maxPerSquare {
			return
		}
	}
	if key == 0 {
		key = 1 // 0 marks a free slot
	}
	mask := uint64(len(l.keys) - 1)
	i := key & mask
	for l.keys[i] != 0 {
		if l.keys[i] == key {
			return
		}
		i = (i + 1) & mask
	}
	l.keys[i] = key
	id := int32(len(l.off) - 1)
	l.data = append(l.data, k...)
	l.off = append(l.off, int32(len(l.data)))
	base := len(l.cbits)
	l.cbits = append(l.cbits, make([]uint64, l.words)...)
	for _, sq := range c {
		l.cbits[base+int(sq)/64] |= 1 << (sq % 64)
	}
	for _, sq := range k {
		l.bySq[sq] = append(l.bySq[sq], id)
	}
	l.used++
}

// holds reports whether the position on boxAt with the player on player
// holds one of the recentLearned sets learned last: a position queued
// before a set it holds was learned. Older sets were mostly there when the
// positions now queued were made, and looking at every set for every
// position taken out costs more than the few it finds.
func (l *learnedSets) holds(boxAt []int16, player uint16) bool {
	for id := max(0, l.used-recentLearned); id < l.used; id++ {
		if l.match(int32(id), boxAt, player) {
			l.late++
			return true
		}
	}
	return false
}

// match reports whether set id holds in the position on boxAt with the
// player on player.
func (l *learnedSets) match(id int32, boxAt []int16, player uint16) bool {
	for _, sq := range l.boxes(id) {
		if boxAt[sq] < 0 {
			return false
		}
	}
	return !l.inCorral(id, player)
}

// boxes returns set id's boxes K.
func (l *learnedSets) boxes(id int32) []uint16 {
	return l.data[l.off[id]:l.off[id+1]]
}

// inCorral reports whether square sq is in set id's corral C.
func (l *learnedSets) inCorral(id int32, sq uint16) bool {
	return l.cbits[int(id)*l.words+int(sq)/64]&(1<<(sq%64)) != 0
}

// dead reports whether the position on boxAt, whose last move put a box on
// to and left the player on player, holds a learned deadlock.
func (l *learnedSets) dead(boxAt []int16, to, player uint16) bool {
	for _, id := range l.bySq[to] {
		if l.match(id, boxAt, player) {
			l.hits++
			return true
		}
	}
	return false
}
