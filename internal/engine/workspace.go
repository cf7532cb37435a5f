package engine

// Workspace is the big memory of a search: the transposition table slab,
// the open-list slab and the path bitset, sized once from a byte budget.
// It may be reused by consecutive searches, never by two at once.
type Workspace struct {
	tt     *table
	pool   *entryPool
	queues [2]*openQueue
	onPath []uint64
}

// NewWorkspace allocates a workspace within memory bytes. The slabs are
// allocated, not touched: pages are cleared as searches reach them.
func NewWorkspace(memory int64) *Workspace {
	if memory <= 0 {
		memory = DefaultMemory
	}
	slots := tableSlots(memory)
	t := newTable(slots)
	pool := newEntryPool(t.limit * entriesPerState / 2)
	return &Workspace{tt: t, pool: pool, queues: [2]*openQueue{newOpenQueue(pool), newOpenQueue(pool)},
		onPath: make([]uint64, (slots+63)/64)}
}

// Bytes returns the memory the workspace holds.
func (w *Workspace) Bytes() int64 {
	return int64(len(w.tt.slots))*recordBytes + int64(len(w.pool.entries))*openEntryBytes +
		int64(len(w.tt.epochs))*4 + int64(len(w.onPath))*8
}

// reset prepares the workspace for a new search. The path bitset is left
// clean by the search before (see searcher.finish).
func (w *Workspace) reset() {
	w.tt.reset()
	w.pool.reset()
	w.queues[0].reset()
	w.queues[1].reset()
}
