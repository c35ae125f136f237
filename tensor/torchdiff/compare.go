package torchdiff

import (
	"fmt"
	"math"
	"slices"
	"strings"
)

// Compare checks Shaderflow's result of p against PyTorch's and returns one
// line per disagreement (none when they agree). Values are compared with
// PyTorch's float32 ones: NaN must meet NaN and an infinity one of the same
// sign; a finite value may differ by
//
//	rtol·(|torch32| + |typical|/4) + 16·|torch32 − torch64|
//
// where rtol grows with the program's length and its coarsest storage type,
// |typical| is the largest finite magnitude of the array in float64, at least
// 0.1 (so that a result of cancellation, such as a gradient that is zero
// in exact arithmetic, is judged against the O(1) inputs), and the last
// term is the program's own sensitivity to float32 rounding. Elements where
// PyTorch's float32 and float64 runs disagree on NaN or infinity are
// ill-conditioned and skipped. Gradients are not compared when PyTorch found
// the gradient of a max, min, maximum or minimum to be a convention (a tie,
// a NaN operand or a NaN incoming gradient; see replay.py).
func Compare(p *Program, sf *Result, tr *TorchResult) []string {
	return compare(p, sf, tr, 0.1)
}

// compare is Compare with the floor of |typical| given.
func compare(p *Program, sf *Result, tr *TorchResult, floor float64) []string {
	if tr.Error != "" {
		return []string{"PyTorch failed:\n" + tr.Error}
	}
	if !slices.Equal(sf.Shape, tr.Shape) {
		return []string{fmt.Sprintf("output shape: Shaderflow %v, PyTorch %v", sf.Shape, tr.Shape)}
	}
	rtol := Rtol(p)
	var bad []string
	bad = append(bad, compareArray("output", sf.Out, tr.Out32, tr.Out64, rtol, floor)...)
	if tr.Tie {
		return bad
	}
	for i := range sf.Grads {
		bad = append(bad, compareArray(fmt.Sprintf("gradient of input %d", i), sf.Grads[i], tr.Grad32[i], tr.Grad64[i], rtol, floor)...)
	}
	return bad
}

// Rtol is the relative part of the tolerance of p: a few float32 rounding
// steps (or float16 or bfloat16 ones when p rounds through them) per
// operation, with room for GPU transcendental functions that are a few ulp
// off.
func Rtol(p *Program) float64 {
	ops := 0
	for _, s := range p.Steps {
		if s.Op != "input" {
			ops++
		}
	}
	return math.Max(2e-5, 4*p.Precision) * float64(2+ops)
}

// class is NaN, +Inf, -Inf or finite.
func class(v float64) string {
	switch {
	case math.IsNaN(v):
		return "NaN"
	case math.IsInf(v, 1):
		return "+Inf"
	case math.IsInf(v, -1):
		return "-Inf"
	}
	return "finite"
}

// compareArray compares one array and describes its worst disagreements.
func compareArray(what string, got, t32, t64 []float64, rtol, floor float64) []string {
	if len(got) != len(t32) || len(got) != len(t64) {
		return []string{fmt.Sprintf("%s: Shaderflow has %d elements, PyTorch %d", what, len(got), len(t32))}
	}
	typical := floor
	for _, v := range t64 {
		if !math.IsNaN(v) && !math.IsInf(v, 0) {
			typical = math.Max(typical, math.Abs(v))
		}
	}
	var lines []string
	n := 0
	for i := range got {
		c32 := class(t32[i])
		if c32 != class(t64[i]) {
			continue
		}
		tol := rtol*(math.Abs(t32[i])+typical/4) + 16*math.Abs(t32[i]-t64[i])
		cg := class(got[i])
		if cg == c32 && (c32 != "finite" || math.Abs(got[i]-t32[i]) <= tol) {
			continue
		}
		n++
		if len(lines) < 4 {
			lines = append(lines, fmt.Sprintf("  [%d] Shaderflow %.9g, PyTorch float32 %.9g, float64 %.9g, tolerance %.3g", i, got[i], t32[i], t64[i], tol))
		}
	}
	if n == 0 {
		return nil
	}
	return []string{fmt.Sprintf("%s: %d of %d elements differ:\n%s", what, n, len(got), strings.Join(lines, "\n"))}
}
