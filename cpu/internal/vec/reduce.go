package vec

// Reductions. Sums accumulate in float64 (several accumulators), so their
// error is that of rounding the exact sum of the float32 terms to float64 a
// few times: far below float32 precision for any realistic length.

// Sum returns the sum of x, accumulated in float64. Sum of nothing is 0.
func Sum(x []float32) float64 { return current.sum(x) }

// AddWidened adds each element of src, widened to float64, to the element
// of dst at its index: dst[i] += float64(src[i]), each sum rounded once.
// The slices must have one length.
func AddWidened(dst []float64, src []float32) {
	checkLen("AddWidened", "dst, src", len(dst), len(src))
	current.addWidened(dst, src)
}

// Dot returns the sum of a[i]*b[i], accumulated in float64.
func Dot(a, b []float32) float64 {
	checkLen("Dot", "a, b", len(a), len(b))
	return current.dot(a, b)
}

// SumSquares returns the sum of x[i]^2, accumulated in float64.
func SumSquares(x []float32) float64 { return current.dot(x, x) }

// SumSqDiff returns the sum of (x[i]-mean)^2, computed in float64: the
// numerator of the variance.
func SumSqDiff(x []float32, mean float32) float64 { return current.sumSqDiff(x, mean) }

// Max returns the largest element of x, or a NaN if x holds one. When the
// maximum is zero, its sign is either sign present. It panics on an empty
// slice.
func Max(x []float32) float32 {
	checkNonEmpty("Max", len(x))
	return current.max(x)
}

// Min returns the smallest element of x, or a NaN if x holds one. When the
// minimum is zero, its sign is either sign present. It panics on an empty
// slice.
func Min(x []float32) float32 {
	checkNonEmpty("Min", len(x))
	return current.min(x)
}

// ArgMax returns the index of the first largest element of x; a NaN counts
// as larger than everything (the first NaN wins). It panics on an empty slice.
func ArgMax(x []float32) int {
	checkNonEmpty("ArgMax", len(x))
	return current.indexOf(x, current.max(x))
}

// ArgMin returns the index of the first smallest element of x; a NaN counts
// as smaller than everything (the first NaN wins). It panics on an empty
// slice.
func ArgMin(x []float32) int {
	checkNonEmpty("ArgMin", len(x))
	return current.indexOf(x, current.min(x))
}

// ArgMaxInto folds the row x of a reduction into the running maxima best
// and their rows idx: where x[i] is greater than best[i], or is NaN where
// best[i] is a number, best[i] = x[i] and idx[i] = row. Ties keep best, so
// folding rows in order leaves each column's first maximum (first NaN) and
// its row, as ArgMax does along a row. The slices must have equal lengths.
func ArgMaxInto(best []float32, idx []int32, x []float32, row int32) {
	checkArgLens("ArgMaxInto", best, idx, x)
	current.argMaxInto(best, idx, x, row)
}

// PoolMaxInto folds the taps x of max-pooling windows into the running
// maxima best and their taps idx with max pooling's rule: where x[i] is
// greater than best[i], or is NaN, best[i] = x[i] and idx[i] = tap. Folding
// a window's taps in order leaves the last NaN, else the first maximum, and
// its tap, as PyTorch's max_pool2d. The slices must have equal lengths.
func PoolMaxInto(best []float32, idx []int32, x []float32, tap int32) {
	checkArgLens("PoolMaxInto", best, idx, x)
	current.poolMaxInto(best, idx, x, tap)
}

// ArgMinInto is ArgMaxInto for minima.
func ArgMinInto(best []float32, idx []int32, x []float32, row int32) {
	checkArgLens("ArgMinInto", best, idx, x)
	current.argMinInto(best, idx, x, row)
}

func checkArgLens(name string, best []float32, idx []int32, x []float32) {
	if len(best) != len(x) || len(idx) != len(x) {
		checkLen(name, "best, idx, x", len(best), len(idx), len(x))
	}
}
