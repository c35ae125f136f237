package cpu

import (
	"fmt"
	"math"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/shaderflow/shaderflow/tensor/device"
)

// TestMaxPoolRowsMatchesWindows pools random 2-D geometries (window,
// stride, padding, dilation) over inputs full of ties, signed zeros,
// infinities and NaNs with distinct payloads three ways: by rows without
// indices, by rows with indices, and window by window (the same values read
// through a view whose columns are two elements apart). The values must
// agree bit for bit and match the float64 reference, and the indices must
// be the reference's: the last NaN, else the first maximum in row-major
// order, or NoWinner for a window wholly in the padding.
func TestMaxPoolRowsMatchesWindows(t *testing.T) {
	r := newRand(t)
	d := newDevice(t, 2)
	specials := []float32{0, float32(math.Copysign(0, -1)), 1, 1, -1, float32(math.Inf(1)), float32(math.Inf(-1))}
	for ci := 0; ci < 160; ci++ {
		k := [2]int{1 + r.IntN(4), 1 + r.IntN(4)}
		s := [2]int{1 + r.IntN(3), 1 + r.IntN(3)}
		dl := [2]int{1 + r.IntN(2), 1 + r.IntN(2)}
		var in, p, out [2]int
		for i := range 2 {
			ext := dl[i]*(k[i]-1) + 1
			p[i] = r.IntN(k[i]/2 + 1)
			in[i] = max(ext-2*p[i], 1) + r.IntN(12)
			out[i] = (in[i]+2*p[i]-ext)/s[i] + 1
		}
		if ci%8 == 0 { // wide rows: the vector folds' main loops
			in[1] += 40 + r.IntN(40)
			out[1] = (in[1]+2*p[1]-(dl[1]*(k[1]-1)+1))/s[1] + 1
		}
		g := device.ConvGeometry{N: 2, C: 2, O: 2, Groups: 2, In: in[:], Kernel: k[:], Out: out[:],
			Stride: s[:], Padding: p[:], Dilation: dl[:]}
		name := fmt.Sprintf("in%v/k%v/s%v/p%v/d%v/out%v", in, k, s, p, dl, out)
		t.Run(name, func(t *testing.T) {
			// Rows padded to a longer stride half the time.
			ld := in[1] + r.IntN(2)*3
			xShape := []int{g.N, g.C, in[0], in[1]}
			n := g.N * g.C * in[0] * ld
			vals := make([]float64, n+1)
			for i := range vals {
				switch v := r.IntN(10); {
				case v < 4:
					vals[i] = float64(specials[r.IntN(len(specials))])
				case v == 4 && r.IntN(4) == 0:
					vals[i] = float64(math.Float32frombits(0x7fc00000 | uint32(i))) // a NaN naming its position
				default:
					vals[i] = float64(float32(r.NormFloat64()))
				}
			}
			x := device.View{Buf: upload(t, d, device.Float32, vals), DType: device.Float32, Offset: 1, Shape: xShape,
				Strides: []int{g.C * in[0] * ld, in[0] * ld, ld, 1}}
			logical := dense(vals, x)
			spread := make([]float64, 2*len(logical))
			for i, v := range logical {
				spread[2*i] = v
			}
			xSpread := device.View{Buf: upload(t, d, device.Float32, spread), DType: device.Float32, Shape: xShape,
				Strides: []int{2 * g.C * in[0] * in[1], 2 * in[0] * in[1], 2 * in[1], 2}}
			yShape := []int{g.N, g.C, out[0], out[1]}
			ny := device.NumElements(yShape)
			kernel := func(x device.View, indices bool) *device.PoolKernel {
				k := &device.PoolKernel{Op: device.PoolMax, Geom: g, X: x,
					Out: device.Contiguous(poisoned(t, d, device.Float32, ny), device.Float32, 0, yShape)}
				if indices {
					k.Indices = device.Contiguous(poisoned(t, d, device.Int32, ny), device.Int32, 0, yShape)
				}
				require.NoError(t, d.Pool(k))
				return k
			}
			rows, rowsIdx, wins := kernel(x, false), kernel(x, true), kernel(xSpread, true)
			ref, refIdx := refPool(rows, logical)
			want := download(t, d, wins.Out.Buf, device.Float32, ny)
			wantIdx := download(t, d, wins.Indices.Buf, device.Int32, ny)
			for _, k := range []*device.PoolKernel{rows, rowsIdx} {
				got := download(t, d, k.Out.Buf, device.Float32, ny)
				for i := range got {
					if math.Float64bits(want[i]) != math.Float64bits(got[i]) {
						require.Equal(t, math.Float64bits(want[i]), math.Float64bits(got[i]), "output %d: %g by rows, %g by windows", i, got[i], want[i])
					}
					require.True(t, got[i] == ref[i] || math.IsNaN(got[i]) && math.IsNaN(ref[i]), "output %d: %g, reference %g", i, got[i], ref[i])
				}
			}
			gotIdx := download(t, d, rowsIdx.Indices.Buf, device.Int32, ny)
			for i := range gotIdx {
				if float64(refIdx[i]) != gotIdx[i] {
					require.Equal(t, float64(refIdx[i]), gotIdx[i], "index %d by rows", i)
				}
				if float64(refIdx[i]) != wantIdx[i] {
					require.Equal(t, float64(refIdx[i]), wantIdx[i], "index %d by windows", i)
				}
			}
		})
	}
}

// TestPoolEmptyOutputs pools inputs narrower than the window along one
// dimension (no output positions), forward with and without indices and
// backward, and an empty batch: no panic, and the backward's gradient is
// zero.
func TestPoolEmptyOutputs(t *testing.T) {
	d := newDevice(t, 2)
	for ci, c := range []struct{ in, s []int }{{[]int{2, 6}, []int{1, 1}}, {[]int{6, 2}, []int{1, 1}}, {[]int{7, 1}, []int{2, 2}}} {
		in := c.in
		g := geometry(2, 3, 3, 3, in, []int{3, 3}, c.s, []int{0, 0}, []int{1, 1})
		for _, op := range []device.PoolOp{device.PoolMax, device.PoolAvg} {
			t.Run(fmt.Sprintf("case%d/op%d", ci, op), func(t *testing.T) {
				xs, ys := []int{2, 3, in[0], in[1]}, []int{2, 3, g.Out[0], g.Out[1]}
				x := device.Contiguous(upload(t, d, device.Float32, make([]float64, device.NumElements(xs))), device.Float32, 0, xs)
				y := device.Contiguous(poisoned(t, d, device.Float32, 1), device.Float32, 0, ys)
				require.NoError(t, d.Pool(&device.PoolKernel{Op: op, Geom: g, X: x, Out: y}))
				var idx device.View
				if op == device.PoolMax {
					idx = device.Contiguous(poisoned(t, d, device.Int32, 1), device.Int32, 0, ys)
					require.NoError(t, d.Pool(&device.PoolKernel{Op: op, Geom: g, X: x, Out: y, Indices: idx}))
				}
				dx := device.Contiguous(poisoned(t, d, device.Float32, device.NumElements(xs)), device.Float32, 0, xs)
				require.NoError(t, d.Pool(&device.PoolKernel{Op: op, Backward: true, Geom: g, X: y, Out: dx, Indices: idx}))
				for i, v := range download(t, d, dx.Buf, device.Float32, device.NumElements(xs)) {
					require.Zero(t, v, "gradient element %d", i)
				}
			})
		}
	}
}
