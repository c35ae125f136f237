package gputest

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/shaderflow/shaderflow/tensor/device"
)

// softmaxGradRef is the float64 gradient of softmax rows of length n:
// y*(g - sum(g*y)), or with log g - exp(y)*sum(g).
func softmaxGradRef(y, g []float64, n int, log bool) []float64 {
	out := make([]float64, len(y))
	for r := 0; r < len(y); r += n {
		s := 0.0
		for j := r; j < r+n; j++ {
			if log {
				s += g[j]
			} else {
				s += g[j] * y[j]
			}
		}
		for j := r; j < r+n; j++ {
			if log {
				out[j] = g[j] - math.Exp(y[j])*s
			} else {
				out[j] = y[j] * (g[j] - s)
			}
		}
	}
	return out
}

// softmaxGradTol is the tolerance of a float32 gradient of rows of n
// elements of unit size: the row's sum carries about n roundings.
func softmaxGradTol(n int) Tol { return Tol{Abs: 1e-5 + 3e-7*float64(n), Rel: 1e-4} }

// softmaxOutputs returns a Gen of softmax outputs (in (0, 1)) or, with
// log, of log-softmax outputs (in (-10, 0]).
func softmaxOutputs(log bool) Gen {
	return func(r *rand.Rand) float64 {
		if log {
			return -10 * r.Float64()
		}
		return r.Float64()
	}
}

// checkSoftmaxGrad runs the gradient of y and g into a fresh output at an
// odd offset and checks it against the reference, and that the elements
// around the output keep their poison.
func checkSoftmaxGrad(t *testing.T, d device.Device, what string, y, g Tensor, log bool) {
	t.Helper()
	sm := rowSoftmaxGrader(t, d)
	n := y.View.Shape[len(y.View.Shape)-1]
	w := fmt.Sprintf("%s log=%v", what, log)
	out := Output(t, d, device.Float32, 1, y.View.Shape)
	require.NoError(t, sm.SoftmaxBackward(&device.SoftmaxBackwardKernel{Y: y.View, G: g.View, Out: out, Log: log}), w)
	all := Download(t, d, out.Buf, device.Float32, 0, out.NumElements()+2)
	Check(t, w, all[1:len(all)-1], softmaxGradRef(y.Values, g.Values, n, log), softmaxGradTol(n))
	poison := float64(math.Float32frombits(0xABABABAB))
	assert.Equal(t, []float64{poison, poison}, []float64{all[0], all[len(all)-1]}, "%s: wrote outside Out", w)
}

// nonFinite returns g with NaN, ±Inf and ±0 mixed in at a few percent
// (WithSpecials' large finite values would make the gradient's
// cancellations ill-conditioned in float32).
func nonFinite(g Gen) Gen {
	specials := []float64{math.NaN(), math.Inf(1), math.Inf(-1), 0, math.Copysign(0, -1)}
	return func(r *rand.Rand) float64 {
		if r.IntN(20) == 0 {
			return specials[r.IntN(len(specials))]
		}
		return g(r)
	}
}

// rowSoftmaxGrader returns d's softmax gradient row kernel, or skips the
// test when d has none.
func rowSoftmaxGrader(t *testing.T, d device.Device) device.RowSoftmaxGrader {
	s, ok := d.(device.RowSoftmaxGrader)
	if !ok {
		t.Skipf("%s has no softmax gradient row kernel", d.Info().Backend)
	}
	return s
}

func testSoftmaxGrad(t *testing.T, d device.Device) {
	rowSoftmaxGrader(t, d)
	rng := NewRand(t)
	f32 := device.Float32
	both := []bool{false, true}
	t.Run("Lengths", func(t *testing.T) {
		for _, n := range []int{1, 2, 4, 5, 63, 65, 257, 1000, 1536, 1537, 5000, 100000} {
			rows := max(1, min(5, 20000/n))
			for _, log := range both {
				y := Make(t, d, rng, f32, []int{rows, n}, Contiguous, softmaxOutputs(log))
				g := Make(t, d, rng, f32, []int{rows, n}, Contiguous, Normal(f32))
				checkSoftmaxGrad(t, d, fmt.Sprintf("[%d %d]", rows, n), y, g, log)
			}
		}
	})
	t.Run("Layouts", func(t *testing.T) {
		for _, shape := range [][]int{{7}, {6, 7, 33}, {3, 2, 300}, {3, 4000}, {0, 5}} {
			for i, l := range Layouts {
				log := i%2 == 1
				y := Make(t, d, rng, f32, shape, l, softmaxOutputs(log))
				g := Make(t, d, rng, f32, shape, Layouts[(i+2)%len(Layouts)], Normal(f32))
				checkSoftmaxGrad(t, d, fmt.Sprintf("%v y %s", shape, l), y, g, log)
			}
		}
	})
	t.Run("ManyRows", func(t *testing.T) {
		for _, log := range both {
			y := Make(t, d, rng, f32, []int{70000, 3}, Reversed, softmaxOutputs(log))
			g := Make(t, d, rng, f32, []int{70000, 3}, Contiguous, nonFinite(Normal(f32)))
			checkSoftmaxGrad(t, d, "[70000 3] with specials in g", y, g, log)
		}
	})
	t.Run("Specials", func(t *testing.T) {
		inf, nan := math.Inf(1), math.NaN()
		for _, n := range []int{4, 300, 5000} {
			for _, x := range []float64{nan, inf, -inf} {
				for _, log := range both {
					y := Make(t, d, rng, f32, []int{3, n}, Contiguous, softmaxOutputs(log))
					g := Make(t, d, rng, f32, []int{3, n}, Contiguous, Normal(f32))
					yv, gv := slices.Clone(y.Values), slices.Clone(g.Values)
					gv[n-1], yv[n+1] = x, x // row 0: special g; row 1: special y
					if !log {
						yv[2*n], gv[2*n] = 0, x // row 2: 0 * special
					}
					require.NoError(t, d.Write(y.View.Buf, 0, Encode(f32, yv)))
					require.NoError(t, d.Write(g.View.Buf, 0, Encode(f32, gv)))
					y.Values, g.Values = yv, gv
					checkSoftmaxGrad(t, d, fmt.Sprintf("[3 %d] with %v", n, x), y, g, log)
				}
			}
		}
	})
	t.Run("Refusals", func(t *testing.T) {
		sm := rowSoftmaxGrader(t, d)
		y := Make(t, d, rng, f32, []int{3, 4}, Contiguous, Normal(f32))
		ints := Make(t, d, rng, device.Int32, []int{3, 4}, Contiguous, Normal(device.Int32))
		out := Output(t, d, f32, 0, []int{3, 4})
		for what, k := range map[string]*device.SoftmaxBackwardKernel{
			"int32 gradient": {Y: y.View, G: ints.View, Out: out},
			"shape mismatch": {Y: y.View, G: Make(t, d, rng, f32, []int{4, 3}, Contiguous, Normal(f32)).View, Out: out},
			"strided output": {Y: y.View, G: y.View, Out: device.View{Buf: out.Buf, DType: f32, Shape: []int{3, 4}, Strides: []int{1, 3}}},
		} {
			assert.Error(t, sm.SoftmaxBackward(k), what)
		}
		require.NoError(t, d.Sync())
	})
}

// testSoftmaxGradBindings runs softmax gradients whose views span more than
// the lowered binding size, which run in slabs of rows.
func testSoftmaxGradBindings(t *testing.T, d device.Device) {
	if _, ok := d.(device.RowSoftmaxGrader); !ok {
		return
	}
	rng := NewRand(t)
	f32 := device.Float32
	layouts := []Layout{Contiguous, Strided, Contiguous} // a row of 1000 spans one binding
	for i, shape := range [][]int{{300, 50}, {7, 9, 40}, {4, 1000}} {
		log := i%2 == 0
		y := Make(t, d, rng, f32, shape, layouts[i], softmaxOutputs(log))
		g := Make(t, d, rng, f32, shape, Offset, Normal(f32))
		checkSoftmaxGrad(t, d, fmt.Sprintf("softmax gradient %v over bindings", shape), y, g, log)
	}
}
