package gemm

import "golang.org/x/sys/unix"

// hugePage is the size of a transparent huge page on x86-64 and arm64 Linux.
const hugePage = 2 << 20

// allocLarge maps at least n bytes of anonymous memory, asks the kernel to
// back it with transparent huge pages, and returns it with its release
// function. If mapping fails it falls back to the Go heap.
func allocLarge(n int) (mem []byte, free func()) {
	size := (n + hugePage - 1) / hugePage * hugePage
	m, err := unix.Mmap(-1, 0, size+hugePage, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_ANON|unix.MAP_PRIVATE)
	if err != nil {
		return make([]byte, n), func() {}
	}
	off := 0
	if mis := int(uintptrOf(m) % hugePage); mis != 0 {
		off = hugePage - mis
	}
	mem = m[off : off+size]
	_ = unix.Madvise(mem, unix.MADV_HUGEPAGE) // advice only: without THP, 4 KiB pages
	return mem, func() { _ = unix.Munmap(m) }
}
