package engine

// Workspace is the big memory of a search: the transposition table, the
// open-list slab and the path bitset, bounded by a byte budget. Its memory
// is taken as a search stores states and given back when the next search
// starts or the workspace is released, so a budget far above what a level
// needs costs nothing. It may be reused by consecutive searches, never by
// two at once.
type Workspace struct {
	tt     *table
	pool   *entryPool
	queues [2]*openQueue
	onPath []uint64
}

// NewWorkspace returns a workspace within memory bytes (0: DefaultMemory).
// Release gives its memory back at once; a workspace dropped without
// Release gives it back when the garbage collector finds it unreachable.
func NewWorkspace(memory int64) *Workspace {
	if memory <= 0 {
		memory = DefaultMemory
	}
	records := tableRecords(memory)
	t := newTable(records)
	pool := newEntryPool(records * entriesPerState / 2)
	return &Workspace{tt: t, pool: pool, queues: [2]*openQueue{newOpenQueue(pool), newOpenQueue(pool)},
		onPath: make([]uint64, (records+63)/64)}
}

// Bytes returns the most memory the workspace takes.
func (w *Workspace) Bytes() int64 {
	return int64(len(w.tt.slots))*recordBytes + int64(w.tt.maxIndex)*indexEntryBytes +
		int64(len(w.pool.entries))*openEntryBytes + int64(len(w.onPath))*8
}

// Release gives the workspace's memory back to the system. The workspace
// must not be used afterwards.
func (w *Workspace) Release() {
	w.tt.release()
	w.pool.release()
	w.onPath = nil
}

// reset prepares the workspace for a new search, giving back the memory
// the search before took. The path bitset is left clean by the search
// before (see searcher.finish).
func (w *Workspace) reset() {
	w.tt.trim()
	w.pool.reset()
	w.queues[0].reset()
	w.queues[1].reset()
}
