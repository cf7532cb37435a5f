package engine

import (
	"runtime"
	"unsafe"
)

// A slab is a large array of pointer-free values that a search fills from
// the front: the transposition table's records, its index, the open list's
// entries. Where the system allows (slab_linux.go) a slab's memory is mapped
// outside the Go heap: address space is reserved for the whole budget, a
// page is committed only when a search first writes it, and the pages go
// back to the system as soon as the slab is freed or trimmed. The Go heap
// could do neither: its allocator zeroes a reused span up front, which
// commits the whole budget, and it returns freed memory to the system only
// slowly.

// minMappedBytes is the smallest slab worth its own mapping; smaller ones
// live on the Go heap.
const minMappedBytes = 64 << 10

// mapping is the memory behind a mapped slab, nil for a slab on the Go heap.
type mapping []byte

// newSlab returns a zeroed slab of n values and its mapping.
func newSlab[T any](n int) ([]T, mapping) {
	var zero T
	size := int(unsafe.Sizeof(zero)) * n
	if size < minMappedBytes {
		return make([]T, n), nil
	}
	m, ok := mapBytes(size)
	if !ok {
		return make([]T, n), nil
	}
	return unsafe.Slice((*T)(unsafe.Pointer(unsafe.SliceData(m))), n), m
}

// release unmaps the memory *m names, once: *m is nil afterwards. The slab
// must not be used afterwards.
func (m *mapping) release() {
	if *m != nil {
		unmapBytes(*m)
		*m = nil
	}
}

// replace releases *m and makes it name n.
func (m *mapping) replace(n mapping) {
	m.release()
	*m = n
}

// ownSlab makes the garbage collector release m's memory, if it has not
// been released before, once owner is unreachable. m must be reachable
// from owner only, and must not reach it.
func ownSlab[T any](owner *T, m *mapping) {
	runtime.AddCleanup(owner, (*mapping).release, m)
}

// trim gives back the first n bytes of the mapping, which read as zero
// afterwards; the slab stays usable. It reports false for a slab on the
// Go heap, or when the system refused, and the caller clears instead.
func (m mapping) trim(n int) bool {
	return m != nil && releaseBytes(m[:min(n, len(m))])
}

// trimSlab gives back, or clears, the first n values of slab s.
func trimSlab[T any](s []T, m mapping, n int) {
	n = min(n, len(s))
	var zero T
	if !m.trim(int(unsafe.Sizeof(zero)) * n) {
		clear(s[:n])
	}
}
