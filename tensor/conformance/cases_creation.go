package conformance

import (
	"fmt"
	"math"
	"slices"

	"github.com/shaderflow/shaderflow/tensor"
	"github.com/shaderflow/shaderflow/tensor/conformance/ref"
)

// creationShapes are the shapes constructors are checked on.
var creationShapes = [][]int{{}, {0}, {1}, {7}, {3, 5}, {2, 0, 3}, {2, 3, 4}}

func creationCases() []testCase {
	var cs []testCase
	for _, sh := range creationShapes {
		for _, dt := range []tensor.DType{tensor.Float32, tensor.Int32, tensor.Bool} {
			cs = append(cs, testCase{name: caseName("from", dt.String(), shapeName(sh)), run: func(e *env) {
				g := normal
				switch dt {
				case tensor.Int32:
					g = ints(-1<<30, 1<<30)
				case tensor.Bool:
					g = ints(0, 1)
				}
				p := e.input(dt, g, contiguous, sh...)
				e.compare("upload and read back", p.T, dt, p.R, exact)
				if dt == tensor.Float32 && len(sh) > 0 && !slices.Equal(p.T.Strides(), contiguousStrides(sh)) {
					e.errorf("strides %v of a new tensor of shape %v, want %v", p.T.Strides(), sh, contiguousStrides(sh))
				}
				if p.T.Dim() != len(sh) || p.T.NumElements() != numElements(sh) {
					e.errorf("Dim %d, NumElements %d for shape %v", p.T.Dim(), p.T.NumElements(), sh)
				}
			}})
		}
		cs = append(cs, testCase{name: caseName("zeros_ones_full", shapeName(sh)), run: func(e *env) {
			e.expect("Zeros", tensor.Float32, ref.Zeros(sh...), exact, func() *tensor.Tensor { return tensor.Zeros(e.dev, sh...) })
			e.expect("Ones", tensor.Float32, ref.Full(1, sh...), exact, func() *tensor.Tensor { return tensor.Ones(e.dev, sh...) })
			e.expect("Full", tensor.Float32, ref.Full(-2.5, sh...), exact, func() *tensor.Tensor { return tensor.Full(e.dev, -2.5, sh...) })
			e.expect("Full(NaN)", tensor.Float32, ref.Full(math.NaN(), sh...), exact, func() *tensor.Tensor { return tensor.Full(e.dev, math.NaN(), sh...) })
		}})
	}
	for _, a := range [][3]float64{{0, 10, 1}, {1, 2, 0.25}, {5, -3, -1.5}, {0, 0, 1}, {-1, 1, 0.3}} {
		cs = append(cs, testCase{name: caseName("arange", fmt.Sprintf("%g,%g,%g", a[0], a[1], a[2])), run: func(e *env) {
			e.expect("Arange", tensor.Float32, ref.Arange(a[0], a[1], a[2]), f32, func() *tensor.Tensor {
				return tensor.Arange(e.dev, a[0], a[1], a[2])
			})
		}})
	}
	cs = append(cs,
		testCase{name: "item", run: func(e *env) {
			for _, sh := range [][]int{{}, {1}, {1, 1}} {
				p := e.randn(sh...)
				v, err := p.T.Item()
				e.noErr(err, "Item")
				if v != p.R.Item() {
					e.errorf("Item of %v = %v, want %v", sh, v, p.R.Item())
				}
			}
		}},
		testCase{name: "rand", run: func(e *env) { checkRandom(e, false) }},
		testCase{name: "randn", run: func(e *env) { checkRandom(e, true) }},
	)
	return cs
}

// checkRandom checks Rand (uniform [0,1)) or Randn (standard normal) by their
// moments over 2^16 values, and that Seed makes them repeatable.
func checkRandom(e *env, normal bool) {
	const n = 1 << 16
	draw := func() *tensor.Tensor {
		if normal {
			return tensor.Randn(e.dev, 256, n/256)
		}
		return tensor.Rand(e.dev, 256, n/256)
	}
	seed := e.rng.Uint64()
	e.dev.Seed(seed)
	a := draw()
	b := draw()
	e.dev.Seed(seed)
	c := draw()
	va, vb, vc := e.read(a), e.read(b), e.read(c)
	if !slices.Equal(va, vc) {
		e.errorf("the same Seed(%d) gave different values", seed)
	}
	if slices.Equal(va, vb) {
		e.errorf("two draws after one Seed gave the same values")
	}
	if shape := a.Shape(); !slices.Equal(shape, []int{256, n / 256}) || a.DType() != tensor.Float32 {
		e.errorf("shape %v dtype %s, want [256 %d] float32", shape, a.DType(), n/256)
	}
	mean, sq := 0.0, 0.0
	for _, v := range va {
		if !normal && (v < 0 || v >= 1) {
			e.fatalf("Rand gave %v, outside [0, 1)", v)
		}
		if math.IsNaN(v) || math.IsInf(v, 0) {
			e.fatalf("random value %v", v)
		}
		mean += v
		sq += v * v
	}
	mean /= n
	variance := sq/n - mean*mean
	wantMean, wantVar := 0.5, 1.0/12
	if normal {
		wantMean, wantVar = 0, 1
	}
	// Six standard errors: a false alarm about once in 10^8 runs.
	if se := math.Sqrt(wantVar / n); math.Abs(mean-wantMean) > 6*se {
		e.errorf("mean %.5f, want %.5f ± %.5f", mean, wantMean, 6*se)
	}
	if math.Abs(variance-wantVar) > 0.03*wantVar {
		e.errorf("variance %.5f, want %.5f ± 3%%", variance, wantVar)
	}
}

func contiguousStrides(shape []int) []int {
	st := make([]int, len(shape))
	acc := 1
	for i := len(shape) - 1; i >= 0; i-- {
		st[i] = acc
		acc *= shape[i]
	}
	return st
}
