//go:build !linux

package gemm

// allocLarge returns n bytes from the Go heap: huge-page advice is
// Linux-only.
func allocLarge(n int) (mem []byte, free func()) { return make([]byte, n), func() {} }
