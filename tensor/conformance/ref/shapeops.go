package ref

import (
	"fmt"
	"math"
	"slices"
	"sort"
)

// References of the shape, scan and sorting ops: each computes PyTorch's
// result element by element in float64.

// Flip reverses a along each of axes.
func Flip(a *Array, axes ...int) *Array {
	out := a.view(a.Shape(), a.Strides(), a.offset)
	for _, ax := range axes {
		ax = normAxis("Flip", ax, a.Dim())
		if out.shape[ax] > 0 {
			out.offset += (out.shape[ax] - 1) * out.strides[ax]
			out.strides[ax] = -out.strides[ax]
		}
	}
	return out.Contiguous()
}

// Roll shifts a along axes[i] by shifts[i], wrapping around (torch.roll).
func Roll(a *Array, shifts, axes []int) *Array {
	out := a.Contiguous()
	for i, ax := range axes {
		ax = normAxis("Roll", ax, a.Dim())
		n := out.shape[ax]
		src := out
		out = Zeros(src.shape...)
		forEachIndex(src.shape, func(idx []int) {
			v := src.At(idx...)
			j := slices.Clone(idx)
			j[ax] = ((idx[ax]+shifts[i])%n + n) % n
			out.data[out.offsetOf(j)] = v
		})
	}
	return out
}

// Repeat tiles a reps[i] times along dimension i (torch.Tensor.repeat).
func Repeat(a *Array, reps ...int) *Array {
	shape := make([]int, len(reps))
	in := slices.Concat(slices.Repeat([]int{1}, len(reps)-a.Dim()), a.shape)
	b := a.Reshape(in...)
	for i, r := range reps {
		shape[i] = in[i] * r
	}
	out := Zeros(shape...)
	forEachIndex(shape, func(idx []int) {
		j := make([]int, len(idx))
		for d, x := range idx {
			j[d] = x % in[d]
		}
		out.data[out.offsetOf(idx)] = b.At(j...)
	})
	return out
}

// PadMode is a padding mode of Pad: "constant", "reflect" or "replicate".
type PadMode string

// Pad pads a as torch.nn.functional.pad: pairs (before, after) from the last
// dimension; negative constant pads crop.
func Pad(a *Array, pads []int, mode PadMode, value float64) *Array {
	shape := a.Shape()
	before := make([]int, a.Dim())
	for i := 0; i < len(pads); i += 2 {
		d := a.Dim() - 1 - i/2
		before[d] = pads[i]
		shape[d] += pads[i] + pads[i+1]
	}
	out := Zeros(shape...)
	forEachIndex(shape, func(idx []int) {
		j := make([]int, len(idx))
		inside := true
		for d, x := range idx {
			p, n := x-before[d], a.shape[d]
			switch {
			case p >= 0 && p < n:
			case mode == "reflect" && p < 0:
				p = -p
			case mode == "reflect":
				p = 2*(n-1) - p
			case mode == "replicate":
				p = min(max(p, 0), n-1)
			default:
				inside = false
			}
			j[d] = p
		}
		v := value
		if inside {
			v = a.At(j...)
		}
		out.data[out.offsetOf(idx)] = v
	})
	return out
}

// Triangle keeps the elements of the last two dimensions with column - row
// at most k (lower, torch.tril) or at least k (torch.triu), zeroing others.
func Triangle(a *Array, k int, lower bool) *Array {
	out := a.Contiguous()
	r := a.Dim()
	forEachIndex(out.shape, func(idx []int) {
		d := idx[r-1] - idx[r-2]
		if (lower && d > k) || (!lower && d < k) {
			out.data[out.offsetOf(idx)] = 0
		}
	})
	return out
}

// Scan is the inclusive scan of a along axis with f (cumsum, cumprod),
// accumulated left to right.
func Scan(a *Array, axis int, f func(acc, x float64) float64) *Array {
	return Lines("Scan", a, axis, func(line []float64) {
		for i := 1; i < len(line); i++ {
			line[i] = f(line[i-1], line[i])
		}
	})
}

// LogSumExp is log(sum(exp(a))) over axes (torch.logsumexp).
func LogSumExp(a *Array, keep bool, axes ...int) *Array {
	return Reduce("LogSumExp", a, axes, keep, func(v []float64) float64 {
		m := math.Inf(-1)
		for _, x := range v {
			m = math.Max(m, x)
		}
		if math.IsInf(m, 0) {
			m = 0
		}
		s := 0.0
		for _, x := range v {
			s += math.Exp(x - m)
		}
		return math.Log(s) + m
	})
}

// Norm is the p-norm over axes (torch.linalg.vector_norm): p = ±Inf are the
// largest and smallest magnitudes, p = 0 counts nonzeros.
func Norm(a *Array, p float64, keep bool, axes ...int) *Array {
	return Reduce("Norm", a, axes, keep, func(v []float64) float64 {
		switch {
		case math.IsInf(p, 1):
			m := 0.0
			for _, x := range v {
				m = maxNaN(m, math.Abs(x))
			}
			return m
		case math.IsInf(p, -1):
			m := math.Inf(1)
			for _, x := range v {
				m = minNaN(m, math.Abs(x))
			}
			return m
		case p == 0:
			n := 0.0
			for _, x := range v {
				if x != 0 {
					n++
				}
			}
			return n
		}
		s := 0.0
		for _, x := range v {
			s += math.Pow(math.Abs(x), p)
		}
		return math.Pow(s, 1/p)
	})
}

// sortLess orders NaN above every number, as torch.sort does.
func sortLess(x, y float64, descending bool) bool {
	xn, yn := math.IsNaN(x), math.IsNaN(y)
	if xn || yn {
		return yn != descending && xn == descending
	}
	if descending {
		return x > y
	}
	return x < y
}

// Sort sorts a stably along axis (torch.sort with stable=True; NaN is the
// largest value) and returns the values and the Int32-valued positions.
func Sort(a *Array, axis int, descending bool) (values, indices *Array) {
	axis = normAxis("Sort", axis, a.Dim())
	pos := Lines("Sort", a, axis, func(line []float64) {
		for i := range line {
			line[i] = float64(i)
		}
	})
	// Sort each line's positions; Lines visits the lines in one order.
	var lines [][2][]float64
	Lines("Sort", a, axis, func(line []float64) {
		p := make([]int, len(line))
		for i := range p {
			p[i] = i
		}
		sort.SliceStable(p, func(i, j int) bool { return sortLess(line[p[i]], line[p[j]], descending) })
		v, ix := make([]float64, len(line)), make([]float64, len(line))
		for i, k := range p {
			v[i], ix[i] = line[k], float64(k)
		}
		lines = append(lines, [2][]float64{v, ix})
	})
	at := 0
	values = Lines("Sort", a, axis, func(line []float64) { copy(line, lines[at][0]); at++ })
	at = 0
	indices = Lines("Sort", pos, axis, func(line []float64) { copy(line, lines[at][1]); at++ })
	return values, indices
}

// Median is torch.median along axis: the lower median, or NaN and the
// position of the first NaN where a line holds one.
func Median(a *Array, axis int) (values, indices *Array) {
	v, ix := Sort(a, axis, false)
	axis = normAxis("Median", axis, a.Dim())
	n := a.shape[axis]
	if n == 0 {
		panic(fmt.Sprintf("ref.Median: empty axis %d of %v", axis, a.shape))
	}
	// Reduce gives each line in order; choose by the sorted values.
	var choice []int
	Reduce("Median", v, []int{axis}, false, func(line []float64) float64 {
		k := (n - 1) / 2
		for i, x := range line {
			if math.IsNaN(x) {
				k = i
				break
			}
		}
		choice = append(choice, k)
		return 0
	})
	at := 0
	values = Reduce("Median", v, []int{axis}, false, func(line []float64) float64 { r := line[choice[at]]; at++; return r })
	at = 0
	indices = Reduce("Median", ix, []int{axis}, false, func(line []float64) float64 { r := line[choice[at]]; at++; return r })
	return values, indices
}

// Diagonal is torch.diagonal(a, offset, dim1, dim2): the elements (i,
// i+offset) of the two dimensions, which are removed, as a last dimension.
func Diagonal(a *Array, offset, dim1, dim2 int) *Array {
	d1, d2 := normAxis("Diagonal", dim1, a.Dim()), normAxis("Diagonal", dim2, a.Dim())
	var shape []int
	for i, s := range a.shape {
		if i != d1 && i != d2 {
			shape = append(shape, s)
		}
	}
	r0, c0 := max(-offset, 0), max(offset, 0)
	n := max(min(a.shape[d1]-r0, a.shape[d2]-c0), 0)
	shape = append(shape, n)
	out := Zeros(shape...)
	forEachIndex(shape, func(idx []int) {
		src := make([]int, a.Dim())
		k := 0
		for i := range src {
			if i != d1 && i != d2 {
				src[i] = idx[k]
				k++
			}
		}
		last := idx[len(idx)-1]
		src[d1], src[d2] = r0+last, c0+last
		out.data[out.offsetOf(idx)] = a.At(src...)
	})
	return out
}
