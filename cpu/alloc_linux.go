package cpu

import "golang.org/x/sys/unix"

// hugePage is the size of a transparent huge page on x86-64 and arm64 Linux.
const hugePage = 2 << 20

// hugeMin is the buffer size from which the backend maps memory with
// transparent huge pages rather than taking it from the Go heap: streamed
// operands then cost a TLB entry per 2 MiB instead of per 4 KiB. On the
// development machine (transparent huge pages in "madvise" mode) this made
// tanh over 10M floats 32% and an add 20% cheaper in CPU time.
const defaultHugeMin = 4 << 20

// hugeMin is defaultHugeMin; tests change it to compare.
var hugeMin int64 = defaultHugeMin

// mapBytes maps n zeroed bytes (n >= hugeMin) aligned to a huge page,
// asks the kernel to back them with huge pages, and returns them with the
// function that unmaps them; it returns nil when mapping fails.
func mapBytes(n int) (data []byte, unmap func()) {
	size := (n + hugePage - 1) / hugePage * hugePage
	m, err := unix.Mmap(-1, 0, size+hugePage, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_ANON|unix.MAP_PRIVATE)
	if err != nil {
		return nil, nil
	}
	off := 0
	if mis := int(uintptrOf(m) % hugePage); mis != 0 {
		off = hugePage - mis
	}
	data = m[off : off+n : off+n]
	_ = unix.Madvise(m[off:off+size], unix.MADV_HUGEPAGE) // advice only: without THP, 4 KiB pages
	return data, func() { _ = unix.Munmap(m) }
}
