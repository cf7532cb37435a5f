package engine

import (
	"syscall"
	"unsafe"
)

// mapBytes maps size bytes of anonymous memory, reserved but not committed
// (MAP_NORESERVE: a budget that is never filled is not charged either).
func mapBytes(size int) (mapping, bool) {
	b, err := syscall.Mmap(-1, 0, size, syscall.PROT_READ|syscall.PROT_WRITE,
		syscall.MAP_PRIVATE|syscall.MAP_ANONYMOUS|syscall.MAP_NORESERVE)
	return b, err == nil
}

// unmapBytes unmaps a mapping made by mapBytes.
func unmapBytes(m mapping) { _ = syscall.Munmap(m) }

// releaseBytes gives the whole pages of b back to the system and clears
// the parts of pages at its ends; b reads as zero afterwards.
func releaseBytes(b []byte) bool {
	page := uintptr(syscall.Getpagesize())
	start := uintptr(unsafe.Pointer(unsafe.SliceData(b)))
	lo := int((start+page-1)&^(page-1) - start)
	hi := int((start+uintptr(len(b)))&^(page-1) - start)
	if hi > lo {
		if syscall.Madvise(b[lo:hi], syscall.MADV_DONTNEED) != nil {
			return false
		}
		clear(b[:lo])
		clear(b[hi:])
		return true
	}
	clear(b)
	return true
}
