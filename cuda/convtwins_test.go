//go:build cgo && linux

package cuda

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/shaderflow/shaderflow/cpu"
	"github.com/shaderflow/shaderflow/gpu/gputest"
	"github.com/shaderflow/shaderflow/tensor/device"
)

// twins holds the same data on the CUDA device under test (index 0, on
// the fake driver) and on a CPU device (index 1), the reference backend,
// so a convolution or pooling edge case is checked against the CPU's
// semantics (padding, NaN and tie rules, empty windows) by running the
// same kernel on both.
type twins struct {
	t    *testing.T
	f    *fake
	devs [2]device.Device
	rng  *rand.Rand
}

// newTwins opens the fake CUDA device and a CPU device.
func newTwins(t *testing.T) *twins {
	f := buildFake(t, nil, nil)
	tw := hardwareTwins(t, f.open(t, 1<<20))
	tw.f = f
	return tw
}

// hardwareTwins pairs CUDA device d (a real one, for the hardware tests)
// with a CPU device.
func hardwareTwins(t *testing.T, d device.Device) *twins {
	c := cpu.New(cpu.Config{Workers: 1})
	t.Cleanup(func() { _ = c.Close() })
	return &twins{t: t, devs: [2]device.Device{d, c}, rng: rand.New(rand.NewPCG(7, 13))}
}

// layout is how a test view lies in its buffer: its dimensions in memory
// order from the outermost (perm), the dimensions broadcast with stride 0
// and its element offset.
type layout struct {
	perm      []int
	broadcast []int
	offset    int
}

// view uploads values from gen to both devices and returns a view of
// shape laid out by l over them on each.
func (tw *twins) view(dt device.DType, shape []int, l layout, gen func() float64) [2]device.View {
	strides := make([]int, len(shape))
	perm := l.perm
	if perm == nil {
		for i := range shape {
			perm = append(perm, i)
		}
	}
	acc := 1
	for i := len(perm) - 1; i >= 0; i-- {
		d := perm[i]
		strides[d] = acc
		acc *= max(shape[d], 1)
	}
	for _, d := range l.broadcast {
		strides[d] = 0
	}
	vals := make([]float64, l.offset+acc)
	for i := range vals {
		vals[i] = gen()
	}
	var out [2]device.View
	for i, d := range tw.devs {
		out[i] = device.View{Buf: gputest.Upload(tw.t, d, dt, vals), DType: dt, Shape: shape, Strides: strides, Offset: l.offset}
	}
	return out
}

// output allocates a contiguous output view of shape on both devices.
func (tw *twins) output(dt device.DType, shape []int) [2]device.View {
	return [2]device.View{gputest.Output(tw.t, tw.devs[0], dt, 1, shape), gputest.Output(tw.t, tw.devs[1], dt, 1, shape)}
}

// check compares contiguous views' contents on both devices.
func (tw *twins) check(what string, v [2]device.View, tl gputest.Tol) {
	tw.t.Helper()
	gputest.Check(tw.t, what, gputest.Fetch(tw.t, tw.devs[0], v[0]), gputest.Fetch(tw.t, tw.devs[1], v[1]), tl)
}

// normal draws a normally distributed value.
func (tw *twins) normal() float64 { return tw.rng.NormFloat64() }

// special draws a normal value, or one time in five a NaN, an infinity, a
// signed zero or a repeated value (for ties).
func (tw *twins) special() float64 {
	if tw.rng.IntN(5) > 0 {
		return float64(tw.rng.IntN(3)) // small integers tie often
	}
	s := []float64{math.NaN(), math.Inf(1), math.Inf(-1), math.Copysign(0, -1), 0, tw.normal()}
	return s[tw.rng.IntN(len(s))]
}

// run runs kernel i (built for device i) on both devices.
func (tw *twins) run(what string, kernel func(i int) error) {
	tw.t.Helper()
	for i := range tw.devs {
		require.NoError(tw.t, kernel(i), "%s on device %d", what, i)
	}
}
