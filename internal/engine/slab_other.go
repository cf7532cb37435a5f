//go:build !linux

package engine

// Elsewhere than on Linux slabs live on the Go heap.

func mapBytes(int) (mapping, bool) { return nil, false }

func unmapBytes(mapping) {}

func releaseBytes([]byte) bool { return false }
