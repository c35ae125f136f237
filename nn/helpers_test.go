package nn_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/shaderflow/shaderflow/nn/internal/nntest"
	"github.com/shaderflow/shaderflow/tensor"
	"github.com/shaderflow/shaderflow/tensor/conformance/ref"
	"github.com/stretchr/testify/require"
)

// pair is a device tensor and the float64 reference array of its values.
type pair struct {
	T *tensor.Tensor
	R *ref.Array
}

// randn returns a tensor of N(0, 1) values and its reference.
func randn(dev *tensor.Device, r *rand.Rand, shape ...int) pair {
	return fromValues(dev, nntest.Normal(r, numel(shape)), shape...)
}

// spaced returns a tensor whose values are distinct multiples of 0.05 in a
// random order, so that no max-pooling window has a near tie.
func spaced(dev *tensor.Device, r *rand.Rand, shape ...int) pair {
	n := numel(shape)
	vals := make([]float32, n)
	for i, p := range r.Perm(n) {
		vals[i] = float32(p-n/2) * 0.05
	}
	return fromValues(dev, vals, shape...)
}

// awayFromZero returns N(0, 1) values pushed at least 0.1 away from zero, for
// functions with a kink there.
func awayFromZero(dev *tensor.Device, r *rand.Rand, shape ...int) pair {
	vals := nntest.Normal(r, numel(shape))
	for i, v := range vals {
		if math.Abs(float64(v)) < 0.1 {
			vals[i] = float32(math.Copysign(0.1, float64(v))) + v
		}
	}
	return fromValues(dev, vals, shape...)
}

func fromValues(dev *tensor.Device, vals []float32, shape ...int) pair {
	f := make([]float64, len(vals))
	for i, v := range vals {
		f[i] = float64(v)
	}
	return pair{T: tensor.FromFloat32s(dev, vals, shape...), R: ref.New(f, shape...)}
}

// refOf reads a tensor into a reference array.
func refOf(t *testing.T, x *tensor.Tensor) *ref.Array {
	t.Helper()
	v := nntest.Values(t, x)
	f := make([]float64, len(v))
	for i, x := range v {
		f[i] = float64(x)
	}
	return ref.New(f, x.Shape()...)
}

func numel(shape []int) int {
	n := 1
	for _, s := range shape {
		n *= s
	}
	return n
}

// requireClose checks got against want elementwise within
// rtol*|want| + atol.
func requireClose(t *testing.T, what string, got *tensor.Tensor, want *ref.Array, rtol, atol float64) {
	t.Helper()
	require.Equal(t, want.Shape(), got.Shape(), "%s: shape", what)
	g := nntest.Values(t, got)
	for i, w := range want.Values() {
		d := math.Abs(float64(g[i]) - w)
		if !(d <= rtol*math.Abs(w)+atol) {
			t.Fatalf("%s: element %d of %v is %g, want %g (difference %g)", what, i, want.Shape(), g[i], w, d)
		}
	}
}

// gradCheck compares the gradients Backward computes for inputs (leaves
// that require gradients) with float32 central differences of
// L = sum(f() * w) for fixed random weights w. It checks up to 16 random
// elements of each input, with relative tolerance 1e-2 and an absolute
// floor of 2e-3 times the input's largest gradient (plus 1e-3).
func gradCheck(t *testing.T, r *rand.Rand, name string, inputs []*tensor.Tensor, f func() *tensor.Tensor) {
	t.Helper()
	require.NoError(t, gradError(t, r, inputs, f), name)
}

// gradError is gradCheck's comparison; it returns the first disagreement.
func gradError(t *testing.T, r *rand.Rand, inputs []*tensor.Tensor, f func() *tensor.Tensor) error {
	t.Helper()
	const h = 1e-2
	out := f()
	dev := out.Device()
	w := tensor.FromFloat32s(dev, nntest.Normal(r, out.NumElements()), out.Shape()...)
	loss := func() *tensor.Tensor { return f().Mul(w).Sum() }
	for _, x := range inputs {
		x.ZeroGrad()
	}
	if err := loss().Backward(); err != nil {
		return err
	}
	lossAt := func() float64 {
		var v float64
		dev.NoGrad(func() {
			var err error
			v, err = loss().Item()
			require.NoError(t, err)
		})
		return v
	}
	for i, x := range inputs {
		if x.Grad() == nil {
			return fmt.Errorf("input %d has no gradient", i)
		}
		ana := nntest.Values(t, x.Grad())
		x.ZeroGrad()
		vals := nntest.Values(t, x)
		shape := x.Shape()
		maxAbs := 0.0
		for _, g := range ana {
			maxAbs = max(maxAbs, math.Abs(float64(g)))
		}
		set := func(j int, v float32) {
			old := vals[j]
			vals[j] = v
			x.Assign(tensor.FromFloat32s(dev, vals, shape...))
			vals[j] = old
		}
		central := func(j int, h float32) float64 {
			orig := vals[j]
			set(j, orig+h)
			lp := lossAt()
			set(j, orig-h)
			lm := lossAt()
			set(j, orig)
			return (lp - lm) / (2 * float64(h))
		}
		for _, j := range sample(r, len(vals), 16) {
			num := central(j, h)
			a := float64(ana[j])
			tol := 1e-2*math.Max(math.Abs(num), math.Abs(a)) + 2e-3*maxAbs + 1e-3
			if math.Abs(num-a) <= tol {
				continue
			}
			// Where the function curves strongly (a GPT's LayerNorm and
			// softmax), the difference's O(h²) term can exceed the
			// tolerance: Richardson's extrapolation from h and h/2 cancels
			// it, and a wrong gradient still disagrees with both.
			rich := (4*central(j, h/2) - num) / 3
			if math.Abs(rich-a) > tol {
				return fmt.Errorf("input %d %v element %d: gradient %g, central difference %g, extrapolated %g (tolerance %g)", i, shape, j, a, num, rich, tol)
			}
		}
	}
	return nil
}

// sample returns up to k distinct indices below n.
func sample(r *rand.Rand, n, k int) []int {
	p := r.Perm(n)
	return p[:min(k, n)]
}

// leaf marks x as a parameter-like leaf that requires gradients.
func leaf(p pair) pair {
	p.T.SetRequiresGrad(true)
	return p
}
