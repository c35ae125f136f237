//go:build !linux

package cpu

// hugeMin is the buffer size from which Linux builds map huge pages; other
// systems always use the Go heap.
const hugeMin = 4 << 20

// mapBytes returns nil: only Linux builds map buffers themselves.
func mapBytes(int) ([]byte, func()) { return nil, nil }
