package engine

// openQueue is the open list: a bucket queue on integer f with, inside each
// f bucket, one LIFO list per g so that ties go to the larger g (the deepest
// state, which also makes a child with its parent's f come out next: the
// depth-first extension). Entries live in one preallocated slab with a free
// list, so pushing and popping allocate nothing; only the first use of a new
// f or g value may grow the small bucket index.
//
// An entry names a record and the g it was queued with. A record whose g has
// since improved is queued again; the older entry is then stale and skipped
// when popped (lazy deletion).
type openQueue struct {
	entries []openEntry
	free    uint32 // head of the free list, noRecord when empty
	fresh   uint32 // entries[fresh:] were never used
	buckets []fBucket
	minF    int
	count   int // live entries, stale ones included
	peak    int
}

type openEntry struct {
	rec  uint32
	next uint32
}

type fBucket struct {
	heads []uint32 // by g: head entry index, noRecord when empty
	maxG  int      // no entry has a larger g; -1 when the bucket is empty
	count int
}

func newOpenQueue(capacity int) *openQueue {
	return &openQueue{entries: make([]openEntry, capacity), free: noRecord}
}

// reset empties the queue for a new search, keeping its memory.
func (q *openQueue) reset() {
	q.free, q.fresh = noRecord, 0
	for i := range q.buckets {
		b := &q.buckets[i]
		for g := range b.heads {
			b.heads[g] = noRecord
		}
		b.maxG, b.count = -1, 0
	}
	q.minF, q.count, q.peak = 0, 0, 0
}

// push queues record rec with priority (f, g). It reports false when the
// entry slab is full.
func (q *openQueue) push(rec uint32, f, g int) bool {
	var e uint32
	switch {
	case q.free != noRecord:
		e = q.free
		q.free = q.entries[e].next
	case int(q.fresh) < len(q.entries):
		e = q.fresh
		q.fresh++
	default:
		return false
	}
	for f >= len(q.buckets) {
		q.buckets = append(q.buckets, fBucket{maxG: -1})
	}
	b := &q.buckets[f]
	for g >= len(b.heads) {
		b.heads = append(b.heads, noRecord)
	}
	q.entries[e] = openEntry{rec: rec, next: b.heads[g]}
	b.heads[g] = e
	if g > b.maxG {
		b.maxG = g
	}
	b.count++
	q.count++
	if q.count > q.peak {
		q.peak = q.count
	}
	if f < q.minF || q.count == 1 {
		q.minF = f
	}
	return true
}

// pop removes the entry with the smallest f and, among those, the largest
// g, most recently pushed first. ok is false when the queue is empty.
func (q *openQueue) pop() (rec uint32, f, g int, ok bool) {
	if q.count == 0 {
		return 0, 0, 0, false
	}
	for q.buckets[q.minF].count == 0 {
		q.minF++
	}
	b := &q.buckets[q.minF]
	for b.heads[b.maxG] == noRecord {
		b.maxG--
	}
	g = b.maxG
	e := b.heads[g]
	b.heads[g] = q.entries[e].next
	b.count--
	if b.count == 0 {
		b.maxG = -1
	}
	q.count--
	rec = q.entries[e].rec
	q.entries[e].next = q.free
	q.free = e
	return rec, q.minF, g, true
}

// peakEntries returns the most entries in use at once.
func (q *openQueue) peakEntries() int { return q.peak }

// lowest returns the smallest f queued, or -1.
func (q *openQueue) lowest() int {
	if q.count == 0 {
		return -1
	}
	for q.buckets[q.minF].count == 0 {
		q.minF++
	}
	return q.minF
}
