package engine

import "math/bits"

// record is one stored state: 16 bytes, no pointers. The position itself is
// not stored: it is rebuilt by replaying the pushes on the parent chain from
// the root.
//
// key holds the state's 64-bit Zobrist hash with its low three bits replaced
// by flags: bit 0 is "closed" (expanded), bits 1-2 are the direction of the
// push that led here. So 61 hash bits identify a state; 0 marks an empty
// slot. from is the square the pushed box came from (where the player stands
// afterwards); g is the number of pushes from the root on the best path seen.
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
	// openEntryBytes is the size of one open-list entry.
	openEntryBytes = 8
	// entriesPerState/2 is how many open-list entries the memory budget
	// provides per storable state: A* needs about one, alternating lists
	// two per open state, and some states are always closed.
	entriesPerState = 3
	// maxLoadNum/maxLoadDen is the fill ratio at which the table is full.
	maxLoadNum, maxLoadDen = 4, 5
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

// table is an open-addressing transposition table with linear probing over
// one slab of records, sized once from the memory budget. Records are never
// moved or deleted during a search, so a record's slot index is a stable id
// used for parent links and open-list entries.
//
// The slab is cleared lazily, one page at a time: a page belongs to the
// current search only when its epoch matches, and is zeroed the first time
// a probe enters it. A workspace reused for another search therefore costs
// only the pages that search touches, and touched pages measure the memory
// really used.
type table struct {
	slots   []record
	epochs  []uint32 // per page
	epoch   uint32
	touched int // pages cleared for the current search
	used    int
	limit   int // most records before the table counts as full
}

// pageShift sets the page size: 1024 records, 16 KiB.
const pageShift = 10

// tableSlots returns how many slots a memory budget buys, leaving room for
// 1.5 open-list entries per storable state, the page epochs and the path
// bitset (see Workspace.Bytes).
func tableSlots(memory int64) int {
	// slots*16 + slots*(4/5)*(3/2)*8 + slots/1024*4 + slots/64*8 <= memory,
	// with 16 bytes kept for rounding the last two up.
	per := float64(recordBytes) + float64(openEntryBytes)*maxLoadNum/maxLoadDen*entriesPerState/2 + 4.0/(1<<pageShift) + 1.0/8
	s := int64(float64(memory-16) / per)
	if s < 16 {
		s = 16
	}
	if s > 1<<31 {
		s = 1 << 31
	}
	return int(s)
}

func newTable(slots int) *table {
	t := &table{slots: make([]record, slots), limit: slots * maxLoadNum / maxLoadDen}
	t.epochs = make([]uint32, (slots+(1<<pageShift)-1)>>pageShift)
	t.reset()
	return t
}

// reset empties the table for a new search in O(pages).
func (t *table) reset() {
	t.epoch++
	if t.epoch == 0 { // wrapped: every page must be cleared for real
		clear(t.epochs)
		t.epoch = 1
	}
	t.used, t.touched = 0, 0
}

// page makes sure the page of slot i belongs to the current search.
func (t *table) page(i int) {
	p := i >> pageShift
	if t.epochs[p] != t.epoch {
		lo := p << pageShift
		clear(t.slots[lo:min(lo+1<<pageShift, len(t.slots))])
		t.epochs[p] = t.epoch
		t.touched++
	}
}

// bytesTouched is the slab memory the current search has used.
func (t *table) bytesTouched() int64 { return int64(t.touched) << pageShift * recordBytes }

// home returns the first slot probed for key (fast range reduction of the
// high hash bits, so any slot count works).
func (t *table) home(key uint64) int {
	hi, _ := bits.Mul64(key, uint64(len(t.slots)))
	return int(hi)
}

// find returns the slot holding key, or the empty slot where it would go and
// false.
func (t *table) find(key uint64) (int, bool) {
	i := t.home(key)
	t.page(i)
	n := len(t.slots)
	for {
		k := t.slots[i].key
		if k == 0 {
			return i, false
		}
		if k&^keyFlags == key {
			return i, true
		}
		i++
		if i == n {
			i = 0
		}
		if i&(1<<pageShift-1) == 0 {
			t.page(i)
		}
	}
}

// full reports whether no more records may be inserted.
func (t *table) full() bool { return t.used >= t.limit }

// insert stores a new record in the empty slot i found by find.
func (t *table) insert(i int, key uint64, parent uint32, g uint16, from uint16, dir uint8) {
	t.slots[i] = record{key: key | uint64(dir)<<1, parent: parent, g: g, from: from}
	t.used++
}

func (r *record) closed() bool { return r.key&keyClosed != 0 }
func (r *record) dir() uint8   { return uint8(r.key>>1) & 3 }
func (r *record) setClosed()   { r.key |= keyClosed }
func (r *record) setOpen()     { r.key &^= keyClosed }
func (r *record) relink(parent uint32, g uint16, from uint16, dir uint8) {
	r.key = r.key&^keyFlags | uint64(dir)<<1 | r.key&keyClosed
	r.parent, r.g, r.from = parent, g, from
}
