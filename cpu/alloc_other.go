//go:build !linux

package cpu

// defaultHugeMin is the buffer size from which Linux builds map huge
// pages; other systems always use the Go heap.
const defaultHugeMin = 4 << 20

// hugeMin is defaultHugeMin; tests change it to compare.
var hugeMin int64 = defaultHugeMin

// mapBytes returns nil: only Linux builds map buffers themselves.
func mapBytes(int) ([]byte, func()) { return nil, nil }
