package engine

// Workspace is the big memory of a search: the transposition table, the
// open-list slab and the path bitset, bounded by a byte budget. Its memory
// is taken as a search stores states and given back when the next search
// starts or the workspace is released, so a budget far above what a level
// needs costs nothing. It may be reused by consecutive Solves, never by two
// at once.
type Workspace struct {
	tt     *table
	pool   *entryPool
	queues [2]*openQueue
	onPath []uint64
	memory int64
	parts  []*Workspace // for searches that run in turns (split)
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
		onPath: make([]uint64, (records+63)/64), memory: memory}
}

// split returns n workspaces that share w's memory budget, for n searches
// that run in turns. They are made on first use and kept with w, so a
// workspace reused by many Solves maps them once.
func (w *Workspace) split(n int) []*Workspace {
	if len(w.parts) != n {
		for _, p := range w.parts {
			p.Release()
		}
		w.parts = make([]*Workspace, n)
		for i := range w.parts {
			w.parts[i] = NewWorkspace(max(1, w.memory/int64(n)))
		}
	}
	w.reset() // what w's own table took goes back before the parts fill
	return w.parts
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
	for _, p := range w.parts {
		p.Release()
	}
	w.parts = nil
}

// reset prepares the workspace for a new search, giving back the memory
// the searches before took, in it and in its parts. The path bitset is left clean by the search
// before (see searcher.finish).
func (w *Workspace) reset() {
	w.tt.trim()
	w.pool.reset()
	w.queues[0].reset()
	w.queues[1].reset()
	for _, p := range w.parts {
		p.reset()
	}
}
