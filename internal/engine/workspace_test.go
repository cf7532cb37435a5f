package engine

import (
	"context"
	"math/rand/v2"
	"os"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/sokod/sokod/sokoban"
)

// TestTableGrowth fills a table through every growth of its index: each
// record keeps the id it was given, is found by its key, and the table is
// full at its record limit.
func TestTableGrowth(t *testing.T) {
	const records = 100_000
	tt := newTable(records)
	defer tt.release()
	rng := rand.New(rand.NewPCG(1, 2))
	keys := make([]uint64, 0, records)
	seen := map[uint64]bool{}
	for !tt.full() {
		key := hashKey(rng.Uint64())
		if seen[key] {
			continue
		}
		seen[key] = true
		id, found := tt.find(key)
		if found || id != len(keys) {
			t.Fatalf("new key %d: find = %d, %v; want %d, false", len(keys), id, found, len(keys))
		}
		tt.insert(id, key, uint32(id)-1, uint16(id), uint16(id>>16), uint8(id&3))
		keys = append(keys, key)
	}
	if len(keys) != records {
		t.Fatalf("full after %d records, want %d", len(keys), records)
	}
	if len(tt.index) != tt.maxIndex {
		t.Errorf("index has %d entries when full, want the largest, %d", len(tt.index), tt.maxIndex)
	}
	for id, key := range keys {
		got, found := tt.find(key)
		if !found || got != id {
			t.Fatalf("key of record %d: find = %d, %v", id, got, found)
		}
		r := tt.slots[id]
		if r.parent != uint32(id)-1 || r.g != uint16(id) || r.from != uint16(id>>16) || r.dir() != uint8(id&3) {
			t.Fatalf("record %d holds %+v", id, r)
		}
	}
	// A find that misses and an insert of another key: insert finds its
	// place again.
	a, b := hashKey(rng.Uint64()), hashKey(rng.Uint64())
	tt.trim()
	tt.find(a)
	id, _ := tt.find(b)
	tt.insert(id, a, noRecord, 0, 0, 0)
	if got, found := tt.find(a); !found || got != id {
		t.Errorf("after a mismatched insert: find = %d, %v; want %d, true", got, found, id)
	}
	if _, found := tt.find(b); found {
		t.Error("a key never inserted is found")
	}
}

// residentBytes is the process's resident memory, from /proc.
func residentBytes(t *testing.T) int64 {
	t.Helper()
	b, err := os.ReadFile("/proc/self/statm")
	if err != nil {
		t.Skipf("no /proc/self/statm: %v", err)
	}
	f := strings.Fields(string(b))
	pages, err := strconv.ParseInt(f[1], 10, 64)
	if err != nil {
		t.Fatal(err)
	}
	return pages * int64(os.Getpagesize())
}

// TestWorkspaceTakesMemoryAsNeeded solves a small level several times with
// a budget of 1 GiB: the process must not grow by anything like the
// budget. (A slab allocated whole on the Go heap is zeroed when the
// allocator reuses freed memory for it, so the second solve committed the
// whole gigabyte.)
func TestWorkspaceTakesMemoryAsNeeded(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("slabs are mapped on Linux only")
	}
	l, err := sokoban.Parse(busyLevel)
	if err != nil {
		t.Fatal(err)
	}
	b := mustAnalyze(t, l)
	h := testHeuristic(b, RuleMatching)
	before := residentBytes(t)
	for range 4 {
		r, err := Solve(context.Background(), b, Options{Objective: ObjectivePushes, Heuristic: h, Budget: Budget{Memory: 1 << 30}})
		if err != nil {
			t.Fatal(err)
		}
		if r.Stats.MemoryUsed > 16<<20 {
			t.Fatalf("the search used %d bytes; this test needs a small one", r.Stats.MemoryUsed)
		}
	}
	if grown := residentBytes(t) - before; grown > 64<<20 {
		t.Errorf("four small solves with a 1 GiB budget grew the process by %d MiB", grown>>20)
	}
}

// TestSlabGivesMemoryBack fills a mapped slab and trims it: the pages
// leave the process and read as zero.
func TestSlabGivesMemoryBack(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("slabs are mapped on Linux only")
	}
	const n = 64 << 20 / 8
	s, m := newSlab[uint64](n)
	defer m.release()
	if m == nil {
		t.Fatal("a 64 MiB slab is not mapped")
	}
	before := residentBytes(t)
	for i := range s {
		s[i] = uint64(i) + 1
	}
	filled := residentBytes(t)
	trimSlab(s, m, n)
	trimmed := residentBytes(t)
	if filled-before < 48<<20 || filled-trimmed < 48<<20 {
		t.Errorf("resident memory %d MiB, filled %d MiB, trimmed %d MiB: want +64 MiB then back", before>>20, filled>>20, trimmed>>20)
	}
	for i, v := range s {
		if v != 0 {
			t.Fatalf("slab[%d] = %d after trim, want 0", i, v)
		}
	}
}
