package conformance

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/shaderflow/shaderflow/tensor"
	"github.com/shaderflow/shaderflow/tensor/conformance/ref"
)

// scanTol bounds a Hillis–Steele scan along axis: each result rounds at most
// ceil(log2 n)+1 times, relative to the running sum of magnitudes.
func scanTol(axis int) func([]*ref.Array, *ref.Array) tol {
	return func(ins []*ref.Array, _ *ref.Array) tol {
		n := ins[0].Shape()[(axis+ins[0].Dim())%ins[0].Dim()]
		steps := math.Ceil(math.Log2(float64(max(n, 1)))) + 1
		abs := ref.Scan(ref.Abs(ins[0]), axis, func(a, x float64) float64 { return a + x })
		return tol{rel: 2e-7 * steps, abs: 1e-7, scale: abs}
	}
}

// prodScanTol bounds a running product of n factors: up to n roundings.
func prodScanTol(axis int) func([]*ref.Array, *ref.Array) tol {
	return func(ins []*ref.Array, _ *ref.Array) tol {
		n := ins[0].Shape()[(axis+ins[0].Dim())%ins[0].Dim()]
		return tol{rel: 2e-7*float64(n) + 1e-6, abs: 1e-30}
	}
}

// reducedTol bounds a reduction-like result over the axes of its input.
func reducedTol(axes []int) func([]*ref.Array, *ref.Array) tol {
	return func(ins []*ref.Array, _ *ref.Array) tol {
		k := math.Sqrt(float64(max(reducedCount(ins[0].Shape(), axes), 1)))
		return tol{rel: 1e-5 * k, abs: 1e-6 * k}
	}
}

func cumsumRef(axis int) func(*ref.Array) *ref.Array {
	return func(a *ref.Array) *ref.Array { return ref.Scan(a, axis, func(s, x float64) float64 { return s + x }) }
}

func cumprodRef(axis int) func(*ref.Array) *ref.Array {
	return func(a *ref.Array) *ref.Array { return ref.Scan(a, axis, func(s, x float64) float64 { return s * x }) }
}

// scanRows are Cumsum, Cumprod, LogSumExp, Std, Norm, Any, All, MaxDim,
// MinDim and ProdKeepDim.
func scanRows() []opRow {
	var rows []opRow
	for _, s := range []struct {
		shape []int
		axis  int
	}{{[]int{7}, 0}, {[]int{1}, 0}, {[]int{3, 129}, 1}, {[]int{2, 3, 5}, -1}, {[]int{9, 4}, 0}, {[]int{2, 0, 3}, 1}} {
		rows = append(rows, unary(fmt.Sprintf("cumsum(%d)", s.axis), in(s.shape...),
			func(t *tensor.Tensor) *tensor.Tensor { return t.Cumsum(s.axis) }, cumsumRef(s.axis)).
			within(scanTol(s.axis)).differentiable())
		if s.shape[0] != 3 {
			rows = append(rows, unary(fmt.Sprintf("cumprod(%d)", s.axis), in(s.shape...).from(uniform(-2, 2)),
				func(t *tensor.Tensor) *tensor.Tensor { return t.Cumprod(s.axis) }, cumprodRef(s.axis)).
				within(prodScanTol(s.axis)).differentiable())
		}
	}
	rows = append(rows,
		// Zeros among the factors: the gradient must stay exact.
		unary("cumprod(1):zeros", in(3, 6).from(ints(-1, 1)), func(t *tensor.Tensor) *tensor.Tensor { return t.Cumprod(1) }, cumprodRef(1)).
			differentiable(),
		unary("cumsum(1):float16", gradIn{shape: []int{3, 40}, g: normal, dt: tensor.Float16, l: contiguous},
			func(t *tensor.Tensor) *tensor.Tensor { return t.Cumsum(1) }, cumsumRef(1)).
			within(func(ins []*ref.Array, _ *ref.Array) tol { return scanTol(1)(ins, nil).forDType(tensor.Float16) }).giving(tensor.Float16),
		// Running counts are Int64 where the device has it, else Int32 (the
		// dtypes group checks which, and Int32 inputs); the values are
		// compared as Int32.
		unary("cumsum(1):bool", in(3, 10).boolean(), func(t *tensor.Tensor) *tensor.Tensor { return t.Cumsum(1).Cast(tensor.Int32) }, cumsumRef(1)).
			giving(tensor.Int32),
	)
	for _, axes := range [][]int{nil, {1}, {0, 2}, {-1}} {
		for _, keep := range []bool{false, true} {
			name := func(op string) string { return fmt.Sprintf("%s%v:keep=%v", op, axes, keep) }
			rows = append(rows,
				unary(name("logsumexp"), in(2, 3, 4).scaledBy(30), func(t *tensor.Tensor) *tensor.Tensor {
					if keep {
						return t.LogSumExpKeepDim(axes...)
					}
					return t.LogSumExp(axes...)
				}, func(a *ref.Array) *ref.Array { return ref.LogSumExp(a, keep, axes...) }).
					within(func([]*ref.Array, *ref.Array) tol { return tol{rel: 2e-6, abs: 2e-5} }).differentiable(),
				unary(name("std(1)"), in(2, 3, 4), func(t *tensor.Tensor) *tensor.Tensor {
					if keep {
						return t.StdKeepDim(1, axes...)
					}
					return t.Std(1, axes...)
				}, func(a *ref.Array) *ref.Array { return ref.Map(ref.Var(a, 1, keep, axes...), math.Sqrt) }).
					within(reducedTol(axes)).differentiable())
			for _, p := range []float64{1, 2, 3, 0.5, math.Inf(1), math.Inf(-1), 0} {
				x := in(2, 3, 4).awayFromKinks()
				if math.IsInf(p, 0) {
					x = x.spacedOut()
				}
				r := unary(name(fmt.Sprintf("norm(%g)", p)), x, func(t *tensor.Tensor) *tensor.Tensor {
					if keep {
						return t.NormKeepDim(p, axes...)
					}
					return t.Norm(p, axes...)
				}, func(a *ref.Array) *ref.Array { return ref.Norm(a, p, keep, axes...) }).within(reducedTol(axes))
				if p != 0 {
					r = r.differentiable()
				}
				rows = append(rows, r)
			}
			anyRef := func(all bool) func(*ref.Array) *ref.Array {
				return func(a *ref.Array) *ref.Array {
					return ref.Reduce("any", a, axes, keep, func(v []float64) float64 {
						for _, x := range v {
							if (x != 0) != all {
								return b2f(!all)
							}
						}
						return b2f(all)
					})
				}
			}
			rows = append(rows,
				unary(name("any"), in(2, 3, 4).from(mostlyZeros), func(t *tensor.Tensor) *tensor.Tensor {
					if keep {
						return t.AnyKeepDim(axes...)
					}
					return t.Any(axes...)
				}, anyRef(false)).giving(tensor.Bool),
				unary(name("all"), in(2, 3, 4).from(sparseZeros), func(t *tensor.Tensor) *tensor.Tensor {
					if keep {
						return t.AllKeepDim(axes...)
					}
					return t.All(axes...)
				}, anyRef(true)).giving(tensor.Bool))
		}
	}
	for _, s := range []struct {
		shape []int
		axis  int
	}{{[]int{7}, 0}, {[]int{3, 5}, 1}, {[]int{3, 5}, 0}, {[]int{2, 3, 4}, -2}} {
		for _, keep := range []bool{false, true} {
			for _, mx := range []bool{true, false} {
				op, pick := "max_dim", ref.ArgMax
				if !mx {
					op, pick = "min_dim", ref.ArgMin
				}
				run := func(t *tensor.Tensor) (*tensor.Tensor, *tensor.Tensor) {
					if mx {
						return t.MaxDim(s.axis, keep)
					}
					return t.MinDim(s.axis, keep)
				}
				keepRef := func(r *ref.Array) *ref.Array {
					if keep {
						return r.Unsqueeze(s.axis)
					}
					return r
				}
				name := fmt.Sprintf("%s(%d):keep=%v", op, s.axis, keep)
				rows = append(rows,
					unary(name+":values", in(s.shape...).spacedOut(), func(t *tensor.Tensor) *tensor.Tensor { v, _ := run(t); return v },
						func(a *ref.Array) *ref.Array {
							return keepRef(ref.Gather(a, s.axis, pick(a, s.axis).Unsqueeze(s.axis)).Squeeze(s.axis))
						}).differentiable(),
					unary(name+":indices", in(s.shape...).from(ints(0, 2)), func(t *tensor.Tensor) *tensor.Tensor { _, i := run(t); return i },
						func(a *ref.Array) *ref.Array { return keepRef(pick(a, s.axis)) }).giving(tensor.Int32))
			}
		}
	}
	rows = append(rows, unary("prod_keepdim[0 2]", in(2, 3, 4), func(t *tensor.Tensor) *tensor.Tensor { return t.ProdKeepDim(0, 2) },
		func(a *ref.Array) *ref.Array { return ref.Prod(a, true, 0, 2) }).within(relTol(1e-5)).differentiable())
	return rows
}

// mostlyZeros is zero seven times in eight, so that all-zero lines occur.
func mostlyZeros(r *rand.Rand) float64 {
	if r.IntN(8) == 0 {
		return r.NormFloat64()
	}
	return 0
}

// sparseZeros is mostly nonzero with some zeros.
func sparseZeros(r *rand.Rand) float64 {
	if r.IntN(12) == 0 {
		return 0
	}
	return r.NormFloat64()
}

func scanCases() []testCase { return rowCases(scanRows()) }
