package engine

import "math/bits"

// record is one stored state: 16 bytes, no pointers. The position itself is
// not stored: it is rebuilt by replaying the pushes on the parent chain from
// the root.
//
// key holds the state's 64-bit Zobrist hash with its low three bits replaced
// by flags: bit 0 is "closed" (expanded), bits 1-2 are the direction of the
// push that led here. So 61 hash bits identify a state. from is the square
// the pushed box came from (where the player stands afterwards); g is the
// number of pushes from the root on the best path seen.
type record struct {
	key    uint64
	parent uint32
	g      uint16
	from   uint16
}

const (
	keyClosed = 1
	keyFlags  = 7
	// recordBytes is the size of one record.
	recordBytes = 16
	// indexEntryBytes is the size of one index entry.
	indexEntryBytes = 8
	// openEntryBytes is the size of one open-list entry.
	openEntryBytes = 8
	// entriesPerState/2 is how many open-list entries the memory budget
	// provides per storable state: A* needs about one, alternating lists
	// two per open state, and some states are always closed.
	entriesPerState = 3
	// maxLoadNum/maxLoadDen is the most an index is filled before it grows;
	// the largest index the budget allows is never filled further.
	maxLoadNum, maxLoadDen = 4, 5
	// minIndex is the size a table's index starts at.
	minIndex = 1 << 12
	// noRecord is the parent of the root.
	noRecord = ^uint32(0)
)

// hashKey turns a hash into the stored key without flags: never zero.
func hashKey(h uint64) uint64 {
	k := h &^ keyFlags
	if k == 0 {
		k = 8
	}
	return k
}

// table is the transposition table: records in slots, in insertion order,
// so a record's index there is a stable id used for parent links and
// open-list entries, and an open-addressing index with linear probing that
// finds a record by key. Both take memory as the search stores states: the
// slots are a slab committed page by page as it fills, and the index starts
// small and doubles, rehashed from the slots in order, up to the size the
// memory budget allows. Records are never moved or deleted during a search.
//
// An index entry holds a record's id plus one and 32 more bits of its key,
// so that probing rarely reads a record that does not match; 0 is empty.
type table struct {
	slots   []record // len(slots) is the most records the budget allows
	slotMem *mapping
	index   []uint64
	idxMem  *mapping
	// maxIndex is the largest index the budget allows.
	maxIndex int
	used     int
	// pending is the index position and key of the last find that missed,
	// where insert puts the record.
	pending    int
	pendingKey uint64
}

// tableRecords returns how many records a memory budget buys, leaving room
// for their index at its fill limit, 1.5 open-list entries per record and
// the path bitset (see Workspace.Bytes).
func tableRecords(memory int64) int {
	per := float64(recordBytes) + float64(indexEntryBytes)*maxLoadDen/maxLoadNum +
		float64(openEntryBytes)*entriesPerState/2 + 1.0/8
	// 32 bytes are kept for rounding up the index and the bitset.
	n := int64(float64(memory-32) / per)
	return int(min(max(n, 8), 1<<31))
}

// newTable returns an empty table for at most records records.
func newTable(records int) *table {
	t := &table{maxIndex: records * maxLoadDen / maxLoadNum, slotMem: new(mapping), idxMem: new(mapping)}
	t.slots, *t.slotMem = newSlab[record](records)
	t.index, *t.idxMem = newSlab[uint64](min(minIndex, t.maxIndex))
	ownSlab(t, t.slotMem)
	ownSlab(t, t.idxMem)
	return t
}

// release gives the table's memory back; the table must not be used again.
func (t *table) release() {
	t.slotMem.release()
	t.idxMem.release()
	t.slots, t.index = nil, nil
}

// reset empties the table for another search pass (IDA* runs one per
// threshold), keeping the memory it has taken.
func (t *table) reset() {
	clear(t.index)
	t.used = 0
}

// trim empties the table and gives back the memory it took beyond its
// first index, for a new search.
func (t *table) trim() {
	trimSlab(t.slots, *t.slotMem, t.used)
	t.used = 0
	if n := min(minIndex, t.maxIndex); len(t.index) != n {
		index, mem := newSlab[uint64](n)
		t.idxMem.replace(mem)
		t.index = index
		return
	}
	clear(t.index)
}

// bytesTouched is the memory the table has taken for the current search.
func (t *table) bytesTouched() int64 {
	return int64(t.used)*recordBytes + int64(len(t.index))*indexEntryBytes
}

// home returns the first index position probed for key (fast range
// reduction of the high hash bits, so any index size works).
func home(key uint64, n int) int {
	hi, _ := bits.Mul64(key, uint64(n))
	return int(hi)
}

// fragment is the part of a key an index entry holds: bits that home does
// not use.
func fragment(key uint64) uint64 { return key << 29 &^ (1<<32 - 1) }

// find returns the id of the record with key, or the id that insert will
// give a record with key and false. A missing key's index position is kept
// for the insert that follows.
func (t *table) find(key uint64) (int, bool) {
	frag := fragment(key)
	n := len(t.index)
	i := home(key, n)
	for {
		e := t.index[i]
		if e == 0 {
			t.pending, t.pendingKey = i, key
			return t.used, false
		}
		if e&^(1<<32-1) == frag {
			if id := int(uint32(e)) - 1; t.slots[id].key&^keyFlags == key {
				return id, true
			}
		}
		if i++; i == n {
			i = 0
		}
	}
}

// full reports whether no more records may be inserted.
func (t *table) full() bool { return t.used >= len(t.slots) }

// insert stores a new record, as id, the id find returned for key.
func (t *table) insert(id int, key uint64, parent uint32, g uint16, from uint16, dir uint8) {
	if t.pendingKey != key || id != t.used {
		// Not the key of the last miss: find its place again.
		if _, found := t.find(key); found {
			panic("engine: insert of a stored key")
		}
	}
	t.slots[id] = record{key: key | uint64(dir)<<1, parent: parent, g: g, from: from}
	t.index[t.pending] = fragment(key) | uint64(id+1)
	t.pendingKey = 0
	t.used++
	if t.used*maxLoadDen >= len(t.index)*maxLoadNum && len(t.index) < t.maxIndex {
		t.grow()
	}
}

// grow doubles the index, or takes it to maxIndex when that is less than
// twice as large again, and rehashes every record into it. Doubling only
// while the result is at most half of maxIndex keeps the old and new
// indexes together below the largest one and its records.
func (t *table) grow() {
	n := 2 * len(t.index)
	if 2*n > t.maxIndex {
		n = t.maxIndex
	}
	index, mem := newSlab[uint64](n)
	for id := range t.used {
		key := t.slots[id].key &^ keyFlags
		i := home(key, n)
		for index[i] != 0 {
			if i++; i == n {
				i = 0
			}
		}
		index[i] = fragment(key) | uint64(id+1)
	}
	t.idxMem.replace(mem)
	t.index = index
}

func (r *record) closed() bool { return r.key&keyClosed != 0 }
func (r *record) dir() uint8   { return uint8(r.key>>1) & 3 }
func (r *record) setClosed()   { r.key |= keyClosed }
func (r *record) setOpen()     { r.key &^= keyClosed }
func (r *record) relink(parent uint32, g uint16, from uint16, dir uint8) {
	r.key = r.key&^keyFlags | uint64(dir)<<1 | r.key&keyClosed
	r.parent, r.g, r.from = parent, g, from
}
