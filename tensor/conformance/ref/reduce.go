package ref

import (
	"fmt"
	"math"
	"slices"
)

// Reduce applies f to the values of every slice of a over axes (all axes when
// axes is empty) and returns the results with the reduced dimensions removed,
// or kept with size one when keep is set. f receives the values in row-major
// order and must not keep the slice.
func Reduce(op string, a *Array, axes []int, keep bool, f func(vals []float64) float64) *Array {
	red := make([]bool, a.Dim())
	if len(axes) == 0 {
		for i := range red {
			red[i] = true
		}
	}
	for _, ax := range axes {
		ax = normAxis(op, ax, a.Dim())
		if red[ax] && len(axes) > 0 {
			panic(fmt.Sprintf("ref.%s: repeated axis in %v for shape %v", op, axes, a.shape))
		}
		red[ax] = true
	}
	var outShape, keepShape, redShape []int
	var perm []int
	for i, s := range a.shape {
		if red[i] {
			keepShape = append(keepShape, 1)
			continue
		}
		outShape = append(outShape, s)
		keepShape = append(keepShape, s)
		perm = append(perm, i)
	}
	for i, s := range a.shape {
		if red[i] {
			redShape = append(redShape, s)
			perm = append(perm, i)
		}
	}
	// Move the reduced axes last; each output then owns a run of
	// numElements(redShape) consecutive values.
	vals := a.Permute(perm...).Values()
	n := numElements(redShape)
	out := make([]float64, numElements(outShape))
	for i := range out {
		out[i] = f(vals[i*n : (i+1)*n])
	}
	if keep {
		return New(out, keepShape...)
	}
	return New(out, outShape...)
}

// Sum adds over axes (all when none); the sum of no elements is 0.
func Sum(a *Array, keep bool, axes ...int) *Array { return Reduce("Sum", a, axes, keep, sum) }

// Mean averages over axes (all when none); the mean of no elements is NaN.
func Mean(a *Array, keep bool, axes ...int) *Array {
	return Reduce("Mean", a, axes, keep, func(v []float64) float64 { return sum(v) / float64(len(v)) })
}

// Prod multiplies over axes (all when none); the product of no elements is 1.
func Prod(a *Array, keep bool, axes ...int) *Array {
	return Reduce("Prod", a, axes, keep, func(v []float64) float64 {
		p := 1.0
		for _, x := range v {
			p *= x
		}
		return p
	})
}

// Max is the largest value over axes, NaN if any value is NaN. It panics for
// an empty slice, as PyTorch refuses it.
func Max(a *Array, keep bool, axes ...int) *Array {
	return Reduce("Max", a, axes, keep, func(v []float64) float64 { return extreme("Max", a, v, maxNaN) })
}

// Min is the smallest value over axes, NaN if any value is NaN. It panics for
// an empty slice.
func Min(a *Array, keep bool, axes ...int) *Array {
	return Reduce("Min", a, axes, keep, func(v []float64) float64 { return extreme("Min", a, v, minNaN) })
}

// Var is the variance over axes with the sum of squared deviations divided by
// n-correction (correction 1 is the unbiased estimate).
func Var(a *Array, correction int, keep bool, axes ...int) *Array {
	return Reduce("Var", a, axes, keep, func(v []float64) float64 { return variance(v, correction) })
}

// ArgMax returns the position along axis of the first largest value (a NaN
// counts as largest), as float64 indices, with axis removed.
func ArgMax(a *Array, axis int) *Array {
	return Reduce("ArgMax", a, []int{axis}, false, func(v []float64) float64 {
		return argExtreme("ArgMax", a, v, func(x, best float64) bool { return x > best })
	})
}

// ArgMin returns the position along axis of the first smallest value (a NaN
// counts as smallest), with axis removed.
func ArgMin(a *Array, axis int) *Array {
	return Reduce("ArgMin", a, []int{axis}, false, func(v []float64) float64 {
		return argExtreme("ArgMin", a, v, func(x, best float64) bool { return x < best })
	})
}

// Softmax is exp(x - max) / sum(exp(x - max)) along axis. A row of -Inf
// becomes NaN, as in PyTorch.
func Softmax(a *Array, axis int) *Array {
	return Lines("Softmax", a, axis, func(v []float64) {
		m := extreme("Softmax", a, v, maxNaN)
		s := 0.0
		for i, x := range v {
			v[i] = math.Exp(x - m)
			s += v[i]
		}
		for i := range v {
			v[i] /= s
		}
	})
}

// LogSoftmax is x - max - log(sum(exp(x - max))) along axis.
func LogSoftmax(a *Array, axis int) *Array {
	return Lines("LogSoftmax", a, axis, func(v []float64) {
		m := extreme("LogSoftmax", a, v, maxNaN)
		s := 0.0
		for _, x := range v {
			s += math.Exp(x - m)
		}
		ls := math.Log(s)
		for i, x := range v {
			v[i] = x - m - ls
		}
	})
}

// Lines applies f in place to a copy of every 1-D line of a along axis and
// returns the results in a's shape.
func Lines(op string, a *Array, axis int, f func(line []float64)) *Array {
	axis = normAxis(op, axis, a.Dim())
	out := a.Contiguous()
	n, stride := a.shape[axis], out.strides[axis]
	outer := slices.Clone(a.shape)
	outer[axis] = 1
	line := make([]float64, n)
	forEachIndex(outer, func(idx []int) {
		base := 0
		for d, x := range idx {
			base += x * out.strides[d]
		}
		for i := range line {
			line[i] = out.data[base+i*stride]
		}
		f(line)
		for i, v := range line {
			out.data[base+i*stride] = v
		}
	})
	return out
}

func sum(v []float64) float64 {
	s := 0.0
	for _, x := range v {
		s += x
	}
	return s
}

func variance(v []float64, correction int) float64 {
	m := sum(v) / float64(len(v))
	s := 0.0
	for _, x := range v {
		s += (x - m) * (x - m)
	}
	return s / float64(len(v)-correction)
}

func extreme(op string, a *Array, v []float64, pick func(x, y float64) float64) float64 {
	if len(v) == 0 {
		panic(fmt.Sprintf("ref.%s: reduction over an empty slice of shape %v", op, a.shape))
	}
	m := v[0]
	for _, x := range v[1:] {
		m = pick(m, x)
	}
	return m
}

func argExtreme(op string, a *Array, v []float64, better func(x, best float64) bool) float64 {
	if len(v) == 0 {
		panic(fmt.Sprintf("ref.%s: reduction over an empty slice of shape %v", op, a.shape))
	}
	best := 0
	for i, x := range v {
		if math.IsNaN(x) {
			return float64(i)
		}
		if better(x, v[best]) {
			best = i
		}
	}
	return float64(best)
}
