package vec

// ExpSubSum sets dst[i] = exp(src[i]-m), with src[i]-m carried exactly as
// in SoftmaxRow, and returns the sum of the dst values accumulated in
// float64. It is SoftmaxRow's exponential step for callers that scale or
// combine the row themselves (an attention kernel keeps the sum for the
// row's log-sum-exp). A NaN in src or m, or an infinite m, makes the
// affected terms, and so the sum, NaN. dst may be src.
func ExpSubSum(dst, src []float32, m float32) float64 {
	checkLen("ExpSubSum", "dst, src", len(dst), len(src))
	if len(src) == 0 {
		return 0
	}
	return current.expSub(dst, src, m)
}
