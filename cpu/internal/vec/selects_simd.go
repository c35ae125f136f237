//go:build (amd64 || arm64) && !purego

package vec

// setSelects fills k's comparison and selection kernels from assembly
// kernels that handle the first len&^15 elements, finishing the rest with
// the pure-Go kernels.
func setSelects(k *kernels, vv [numCmp]func(dst []uint8, a, b []float32), vs [numCmp]func(dst []uint8, a []float32, s float32),
	sel func(dst []float32, c []uint8, a, b []float32), selScalar, selScalarInv func(dst []float32, c []uint8, a []float32, s float32)) {
	for op := range numCmp {
		f, fs := vv[op], vs[op]
		k.cmp[op] = func(dst []uint8, x, y []float32) { f(dst, x, y); goCmp(op, dst, x, y, len(x)&^15) }
		k.cmpScalar[op] = func(dst []uint8, x []float32, s float32) {
			fs(dst, x, s)
			for i := len(x) &^ 15; i < len(x); i++ {
				dst[i] = b2u8(op.holds(x[i], s))
			}
		}
	}
	k.sel = func(dst []float32, c []uint8, x, y []float32) { sel(dst, c, x, y); goSel(dst, c, x, y, len(x)&^15) }
	k.selScalar = func(dst []float32, c []uint8, x []float32, s float32) {
		selScalar(dst, c, x, s)
		goSelScalar(dst, c, x, s, false, len(x)&^15)
	}
	k.selScalarInv = func(dst []float32, c []uint8, x []float32, s float32) {
		selScalarInv(dst, c, x, s)
		goSelScalar(dst, c, x, s, true, len(x)&^15)
	}
}
