package engine

// openQueue is an open list: a bucket queue on integer f with, inside each
// f bucket, one LIFO list per g so that ties go to the larger g (the deepest
// state, which also makes a child with its parent's f come out next: the
// depth-first extension). Entries come from an entryPool, one slab with a
// free list that several queues may share, so pushing and popping allocate
// nothing; only the first use of a new f or g value may grow the small
// bucket index.
//
// An entry names a record and the g it was queued with. A record whose g has
// since improved is queued again; the older entry is then stale and skipped
// when popped (lazy deletion).
type openQueue struct {
	pool    *entryPool
	buckets []fBucket
	minF    int
	count   int // live entries, stale ones included
	rover   int // the bucket popEscape took from last
}

// entryPool is the slab of open-list entries. Fresh entries are taken from
// the front, so the slab's memory is committed as the lists grow (see
// newSlab).
type entryPool struct {
	entries []openEntry
	mem     *mapping
	free    uint32 // head of the free list, noRecord when empty
	fresh   uint32 // entries[fresh:] were never used
	used    int
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

func newEntryPool(capacity int) *entryPool {
	p := &entryPool{free: noRecord, mem: new(mapping)}
	p.entries, *p.mem = newSlab[openEntry](capacity)
	ownSlab(p, p.mem)
	return p
}

// reset frees every entry and gives back the memory they took.
func (p *entryPool) reset() {
	trimSlab(p.entries, *p.mem, int(p.fresh))
	p.free, p.fresh, p.used, p.peak = noRecord, 0, 0, 0
}

// release gives the slab's memory back; the pool must not be used again.
func (p *entryPool) release() {
	p.mem.release()
	p.entries = nil
}

// get takes an entry; false when the slab is full.
func (p *entryPool) get() (uint32, bool) {
	var e uint32
	switch {
	case p.free != noRecord:
		e = p.free
		p.free = p.entries[e].next
	case int(p.fresh) < len(p.entries):
		e = p.fresh
		p.fresh++
	default:
		return 0, false
	}
	p.used++
	if p.used > p.peak {
		p.peak = p.used
	}
	return e, true
}

// put returns an entry to the free list.
func (p *entryPool) put(e uint32) {
	p.entries[e].next = p.free
	p.free = e
	p.used--
}

func newOpenQueue(pool *entryPool) *openQueue {
	return &openQueue{pool: pool}
}

// reset empties the queue for a new search, keeping its memory; the pool is
// reset separately.
func (q *openQueue) reset() {
	for i := range q.buckets {
		b := &q.buckets[i]
		for g := range b.heads {
			b.heads[g] = noRecord
		}
		b.maxG, b.count = -1, 0
	}
	q.minF, q.count, q.rover = 0, 0, 0
}

// push queues record rec with priority (f, g). It reports false when the
// entry pool is full.
func (q *openQueue) push(rec uint32, f, g int) bool {
	e, ok := q.pool.get()
	if !ok {
		return false
	}
	for f >= len(q.buckets) {
		q.buckets = append(q.buckets, fBucket{maxG: -1})
	}
	b := &q.buckets[f]
	for g >= len(b.heads) {
		b.heads = append(b.heads, noRecord)
	}
	q.pool.entries[e] = openEntry{rec: rec, next: b.heads[g]}
	b.heads[g] = e
	if g > b.maxG {
		b.maxG = g
	}
	b.count++
	q.count++
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
	rec, g = q.popAt(q.minF)
	return rec, q.minF, g, true
}

// popAt pops from the non-empty bucket f the entry with the largest g,
// most recently pushed first.
func (q *openQueue) popAt(f int) (rec uint32, g int) {
	b := &q.buckets[f]
	for b.heads[b.maxG] == noRecord {
		b.maxG--
	}
	g = b.maxG
	e := b.heads[g]
	b.heads[g] = q.pool.entries[e].next
	b.count--
	if b.count == 0 {
		b.maxG = -1
	}
	q.count--
	rec = q.pool.entries[e].rec
	q.pool.put(e)
	return rec, g
}

// popEscape pops from the first non-empty bucket above both the smallest
// f and the bucket it took from last, and pops as pop does past the
// largest f: a turn through every f queued, one state each time.
func (q *openQueue) popEscape() (rec uint32, f, g int, ok bool) {
	if q.count == 0 {
		return 0, 0, 0, false
	}
	r := max(q.rover, q.lowest()) + 1
	for r < len(q.buckets) && q.buckets[r].count == 0 {
		r++
	}
	if r >= len(q.buckets) {
		q.rover = q.lowest()
		return q.pop()
	}
	q.rover = r
	rec, g = q.popAt(r)
	return rec, r, g, true
}

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
