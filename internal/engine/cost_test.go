package engine

import (
	"runtime"
	"testing"

	"github.com/sokod/sokod/sokoban"
)

// heapInUse is the live heap after a collection.
func heapInUse() int64 {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return int64(ms.HeapAlloc)
}

// TestSolveBytes compares the estimate with what the analysis, a
// heuristic of the board's shape and a searcher hold: never less, and not
// wildly more.
func TestSolveBytes(t *testing.T) {
	small := loadCollection(t, "testdata/small.xsb")[0]
	large, err := sokoban.Parse(rowsLevel(20, 25, 64))
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range []*sokoban.Level{small, large} {
		before := heapInUse()
		b := mustAnalyze(t, l)
		h := plainHeuristic(b, RuleMatching)
		if b.RegionDist != nil {
			h = testHeuristic(b, RuleMatching)
		}
		s := newSearcher(b, h, Options{}, NewWorkspace(1<<16))
		held := heapInUse() - before
		runtime.KeepAlive(s)
		est := SolveBytes(l)
		t.Logf("%d squares, %d goals: estimate %d KiB, held %d KiB", b.Squares, len(b.Goals), est>>10, held>>10)
		if est < held || est > 3*held+fixedSearchBytes {
			t.Errorf("%d squares, %d goals: estimate %d KiB for %d KiB held", b.Squares, len(b.Goals), est>>10, held>>10)
		}
	}
}
