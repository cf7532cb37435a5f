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
	late  int64 // queued positions found dead when taken out (pathDeadlocks)
}

const (
	// maxLearned bounds the sets kept, so the store stays small beside the
	// transposition table.
	maxLearned = 1 << 14
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
// to and left the player on player, holds a learned deadlock, and counts
// the search's prunes.
func (l *learnedSets) dead(boxAt []int16, to, player uint16) bool {
	if l.holds(boxAt, to, player) {
		l.hits++
		return true
	}
	return false
}

// holds is dead without the count, for the corral sub-search's positions.
func (l *learnedSets) holds(boxAt []int16, to, player uint16) bool {
	for _, id := range l.bySq[to] {
		if l.match(id, boxAt, player) {
			return true
		}
	}
	return false
}

// pathDeadlocks marks the positions on the search path that hold a learned
// deadlock. Every position after such a one on the path is dead too, so a
// queued position is dropped when any position on its path holds a set,
// learned before or after it was queued: a set learned in one branch so
// cuts off, at their roots, the subtrees queued below it in others. This
// is YASS's path deadlock count.
//
// A set and a position are mostly looked at together once. A child is
// tested against the sets there are when it is made (searcher.childKey).
// When goTo replays a position, it is tested against the sets that came
// since: records are numbered in the order they are stored, and each set
// is stamped with the table's size when this searcher first saw it, so the
// sets to test are those whose stamp is not below the record's number. The
// sets learned while a position stays on the path are tested when goTo
// next runs (searcher.checkPath). A record relinked to a shorter path was
// tested as a child of it then, against the sets there were.
type pathDeadlocks struct {
	dead    []bool   // by path index
	count   int      // true entries in dead
	checked int      // sets [0, checked) were tested against the whole path
	stamp   []uint32 // by set: the table's size when this searcher saw it
	// memo holds, for some records, how many sets they were last tested
	// against: the records near the root are replayed over and over.
	memo []pathMemo
	inK  []bool // scratch: the squares of the set checkPath tests
}

// pathMemo says record rec-1 was tested against sets [0, upTo).
type pathMemo struct{ rec, upTo uint32 }

// pathMemoSize is the number of records pathDeadlocks remembers.
const pathMemoSize = 1 << 12

func (d *pathDeadlocks) init(squares int) {
	d.dead = make([]bool, 0, 1024)
	d.stamp = make([]uint32, 0, maxLearned)
	d.memo = make([]pathMemo, pathMemoSize)
	d.inK = make([]bool, squares+1)
}

// reset empties the path for a new search. The learned sets stay, and a
// new search's records are made after all of them.
func (d *pathDeadlocks) reset() {
	d.dead, d.count, d.checked = d.dead[:0], 0, 0
	clear(d.stamp)
	clear(d.memo)
}

// see stamps the sets [len(stamp), used) with the table's size, slots.
func (d *pathDeadlocks) see(used int, slots uint32) {
	for len(d.stamp) < used {
		d.stamp = append(d.stamp, slots)
	}
}

// holdsSince reports whether a set stamped at or after record x holds in
// the position on boxAt, x's, whose last move put a box on to and left
// the player on player. Stamps grow with the sets' ids, and a square's
// sets are in id order.
func (d *pathDeadlocks) holdsSince(l *learnedSets, x uint32, boxAt []int16, to, player uint16) bool {
	m := &d.memo[x%pathMemoSize]
	from := int32(0)
	if m.rec == x+1 {
		from = int32(m.upTo)
	}
	ids := l.bySq[to]
	for i := len(ids) - 1; i >= 0 && ids[i] >= from && d.stamp[ids[i]] >= x; i-- {
		if l.match(ids[i], boxAt, player) {
			m.rec = 0 // dead: tested again next time
			return true
		}
	}
	*m = pathMemo{x + 1, uint32(l.used)}
	return false
}

// add appends the path's next position, dead or not.
func (d *pathDeadlocks) add(dead bool) {
	d.dead = append(d.dead, dead)
	if dead {
		d.count++
	}
}

// pop removes the path's last position.
func (d *pathDeadlocks) pop() {
	last := len(d.dead) - 1
	if d.dead[last] {
		d.count--
	}
	d.dead = d.dead[:last]
}

// checkPath tests the positions on the path against the sets learned since
// it last ran. Going back from the path's end, a set's squares are kept
// track of through the pushes' from and to squares alone: nothing on the
// board moves.
func (s *searcher) checkPath() {
	d, l := &s.pathDead, &s.learned
	for ; d.checked < l.used; d.checked++ {
		id := int32(d.checked)
		k := l.boxes(id)
		missing := 0
		for _, sq := range k {
			d.inK[sq] = true
			if s.boxAt[sq] < 0 {
				missing++
			}
		}
		for j := len(s.pathPush) - 1; j > 0; j-- {
			p := s.pathPush[j]
			last, end := s.span(p)
			if missing == 0 && !d.dead[j] && !l.inCorral(id, last) {
				d.dead[j] = true
				d.count++
			}
			// The position before push j: its box back on p.from.
			if d.inK[end] {
				missing++
			}
			if d.inK[p.from] {
				missing--
			}
		}
		for _, sq := range k {
			d.inK[sq] = false
		}
	}
}
