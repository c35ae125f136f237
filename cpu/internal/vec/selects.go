package vec

// Comparisons and selections of fused programs: a comparison writes one
// byte per element, 1 where it holds and 0 elsewhere; a selection picks,
// element by element, by such bytes (any non-zero byte selects the first
// operand). Slices passed together must have equal lengths (they panic
// otherwise).

// CmpOp names a float32 comparison. NaN compares unordered and unequal:
// only CmpNe holds when an operand is NaN (device.Compare's semantics).
type CmpOp uint8

// The comparisons.
const (
	CmpEq CmpOp = iota // ==
	CmpNe              // !=
	CmpLt              // <
	CmpLe              // <=
	CmpGt              // >
	CmpGe              // >=
	numCmp
)

// holds reports whether a op b.
func (op CmpOp) holds(a, b float32) bool {
	switch op {
	case CmpEq:
		return a == b
	case CmpNe:
		return a != b
	case CmpLt:
		return a < b
	case CmpLe:
		return a <= b
	case CmpGt:
		return a > b
	}
	return a >= b
}

// Swap returns the comparison that holds for (b, a) exactly when op holds
// for (a, b).
func (op CmpOp) Swap() CmpOp {
	return [numCmp]CmpOp{CmpEq, CmpNe, CmpGt, CmpGe, CmpLt, CmpLe}[op]
}

func b2u8(b bool) uint8 {
	if b {
		return 1
	}
	return 0
}

// Compare sets dst[i] to 1 where a[i] op b[i] holds, else 0.
func Compare(op CmpOp, dst []uint8, a, b []float32) {
	checkLen("Compare", "dst, a, b", len(dst), len(a), len(b))
	current.cmp[op](dst, a, b)
}

// CompareScalar sets dst[i] to 1 where a[i] op s holds, else 0.
func CompareScalar(op CmpOp, dst []uint8, a []float32, s float32) {
	checkLen("CompareScalar", "dst, a", len(dst), len(a))
	current.cmpScalar[op](dst, a, s)
}

// Select sets dst[i] = a[i] where c[i] != 0, else b[i]. Values are copied
// as bits, so int32 data may be passed through float32 views of it.
func Select(dst []float32, c []uint8, a, b []float32) {
	checkLen("Select", "dst, c, a, b", len(dst), len(c), len(a), len(b))
	current.sel(dst, c, a, b)
}

// SelectElse sets dst[i] = a[i] where c[i] != 0, else s.
func SelectElse(dst []float32, c []uint8, a []float32, s float32) {
	checkLen("SelectElse", "dst, c, a", len(dst), len(c), len(a))
	current.selScalar(dst, c, a, s)
}

// SelectThen sets dst[i] = s where c[i] != 0, else b[i].
func SelectThen(dst []float32, c []uint8, s float32, b []float32) {
	checkLen("SelectThen", "dst, c, b", len(dst), len(c), len(b))
	current.selScalarInv(dst, c, b, s)
}

// goSelects fills k's comparison and selection kernels with pure Go.
func goSelects(k *kernels) {
	for op := range numCmp {
		k.cmp[op] = func(dst []uint8, a, b []float32) { goCmp(op, dst, a, b, 0) }
		k.cmpScalar[op] = func(dst []uint8, a []float32, s float32) {
			for i, v := range a {
				dst[i] = b2u8(op.holds(v, s))
			}
		}
	}
	k.sel = func(dst []float32, c []uint8, a, b []float32) { goSel(dst, c, a, b, 0) }
	k.selScalar = func(dst []float32, c []uint8, a []float32, s float32) { goSelScalar(dst, c, a, s, false, 0) }
	k.selScalarInv = func(dst []float32, c []uint8, a []float32, s float32) { goSelScalar(dst, c, a, s, true, 0) }
}

// goCmp is the comparison kernel from element from on.
func goCmp(op CmpOp, dst []uint8, a, b []float32, from int) {
	for i := from; i < len(dst); i++ {
		dst[i] = b2u8(op.holds(a[i], b[i]))
	}
}

// goSel is the selection kernel from element from on.
func goSel(dst []float32, c []uint8, a, b []float32, from int) {
	for i := from; i < len(dst); i++ {
		if c[i] != 0 {
			dst[i] = a[i]
		} else {
			dst[i] = b[i]
		}
	}
}

// goSelScalar sets dst[i] = c[i] != 0 ? a[i] : s (inv: c[i] != 0 ? s :
// a[i]) from element from on.
func goSelScalar(dst []float32, c []uint8, a []float32, s float32, inv bool, from int) {
	for i := from; i < len(dst); i++ {
		if (c[i] != 0) != inv {
			dst[i] = a[i]
		} else {
			dst[i] = s
		}
	}
}
