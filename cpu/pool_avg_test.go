package cpu

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/shaderflow/shaderflow/tensor/device"
)

// avgCase is a 2-D average pooling to test: fixed windows (k, s, p) or,
// with adaptive set, the output size out.
type avgCase struct {
	n, c     int
	in, out  [2]int
	k, s, p  [2]int
	adaptive bool
	inclPad  bool
	xLayout  int  // the input's layout: one of the layout constants below
	dyLayout int  // the output gradient's layout
	shared   bool // the planes are enough work for several workers
}

// Layouts of a test's input view; all but transposed keep columns
// contiguous.
const (
	layoutDense       = iota // contiguous
	layoutRowsApart          // rows padded to a longer stride
	layoutPlanesApart        // rows padded and planes further apart, channels outermost
	layoutTransposed         // rows and columns swapped in memory
	numLayouts
)

// geom returns c's geometry.
func (c *avgCase) geom() device.ConvGeometry {
	if c.adaptive {
		return device.ConvGeometry{N: c.n, C: c.c, O: c.c, Groups: c.c, In: c.in[:], Out: c.out[:]}
	}
	return device.ConvGeometry{N: c.n, C: c.c, O: c.c, Groups: c.c, In: c.in[:], Out: c.out[:],
		Kernel: c.k[:], Stride: c.s[:], Padding: c.p[:], Dilation: []int{1, 1}}
}

// String names c as a subtest.
func (c *avgCase) String() string {
	if c.adaptive {
		return fmt.Sprintf("n%dc%d/in%v/adaptive%v/x%d/dy%d", c.n, c.c, c.in, c.out, c.xLayout, c.dyLayout)
	}
	return fmt.Sprintf("n%dc%d/in%v/k%v/s%v/p%v/incl%v/x%d/dy%d", c.n, c.c, c.in, c.k, c.s, c.p, c.inclPad, c.xLayout, c.dyLayout)
}

// randomAvgCase draws a geometry: windows of 1 to 4 taps, strides of 1 to
// 3, padding up to half the window, or adaptive output sizes up to the
// input's (or above it), over 3 to 9 planes (sometimes of one image, or
// of one channel), a quarter of them on inputs of 30 to 49 a side.
func randomAvgCase(r *rand.Rand) avgCase {
	c := avgCase{n: 1 + r.IntN(3), c: 1 + r.IntN(3), adaptive: r.IntN(3) == 0, inclPad: r.IntN(2) == 0,
		xLayout: r.IntN(numLayouts), dyLayout: r.IntN(numLayouts)}
	for c.n*c.c < 3 {
		c.n++
	}
	big := r.IntN(4) == 0
	for i := range 2 {
		c.in[i] = 1 + r.IntN(14)
		if big {
			c.in[i] = 30 + r.IntN(20)
		}
		if c.adaptive {
			switch r.IntN(4) {
			case 0:
				c.out[i] = 1
			case 1: // a divisor
				for c.out[i] = 1 + r.IntN(c.in[i]); c.in[i]%c.out[i] != 0; c.out[i]-- {
				}
			default:
				c.out[i] = 1 + r.IntN(c.in[i]+2)
			}
			continue
		}
		c.k[i], c.s[i] = 1+r.IntN(4), 1+r.IntN(3)
		c.p[i] = r.IntN(c.k[i]/2 + 1)
		c.in[i] = max(c.in[i], c.k[i]-2*c.p[i])
		c.out[i] = outSize(c.in[i], c.k[i], c.s[i], c.p[i], 1)
	}
	return c
}

// avgView returns a view of shape [n, c, h, w] laid out as layout says,
// over a fresh buffer of random values with an offset, and the buffer's
// contents.
func avgView(t *testing.T, d *Device, r *rand.Rand, shape []int, layout int) (device.View, []float64) {
	n, c, h, w := shape[0], shape[1], shape[2], shape[3]
	var st []int
	size := 0
	switch layout {
	case layoutDense:
		st, size = device.ContiguousStrides(shape), n*c*h*w
	case layoutRowsApart:
		ld := w + 1 + r.IntN(3)
		st, size = []int{c * h * ld, h * ld, ld, 1}, n*c*h*ld
	case layoutPlanesApart:
		ld := w + 2
		plane := h*ld + 5
		st, size = []int{plane, n * plane, ld, 1}, n*c*plane
	case layoutTransposed:
		st, size = []int{c * h * w, h * w, 1, h}, n*c*h*w
	}
	vals := randVals(r, size+3)
	for i := range vals {
		vals[i] = float64(float32(vals[i]))
	}
	return device.View{Buf: upload(t, d, device.Float32, vals), DType: device.Float32, Offset: 3, Shape: shape, Strides: st}, vals
}

// avgWindow returns output o's window [lo, hi) along one dimension of c,
// clipped to the input, and its share of the divisor.
func (c *avgCase) avgWindow(i, o int) (lo, hi, div int) {
	in := c.in[i]
	if c.adaptive {
		lo, hi = o*in/c.out[i], ((o+1)*in+c.out[i]-1)/c.out[i]
		return lo, hi, hi - lo
	}
	lo = o*c.s[i] - c.p[i]
	hi = lo + c.k[i]
	div = min(hi, in+c.p[i]) - lo // the window inside the padded input
	lo, hi = max(lo, 0), min(hi, in)
	if !c.inclPad {
		div = hi - lo
	}
	return lo, hi, div
}

// refAvgBackward returns the float64 input gradient of c for the dense
// output gradient dy, each output's gradient over its divisor added to
// every input of its window, and the same sum of magnitudes.
func refAvgBackward(c *avgCase, dy []float64) (dx, mag []float64) {
	ih, iw, oh, ow := c.in[0], c.in[1], c.out[0], c.out[1]
	dx, mag = make([]float64, c.n*c.c*ih*iw), make([]float64, c.n*c.c*ih*iw)
	for p := range c.n * c.c {
		for o1 := range oh {
			r0, r1, d1 := c.avgWindow(0, o1)
			for o2 := range ow {
				c0, c1, d2 := c.avgWindow(1, o2)
				v := dy[(p*oh+o1)*ow+o2] / float64(d1*d2)
				for r := r0; r < r1; r++ {
					for q := c0; q < c1; q++ {
						dx[(p*ih+r)*iw+q] += v
						mag[(p*ih+r)*iw+q] += math.Abs(v)
					}
				}
			}
		}
	}
	return dx, mag
}

// avgPlanOf returns the by-rows plan Pool makes for k.
func avgPlanOf(k *device.PoolKernel) *avgPlan {
	j := &poolJob{k: k, g: norm3(k.Geom, k.Adaptive), xst: strides5(k.X)}
	j.prepare()
	return j.planAvgRows()
}

// requireAvgClose checks got against want within a relative 1e-5 of the
// window sums of magnitudes mag.
func requireAvgClose(t *testing.T, want, mag, got []float64, msg string) {
	t.Helper()
	require.Len(t, got, len(want), msg)
	for i := range want {
		if !(math.Abs(want[i]-got[i]) <= 1e-5*mag[i]+1e-30) {
			require.Failf(t, "mismatch", "%s: element %d: want %v, got %v (magnitude %v)", msg, i, want[i], got[i], mag[i])
		}
	}
}

// checkAvgCase pools c forward and backward and checks both against the
// float64 references, and that the by-rows path took the kernels it
// should.
func checkAvgCase(t *testing.T, d *Device, r *rand.Rand, c avgCase) {
	g := c.geom()
	xShape := []int{c.n, c.c, c.in[0], c.in[1]}
	yShape := []int{c.n, c.c, c.out[0], c.out[1]}
	nx, ny := device.NumElements(xShape), device.NumElements(yShape)
	x, xv := avgView(t, d, r, xShape, c.xLayout)
	k := &device.PoolKernel{Op: device.PoolAvg, Adaptive: c.adaptive, CountIncludePad: c.inclPad, Geom: g, X: x,
		Out: device.Contiguous(poisoned(t, d, device.Float32, ny), device.Float32, 0, yShape)}
	if c.shared {
		j := &poolJob{g: norm3(g, c.adaptive)}
		require.False(t, d.serial(c.n*c.c, j.g.outVol*j.g.kVol+j.g.inVol), "shared among workers")
	}
	columns := c.xLayout != layoutTransposed || c.in[0] == 1 || c.in[1] == 1 // contiguous
	require.Equal(t, columns, avgPlanOf(k) != nil, "forward by rows")
	require.NoError(t, d.Pool(k))
	xd := dense(xv, x)
	want, _ := refPool(k, xd)
	for i := range xd {
		xd[i] = math.Abs(xd[i])
	}
	mag, _ := refPool(k, xd)
	requireAvgClose(t, want, mag, download(t, d, k.Out.Buf, device.Float32, ny), "forward")

	dy, dyv := avgView(t, d, r, yShape, c.dyLayout)
	bk := *k
	bk.Backward, bk.X = true, dy
	bk.Out = device.Contiguous(poisoned(t, d, device.Float32, nx), device.Float32, 0, xShape)
	require.NotNil(t, avgPlanOf(&bk), "backward by rows")
	require.NoError(t, d.Pool(&bk))
	wantDX, magDX := refAvgBackward(&c, dense(dyv, dy))
	requireAvgClose(t, wantDX, magDX, download(t, d, bk.Out.Buf, device.Float32, nx), "backward")
}

// TestAvgPoolRowsMatchesReference pools chosen and random 2-D geometries
// (fixed windows with and without count_include_pad, adaptive sizes the
// output divides and does not, global pooling) over dense, row-strided,
// plane-strided and transposed inputs and output gradients, forward and
// backward, against float64 references.
func TestAvgPoolRowsMatchesReference(t *testing.T) {
	r := newRand(t)
	d := newDevice(t, 3)
	fixed := func(in, k, s, p [2]int, incl bool) avgCase {
		c := avgCase{n: 2, c: 3, in: in, k: k, s: s, p: p, inclPad: incl}
		for i := range 2 {
			c.out[i] = outSize(in[i], k[i], s[i], p[i], 1)
		}
		return c
	}
	adaptive := func(in, out [2]int) avgCase {
		return avgCase{n: 2, c: 3, in: in, out: out, adaptive: true}
	}
	cases := []avgCase{
		fixed([2]int{28, 28}, [2]int{2, 2}, [2]int{2, 2}, [2]int{}, true),
		fixed([2]int{11, 13}, [2]int{2, 2}, [2]int{2, 2}, [2]int{}, true),
		fixed([2]int{28, 28}, [2]int{3, 3}, [2]int{1, 1}, [2]int{1, 1}, true),
		fixed([2]int{9, 8}, [2]int{3, 3}, [2]int{1, 1}, [2]int{1, 1}, false),
		fixed([2]int{7, 6}, [2]int{2, 2}, [2]int{1, 1}, [2]int{1, 1}, false), // starts span more than the input
		fixed([2]int{9, 10}, [2]int{3, 4}, [2]int{2, 3}, [2]int{1, 2}, true),
		fixed([2]int{9, 10}, [2]int{3, 4}, [2]int{2, 3}, [2]int{1, 2}, false),
		fixed([2]int{10, 11}, [2]int{2, 1}, [2]int{3, 3}, [2]int{}, true), // gaps between windows
		fixed([2]int{5, 6}, [2]int{1, 1}, [2]int{1, 1}, [2]int{}, true),   // identity
		fixed([2]int{4, 5}, [2]int{4, 5}, [2]int{1, 2}, [2]int{}, true),   // global
		fixed([2]int{3, 3}, [2]int{4, 4}, [2]int{1, 1}, [2]int{2, 2}, true),
		fixed([2]int{1, 2}, [2]int{4, 4}, [2]int{1, 2}, [2]int{2, 2}, false), // a tap past the input for every output
		fixed([2]int{8, 8}, [2]int{2, 2}, [2]int{2, 2}, [2]int{1, 1}, true),  // no tap inside for every output
		adaptive([2]int{7, 7}, [2]int{1, 1}),
		adaptive([2]int{5, 6}, [2]int{1, 1}),
		adaptive([2]int{14, 14}, [2]int{7, 7}),
		adaptive([2]int{7, 7}, [2]int{3, 3}),
		adaptive([2]int{7, 14}, [2]int{3, 7}),
		adaptive([2]int{3, 4}, [2]int{5, 7}),
		// Enough work to be shared among workers.
		{n: 2, c: 8, in: [2]int{32, 32}, out: [2]int{32, 32}, k: [2]int{3, 3}, s: [2]int{1, 1}, p: [2]int{1, 1}, shared: true},
		{n: 4, c: 16, in: [2]int{40, 48}, out: [2]int{5, 8}, adaptive: true, shared: true},
		{n: 4, c: 16, in: [2]int{40, 40}, out: [2]int{1, 1}, adaptive: true, shared: true},
	}
	var all []avgCase
	for ci, c := range cases { // in every input layout
		for l := range numLayouts {
			c.xLayout, c.dyLayout = l, (l+ci)%numLayouts
			all = append(all, c)
		}
	}
	for range 120 {
		all = append(all, randomAvgCase(r))
	}
	for _, c := range all {
		t.Run(c.String(), func(t *testing.T) { checkAvgCase(t, d, r, c) })
	}
}

// TestAvgPoolRowsPlan checks which kernels pool by rows: 2-D average
// pooling without dilation, over inputs with contiguous columns when
// forward, and not max pooling, 3-D windows, dilated ones or empty outputs.
func TestAvgPoolRowsPlan(t *testing.T) {
	d := newDevice(t, 1)
	view := func(shape []int) device.View {
		return device.Contiguous(poisoned(t, d, device.Float32, device.NumElements(shape)), device.Float32, 0, shape)
	}
	pool := func(op device.PoolOp, g device.ConvGeometry) *device.PoolKernel {
		xs, ys := append([]int{g.N, g.C}, g.In...), append([]int{g.N, g.C}, g.Out...)
		return &device.PoolKernel{Op: op, Geom: g, X: view(xs), Out: view(ys)}
	}
	g2 := geometry(1, 2, 2, 2, []int{6, 6}, []int{2, 2}, []int{2, 2}, []int{0, 0}, []int{1, 1})
	require.NotNil(t, avgPlanOf(pool(device.PoolAvg, g2)))
	require.Nil(t, avgPlanOf(pool(device.PoolMax, g2)))
	require.Nil(t, avgPlanOf(pool(device.PoolAvg, geometry(1, 2, 2, 2, []int{6, 6}, []int{2, 2}, []int{1, 1}, []int{0, 0}, []int{1, 2}))))
	require.Nil(t, avgPlanOf(pool(device.PoolAvg, geometry(1, 2, 2, 2, []int{3, 6, 6}, []int{2, 2, 2}, []int{1, 1, 1}, []int{0, 0, 0}, []int{1, 1, 1}))))
	require.NotNil(t, avgPlanOf(pool(device.PoolAvg, geometry(1, 2, 2, 2, []int{1, 6, 6}, []int{1, 2, 2}, []int{1, 1, 1}, []int{0, 0, 0}, []int{1, 1, 1}))))
	require.NotNil(t, avgPlanOf(pool(device.PoolAvg, geometry(1, 2, 2, 2, []int{9}, []int{3}, []int{2}, []int{1}, []int{1}))))
	require.Nil(t, avgPlanOf(pool(device.PoolAvg, geometry(1, 2, 2, 2, []int{2, 6}, []int{3, 3}, []int{1, 1}, []int{0, 0}, []int{1, 1}))))
	global := pool(device.PoolAvg, device.ConvGeometry{N: 1, C: 2, O: 2, Groups: 2, In: []int{7, 7}, Out: []int{1, 1}})
	global.Adaptive = true
	require.True(t, avgPlanOf(global).global)
}

// TestAvgPoolOfNegativeZerosIsPositiveZero pools planes of −0, and spreads
// output gradients of −0, for the geometries each pass of the rows path
// serves: every result is +0, as in PyTorch, whose sums start from zero.
func TestAvgPoolOfNegativeZerosIsPositiveZero(t *testing.T) {
	d := newDevice(t, 2)
	nz := math.Copysign(0, -1)
	for _, c := range []avgCase{
		{n: 2, c: 3, in: [2]int{4, 6}, out: [2]int{2, 3}, k: [2]int{2, 2}, s: [2]int{2, 2}},
		{n: 2, c: 3, in: [2]int{5, 5}, out: [2]int{5, 5}, k: [2]int{3, 3}, s: [2]int{1, 1}, p: [2]int{1, 1}, inclPad: true},
		{n: 2, c: 3, in: [2]int{7, 7}, out: [2]int{3, 3}, k: [2]int{3, 3}, s: [2]int{2, 2}},
		{n: 2, c: 3, in: [2]int{9, 9}, out: [2]int{3, 3}, k: [2]int{3, 3}, s: [2]int{3, 3}},
		{n: 2, c: 3, in: [2]int{7, 7}, out: [2]int{1, 1}, adaptive: true},
		{n: 2, c: 3, in: [2]int{14, 14}, out: [2]int{7, 7}, adaptive: true},
		{n: 2, c: 3, in: [2]int{7, 7}, out: [2]int{3, 3}, adaptive: true},
	} {
		g := c.geom()
		xs, ys := []int{c.n, c.c, c.in[0], c.in[1]}, []int{c.n, c.c, c.out[0], c.out[1]}
		for _, back := range []bool{false, true} {
			in, out := xs, ys
			if back {
				in, out = ys, xs
			}
			vals := make([]float64, device.NumElements(in))
			for i := range vals {
				vals[i] = nz
			}
			k := &device.PoolKernel{Op: device.PoolAvg, Backward: back, Adaptive: c.adaptive, CountIncludePad: c.inclPad, Geom: g,
				X:   device.Contiguous(upload(t, d, device.Float32, vals), device.Float32, 0, in),
				Out: device.Contiguous(poisoned(t, d, device.Float32, device.NumElements(out)), device.Float32, 0, out)}
			require.NoError(t, d.Pool(k))
			for i, v := range download(t, d, k.Out.Buf, device.Float32, device.NumElements(out)) {
				require.False(t, math.Signbit(v) || v != 0, "%s backward=%v: element %d is %g (sign %v)", c.String(), back, i, v, math.Signbit(v))
			}
		}
	}
}
