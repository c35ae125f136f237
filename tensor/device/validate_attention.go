package device

import (
	"fmt"
	"math"
)

// Validate checks the kernel (see the package's validation rules).
func (k *AttentionKernel) Validate() error {
	const kn = "attention"
	if k == nil {
		return fmt.Errorf("device: %s: nil kernel", kn)
	}
	batch, l, ev, err := checkAttentionOperands(kn, k.Q, k.K, k.V, k.Scale)
	if err != nil {
		return err
	}
	if err := checkAttentionResult(kn, "Out", k.Out, false, batch, l, ev); err != nil {
		return err
	}
	if !k.Out.IsDenseRows() {
		return fmt.Errorf("device: %s: Out (shape %v, strides %v) is not a dense layout with its rows contiguous", kn, k.Out.Shape, k.Out.Strides)
	}
	return checkAttentionResult(kn, "LSE", k.LSE, true, batch, l, -1)
}

// Validate checks the kernel (see the package's validation rules).
func (k *AttentionBackwardKernel) Validate() error {
	const kn = "attention backward"
	if k == nil {
		return fmt.Errorf("device: %s: nil kernel", kn)
	}
	batch, l, ev, err := checkAttentionOperands(kn, k.Q, k.K, k.V, k.Scale)
	if err != nil {
		return err
	}
	if err := checkAttentionResult(kn, "Out", k.Out, false, batch, l, ev); err != nil {
		return err
	}
	if err := checkAttentionResult(kn, "LSE", k.LSE, false, batch, l, -1); err != nil {
		return err
	}
	if err := checkAttentionResult(kn, "GradOut", k.GradOut, false, batch, l, ev); err != nil {
		return err
	}
	r := len(k.Q.Shape)
	if err := checkAttentionResult(kn, "GradQ", k.GradQ, false, batch, l, k.Q.Shape[r-1]); err != nil {
		return err
	}
	if err := checkAttentionResult(kn, "GradK", k.GradK, false, batch, k.K.Shape[r-2], k.K.Shape[r-1]); err != nil {
		return err
	}
	if err := checkAttentionResult(kn, "GradV", k.GradV, false, batch, k.V.Shape[r-2], ev); err != nil {
		return err
	}
	for _, g := range []struct {
		what string
		v    View
	}{{"GradQ", k.GradQ}, {"GradK", k.GradK}, {"GradV", k.GradV}} {
		if !g.v.HasDistinctRows() {
			return fmt.Errorf("device: %s: %s (shape %v, strides %v) does not have contiguous, distinct rows", kn, g.what, g.v.Shape, g.v.Strides)
		}
	}
	return nil
}

// checkAttentionOperands checks Q [B..., L, E], K [B..., S, E] and V
// [B..., S, Ev] (Float32, S >= 1) and a finite scale, and returns B..., L
// and Ev.
func checkAttentionOperands(kernel string, q, k, v View, scale float64) (batch []int, l, ev int, err error) {
	if err := checkAttentionOperand(kernel, "Q", q); err != nil {
		return nil, 0, 0, err
	}
	if err := checkAttentionOperand(kernel, "K", k); err != nil {
		return nil, 0, 0, err
	}
	if err := checkAttentionOperand(kernel, "V", v); err != nil {
		return nil, 0, 0, err
	}
	r := len(q.Shape)
	if len(k.Shape) != r || len(v.Shape) != r {
		return nil, 0, 0, fmt.Errorf("device: %s: Q %v, K %v and V %v must have one rank, at least 2", kernel, q.Shape, k.Shape, v.Shape)
	}
	batch = q.Shape[:r-2]
	if !hasShape(k.Shape, batch, k.Shape[r-2], q.Shape[r-1]) || !hasShape(v.Shape, batch, k.Shape[r-2], v.Shape[r-1]) {
		return nil, 0, 0, fmt.Errorf("device: %s: Q %v, K %v and V %v must be [B..., L, E], [B..., S, E] and [B..., S, Ev]", kernel, q.Shape, k.Shape, v.Shape)
	}
	if k.Shape[r-2] == 0 {
		return nil, 0, 0, fmt.Errorf("device: %s: K %v has no keys", kernel, k.Shape)
	}
	if math.IsNaN(scale) || math.IsInf(scale, 0) {
		return nil, 0, 0, fmt.Errorf("device: %s: Scale %v is not finite", kernel, scale)
	}
	return batch, q.Shape[r-2], v.Shape[r-1], nil
}

// checkAttentionOperand checks a Float32 operand of rank at least 2.
func checkAttentionOperand(kernel, what string, v View) error {
	if err := checkView(kernel, what, v); err != nil {
		return err
	}
	if err := checkDType(kernel, what, v, Float32); err != nil {
		return err
	}
	if len(v.Shape) < 2 {
		return fmt.Errorf("device: %s: %s %v must have rank at least 2", kernel, what, v.Shape)
	}
	return nil
}

// checkAttentionResult checks a Float32 view of shape batch ++ [a, b]
// (batch ++ [a] when b < 0), contiguous when contiguous is set.
func checkAttentionResult(kernel, what string, v View, contiguous bool, batch []int, a, b int) error {
	if err := checkView(kernel, what, v); err != nil {
		return err
	}
	if !hasShape(v.Shape, batch, a, b) {
		want := append(append([]int(nil), batch...), a)
		if b >= 0 {
			want = append(want, b)
		}
		return fmt.Errorf("device: %s: %s has shape %v, want %v", kernel, what, v.Shape, want)
	}
	if contiguous && !v.IsContiguous() {
		return fmt.Errorf("device: %s: %s (shape %v, strides %v) is not contiguous", kernel, what, v.Shape, v.Strides)
	}
	return checkDType(kernel, what, v, Float32)
}

// hasShape reports whether shape is batch ++ [a, b] (batch ++ [a] when
// b < 0).
func hasShape(shape, batch []int, a, b int) bool {
	tail := 2
	if b < 0 {
		tail = 1
	}
	if len(shape) != len(batch)+tail || shape[len(batch)] != a || tail == 2 && shape[len(batch)+1] != b {
		return false
	}
	for i, n := range batch {
		if shape[i] != n {
			return false
		}
	}
	return true
}
