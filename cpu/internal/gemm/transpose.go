package gemm

import "fmt"

// Transpose writes the cols×rows transpose of the rows×cols matrix src
// (rows lds apart) into dst (rows ldd apart) with the active level's
// register transposes (16×16 at AVX-512, 8×8 at AVX2, 4×4 with NEON).
// Elements are moved, never computed on, so any 4-byte values (int32 bit
// patterns, NaN payloads) arrive unchanged. Sizes that do not fit the
// slices panic with a message naming Transpose.
func Transpose(dst []float32, ldd int, src []float32, lds, rows, cols int) {
	if rows < 0 || cols < 0 || rows > 0 && cols > 0 &&
		((rows > 1 && lds < cols) || (cols > 1 && ldd < rows) || len(src) < (rows-1)*lds+cols || len(dst) < (cols-1)*ldd+rows) {
		panic(fmt.Sprintf("gemm.Transpose: %d×%d from %d floats %d apart into %d floats %d apart", rows, cols, len(src), lds, len(dst), ldd))
	}
	if rows == 0 || cols == 0 {
		return
	}
	implFor(active).pack.transpose(dst, ldd, src, lds, rows, cols)
}
