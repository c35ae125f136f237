package cpu

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/shaderflow/shaderflow/tensor/device"
	"github.com/stretchr/testify/require"
)

// sp3 pads spatial sizes to three dimensions with fill in front.
func sp3(v []int, fill int) [3]int {
	r := [3]int{fill, fill, fill}
	copy(r[3-len(v):], v)
	return r
}

// refConv computes all three convolution modes in float64 by direct loops
// over (image, output channel, output position, input channel, tap),
// returning the mode's result in row-major order.
func refConv(mode device.ConvMode, g device.ConvGeometry, a, b []float64) []float64 {
	in, out, kk := sp3(g.In, 1), sp3(g.Out, 1), sp3(g.Kernel, 1)
	s, p, dl := sp3(g.Stride, 1), sp3(g.Padding, 0), sp3(g.Dilation, 1)
	cg, og := g.C/g.Groups, g.O/g.Groups
	inVol, outVol, kVol := in[0]*in[1]*in[2], out[0]*out[1]*out[2], kk[0]*kk[1]*kk[2]
	var res []float64
	switch mode {
	case device.ConvForward:
		res = make([]float64, g.N*g.O*outVol)
	case device.ConvBackwardInput:
		res = make([]float64, g.N*g.C*inVol)
	default:
		res = make([]float64, g.O*cg*kVol)
	}
	// taps[q*kVol+t] is the input position kernel element t reads for output
	// position q, or -1 in the padding.
	taps := make([]int, outVol*kVol)
	for q := range outVol {
		od, oh, ow := q/(out[1]*out[2]), q/out[2]%out[1], q%out[2]
		for t := range kVol {
			kd, kh, kw := t/(kk[1]*kk[2]), t/kk[2]%kk[1], t%kk[2]
			id, ih, iw := od*s[0]-p[0]+kd*dl[0], oh*s[1]-p[1]+kh*dl[1], ow*s[2]-p[2]+kw*dl[2]
			taps[q*kVol+t] = -1
			if id >= 0 && ih >= 0 && iw >= 0 && id < in[0] && ih < in[1] && iw < in[2] {
				taps[q*kVol+t] = (id*in[1]+ih)*in[2] + iw
			}
		}
	}
	for n := 0; n < g.N; n++ {
		for o := 0; o < g.O; o++ {
			gi := o / og
			for q := 0; q < outVol; q++ {
				yi := (n*g.O+o)*outVol + q
				for c := 0; c < cg; c++ {
					xBase, wBase := (n*g.C+gi*cg+c)*inVol, (o*cg+c)*kVol
					for t, xs := range taps[q*kVol : (q+1)*kVol] {
						if xs < 0 {
							continue
						}
						xi, wi := xBase+xs, wBase+t
						switch mode {
						case device.ConvForward:
							res[yi] += a[xi] * b[wi]
						case device.ConvBackwardInput:
							res[xi] += a[yi] * b[wi]
						default:
							res[wi] += a[yi] * b[xi]
						}
					}
				}
			}
		}
	}
	return res
}

// outSize is the convolution output size along one dimension.
func outSize(in, k, s, p, d int) int { return (in+2*p-d*(k-1)-1)/s + 1 }

// geometry builds a consistent ConvGeometry.
func geometry(n, c, o, groups int, in, k, s, p, d []int) device.ConvGeometry {
	out := make([]int, len(in))
	for i := range in {
		out[i] = outSize(in[i], k[i], s[i], p[i], d[i])
	}
	return device.ConvGeometry{N: n, C: c, O: o, Groups: groups, In: in, Kernel: k, Out: out, Stride: s, Padding: p, Dilation: d}
}

func TestConvAllModesMatchFloat64(t *testing.T) {
	r := newRand(t)
	cases := []device.ConvGeometry{
		geometry(2, 3, 4, 1, []int{11}, []int{3}, []int{1}, []int{0}, []int{1}),
		geometry(1, 2, 3, 1, []int{13}, []int{3}, []int{2}, []int{2}, []int{3}),
		geometry(2, 4, 6, 2, []int{7, 6}, []int{3, 2}, []int{2, 1}, []int{1, 0}, []int{1, 2}),
		geometry(3, 3, 3, 3, []int{9, 8}, []int{3, 3}, []int{1, 1}, []int{1, 1}, []int{1, 1}),
		geometry(2, 5, 8, 1, []int{6, 7}, []int{1, 1}, []int{1, 1}, []int{0, 0}, []int{1, 1}),
		geometry(1, 2, 4, 2, []int{5, 6, 4}, []int{2, 3, 2}, []int{2, 1, 1}, []int{1, 1, 0}, []int{1, 1, 2}),
		geometry(2, 8, 16, 1, []int{30, 31}, []int{3, 3}, []int{1, 1}, []int{1, 1}, []int{1, 1}), // several tiles
	}
	for ci, g := range cases {
		for _, mode := range []device.ConvMode{device.ConvForward, device.ConvBackwardInput, device.ConvBackwardWeight} {
			for _, workers := range []int{1, 3} {
				t.Run(fmt.Sprintf("case%d/mode%d/w%d", ci, mode, workers), func(t *testing.T) {
					d := newDevice(t, workers)
					k := &device.ConvKernel{Mode: mode, Geom: g, Epilogue: device.Identity(device.Float32)}
					xShape := append([]int{g.N, g.C}, g.In...)
					wShape := append([]int{g.O, g.C / g.Groups}, g.Kernel...)
					yShape := append([]int{g.N, g.O}, g.Out...)
					aShape, bShape := xShape, wShape
					switch mode {
					case device.ConvBackwardInput:
						aShape = yShape
					case device.ConvBackwardWeight:
						aShape, bShape = yShape, xShape
					}
					// A is stored channels-last (a transposed layout); B contiguous.
					permA := []int{0}
					for i := 2; i < len(aShape); i++ {
						permA = append(permA, i)
					}
					permA = append(permA, 1)
					a, av := strided(t, d, r, device.Float32, aShape, permA, 2)
					b, bv := strided(t, d, r, device.Float32, bShape, identityPerm(len(bShape)), 0)
					k.A, k.B = a, b
					shape := k.ResultShape()
					n := device.NumElements(shape)
					out := device.Contiguous(poisoned(t, d, device.Float32, n), device.Float32, 0, shape)
					k.Outputs = []device.View{out}
					require.NoError(t, d.Conv(k))
					want := refConv(mode, g, dense(av, a), dense(bv, b))
					requireClose(t, want, download(t, d, out.Buf, device.Float32, n), 1e-4, 1e-4, "conv")
				})
			}
		}
	}
}

func identityPerm(n int) []int {
	p := make([]int, n)
	for i := range p {
		p[i] = i
	}
	return p
}

func TestConvEpilogueBiasRelu(t *testing.T) {
	r := newRand(t)
	d := newDevice(t, 0)
	g := geometry(2, 3, 4, 1, []int{8, 7}, []int{3, 3}, []int{1, 2}, []int{1, 1}, []int{1, 1})
	x, xv := strided(t, d, r, device.Float32, []int{2, 3, 8, 7}, identityPerm(4), 0)
	w, wv := strided(t, d, r, device.Float32, []int{4, 3, 3, 3}, []int{1, 0, 2, 3}, 0) // transposed weights
	shape := append([]int{2, 4}, g.Out...)
	n := device.NumElements(shape)
	bias, biasV := strided(t, d, r, device.Float32, []int{4}, []int{0}, 0)
	bias.Shape, bias.Strides = shape, []int{0, 1, 0, 0}
	out := device.Contiguous(poisoned(t, d, device.BFloat16, n), device.BFloat16, 0, shape)
	require.NoError(t, d.Conv(&device.ConvKernel{Geom: g, A: x, B: w, EpilogueInputs: []device.View{bias}, Epilogue: biasRelu(), Outputs: []device.View{out}}))
	want := refConv(device.ConvForward, g, dense(xv, x), dense(wv, w))
	for i := range want {
		want[i] = round(device.BFloat16, math.Max(want[i]+float64(float32(at(biasV, bias, i))), 0))
	}
	requireClose(t, want, download(t, d, out.Buf, device.BFloat16, n), 1e-3, 1e-2, "conv+bias+relu")
}

// refPool pools in float64 like PyTorch's max_pool/avg_pool/adaptive pools
// (the last NaN, else the first maximum wins), forward only; it also returns the
// winners for max pooling.
func refPool(k *device.PoolKernel, x []float64) (out []float64, idx []int) {
	g := k.Geom
	in, o3 := sp3(g.In, 1), sp3(g.Out, 1)
	kk, s, p, dl := [3]int{1, 1, 1}, [3]int{1, 1, 1}, [3]int{}, [3]int{1, 1, 1}
	if !k.Adaptive {
		kk, s, p, dl = sp3(g.Kernel, 1), sp3(g.Stride, 1), sp3(g.Padding, 0), sp3(g.Dilation, 1)
	}
	inVol, outVol := in[0]*in[1]*in[2], o3[0]*o3[1]*o3[2]
	for plane := 0; plane < g.N*g.C; plane++ {
		for q := 0; q < outVol; q++ {
			oc := [3]int{q / (o3[1] * o3[2]), q / o3[2] % o3[1], q % o3[2]}
			var lo, hi [3]int // candidate input coordinates, step dl
			pad := 1
			for i := 0; i < 3; i++ {
				if k.Adaptive {
					lo[i], hi[i] = oc[i]*in[i]/o3[i], int(math.Ceil(float64((oc[i]+1)*in[i])/float64(o3[i])))
					continue
				}
				lo[i] = oc[i]*s[i] - p[i]
				hi[i] = lo[i] + (kk[i]-1)*dl[i] + 1
				cnt := 0
				for c := lo[i]; c < hi[i]; c += dl[i] {
					if c < in[i]+p[i] {
						cnt++
					}
				}
				pad *= cnt
			}
			best, arg, sum, cnt := math.Inf(-1), -1, 0.0, 0
			for a := lo[0]; a < hi[0]; a += dl[0] {
				for b := lo[1]; b < hi[1]; b += dl[1] {
					for c := lo[2]; c < hi[2]; c += dl[2] {
						if a < 0 || b < 0 || c < 0 || a >= in[0] || b >= in[1] || c >= in[2] {
							continue
						}
						pos := (a*in[1]+b)*in[2] + c
						v := x[plane*inVol+pos]
						sum += v
						cnt++
						if arg < 0 || v > best || math.IsNaN(v) {
							best, arg = v, pos
						}
					}
				}
			}
			switch {
			case k.Op == device.PoolMax:
				out, idx = append(out, best), append(idx, arg)
			case k.CountIncludePad && !k.Adaptive:
				out = append(out, sum/float64(pad))
			default:
				out = append(out, sum/float64(cnt))
			}
		}
	}
	return out, idx
}

func TestPoolForwardBackward(t *testing.T) {
	r := newRand(t)
	type pc struct {
		op       device.PoolOp
		adaptive bool
		incl     bool
		g        device.ConvGeometry
	}
	pg := func(n, c int, in, k, s, p, d []int) device.ConvGeometry {
		g := geometry(n, c, c, c, in, k, s, p, d)
		return g
	}
	ad := func(n, c int, in, out []int) device.ConvGeometry {
		return device.ConvGeometry{N: n, C: c, O: c, Groups: c, In: in, Out: out}
	}
	cases := []pc{
		{device.PoolMax, false, false, pg(2, 3, []int{8, 8}, []int{2, 2}, []int{2, 2}, []int{0, 0}, []int{1, 1})},
		{device.PoolMax, false, false, pg(2, 3, []int{11, 13}, []int{2, 2}, []int{2, 2}, []int{0, 0}, []int{1, 1})},
		{device.PoolMax, false, false, pg(1, 2, []int{26, 26}, []int{2, 2}, []int{2, 2}, []int{0, 0}, []int{1, 1})},
		{device.PoolMax, false, false, pg(1, 1, []int{5, 41}, []int{2, 2}, []int{2, 2}, []int{0, 0}, []int{1, 1})},
		{device.PoolMax, false, false, pg(2, 3, []int{9, 8}, []int{3, 3}, []int{2, 2}, []int{1, 1}, []int{1, 1})},
		{device.PoolMax, false, false, pg(1, 2, []int{9, 11}, []int{2, 3}, []int{1, 2}, []int{0, 1}, []int{2, 1})},
		{device.PoolMax, false, false, pg(1, 2, []int{10}, []int{4}, []int{3}, []int{2}, []int{1})},
		{device.PoolMax, false, false, pg(1, 1, []int{5, 4, 6}, []int{2, 2, 3}, []int{2, 1, 2}, []int{1, 0, 1}, []int{1, 1, 1})},
		{device.PoolAvg, false, true, pg(2, 3, []int{9, 8}, []int{3, 3}, []int{2, 2}, []int{1, 1}, []int{1, 1})},
		{device.PoolAvg, false, false, pg(2, 3, []int{9, 8}, []int{3, 3}, []int{2, 2}, []int{1, 1}, []int{1, 1})},
		{device.PoolAvg, false, true, pg(1, 2, []int{11}, []int{4}, []int{3}, []int{2}, []int{1})},
		{device.PoolAvg, true, false, ad(2, 3, []int{9, 4}, []int{4, 3})},
		{device.PoolAvg, true, false, ad(1, 2, []int{5, 7}, []int{4, 5})},
		{device.PoolMax, true, false, ad(2, 2, []int{10, 3}, []int{3, 2})},
		{device.PoolAvg, true, false, ad(1, 1, []int{3, 4, 5}, []int{2, 3, 2})},
	}
	for ci, c := range cases {
		// Channels outermost in memory (planes with contiguous rows), and
		// for 2-D, rows and columns swapped (the general window loops).
		perms := [][]int{append([]int{1, 0}, identityPerm(len(c.g.In) + 2)[2:]...)}
		if len(c.g.In) == 2 {
			perms = append(perms, []int{0, 1, 3, 2})
		}
		for pi, perm := range perms {
			for _, workers := range []int{1, 3} {
				t.Run(fmt.Sprintf("case%d/perm%d/w%d", ci, pi, workers), func(t *testing.T) {
					d := newDevice(t, workers)
					g := c.g
					xShape := append([]int{g.N, g.C}, g.In...)
					yShape := append([]int{g.N, g.C}, g.Out...)
					x, xv := strided(t, d, r, device.Float32, xShape, perm, 3)
					if c.op == device.PoolMax { // a NaN and ties
						xv[x.Index(5)] = math.NaN()
						xv[x.Index(0)], xv[x.Index(1)] = 5, 5
						require.NoError(t, d.Write(x.Buf, 0, encode(device.Float32, xv)))
					}
					ny, nx := device.NumElements(yShape), device.NumElements(xShape)
					k := &device.PoolKernel{Op: c.op, Adaptive: c.adaptive, CountIncludePad: c.incl, Geom: g, X: x,
						Out: device.Contiguous(poisoned(t, d, device.Float32, ny), device.Float32, 0, yShape)}
					if c.op == device.PoolMax {
						k.Indices = device.Contiguous(poisoned(t, d, device.Int32, ny), device.Int32, 0, yShape)
					}
					require.NoError(t, d.Pool(k))
					xd := dense(xv, x)
					want, wantIdx := refPool(k, xd)
					requireClose(t, want, download(t, d, k.Out.Buf, device.Float32, ny), 1e-6, 1e-6, "forward")
					if c.op == device.PoolMax {
						got := download(t, d, k.Indices.Buf, device.Int32, ny)
						for i := range wantIdx {
							if float64(wantIdx[i]) != got[i] {
								require.Equal(t, float64(wantIdx[i]), got[i], "index %d", i)
							}
						}
					}

					// Backward with a transposed dY.
					dy, dyv := strided(t, d, r, device.Float32, yShape, perm, 1)
					bk := *k
					bk.Backward, bk.X = true, dy
					bk.Out = device.Contiguous(poisoned(t, d, device.Float32, nx), device.Float32, 0, xShape)
					require.NoError(t, d.Pool(&bk))
					dyd := dense(dyv, dy)
					wantDX := make([]float64, nx)
					inVol, outVol := nx/(g.N*g.C), ny/(g.N*g.C)
					if c.op == device.PoolMax {
						for q := 0; q < ny; q++ {
							wantDX[q/outVol*inVol+wantIdx[q]] += dyd[q]
						}
					} else {
						// Average pooling is linear: dX = Jᵀ·dY, with column i of J
						// the reference pooling of the unit impulse at i.
						unit := make([]float64, nx)
						for i := 0; i < nx; i++ {
							unit[i] = 1
							col, _ := refPool(k, unit)
							unit[i] = 0
							for q, v := range col {
								wantDX[i] += v * dyd[q]
							}
						}
					}
					requireClose(t, wantDX, download(t, d, bk.Out.Buf, device.Float32, nx), 1e-5, 1e-5, "backward")
				})
			}
		}
	}
}

// TestMaxPoolBackwardForeignIndices gives 2×2 max pooling's backward indices
// that the forward could not have made (a window's winner elsewhere in the
// plane, two windows naming one position, with an odd-sized input): the
// gradient is still scattered to them and summed.
func TestMaxPoolBackwardForeignIndices(t *testing.T) {
	d := newDevice(t, 0)
	g := geometry(1, 1, 1, 1, []int{5, 5}, []int{2, 2}, []int{2, 2}, []int{0, 0}, []int{1, 1})
	dy := device.Contiguous(upload(t, d, device.Float32, []float64{1, 2, 3, 4}), device.Float32, 0, []int{1, 1, 2, 2})
	idx := device.Contiguous(upload(t, d, device.Int32, []float64{24, 24, 0, 18}), device.Int32, 0, []int{1, 1, 2, 2})
	out := device.Contiguous(poisoned(t, d, device.Float32, 25), device.Float32, 0, []int{1, 1, 5, 5})
	require.NoError(t, d.Pool(&device.PoolKernel{Backward: true, Geom: g, X: dy, Out: out, Indices: idx}))
	want := make([]float64, 25)
	want[24], want[0], want[18] = 3, 3, 4
	require.Equal(t, want, download(t, d, out.Buf, device.Float32, 25))
}

func TestPoolBackwardBadIndexIsError(t *testing.T) {
	d := newDevice(t, 0)
	g := device.ConvGeometry{N: 1, C: 1, O: 1, Groups: 1, In: []int{4}, Kernel: []int{2}, Out: []int{2}, Stride: []int{2}, Padding: []int{0}, Dilation: []int{1}}
	dy := device.Contiguous(upload(t, d, device.Float32, []float64{1, 2}), device.Float32, 0, []int{1, 1, 2})
	idx := device.Contiguous(upload(t, d, device.Int32, []float64{1, 9}), device.Int32, 0, []int{1, 1, 2})
	out := device.Contiguous(poisoned(t, d, device.Float32, 4), device.Float32, 0, []int{1, 1, 4})
	err := ran(d, d.Pool(&device.PoolKernel{Backward: true, Geom: g, X: dy, Out: out, Indices: idx}))
	require.ErrorContains(t, err, "index 9")
}

// TestConvBandsMatchFloat64 runs forward and weight-gradient convolutions
// whose patches come from padded bands of input rows (contiguous columns,
// images wide enough for several tiles) over geometries with padding at the
// first and last tiles, strides (by phases along the width), dilation and
// groups, on images whose rows and channels lie further apart than dense.
func TestConvBandsMatchFloat64(t *testing.T) {
	r := newRand(t)
	cases := []device.ConvGeometry{
		geometry(2, 256, 4, 1, []int{21, 10}, []int{3, 3}, []int{1, 1}, []int{1, 1}, []int{1, 1}),
		geometry(1, 256, 3, 1, []int{29, 9}, []int{3, 3}, []int{2, 1}, []int{1, 1}, []int{2, 1}),
		geometry(1, 300, 4, 2, []int{40, 7}, []int{5, 3}, []int{1, 1}, []int{2, 1}, []int{1, 2}),
		geometry(1, 200, 2, 1, []int{33, 6}, []int{2, 2}, []int{3, 1}, []int{1, 1}, []int{1, 1}),
		geometry(1, 256, 3, 1, []int{30, 21}, []int{3, 3}, []int{2, 2}, []int{1, 1}, []int{1, 1}),
		geometry(2, 3, 8, 1, []int{60, 59}, []int{7, 7}, []int{2, 2}, []int{3, 3}, []int{1, 1}),
		geometry(1, 200, 2, 1, []int{20, 23}, []int{3, 3}, []int{1, 3}, []int{1, 2}, []int{1, 2}),
		geometry(5, 16, 8, 2, []int{9, 11}, []int{3, 3}, []int{1, 2}, []int{1, 1}, []int{1, 1}), // images side by side
		geometry(3, 24, 8, 1, []int{12, 17}, []int{3, 3}, []int{2, 3}, []int{1, 1}, []int{1, 1}),
	}
	for ci, g := range cases {
		for _, mode := range []device.ConvMode{device.ConvForward, device.ConvBackwardWeight} {
			for _, workers := range []int{1, 3} {
				t.Run(fmt.Sprintf("case%d/mode%d/w%d", ci, mode, workers), func(t *testing.T) {
					d := newDevice(t, workers)
					x, xv := sparseImages(t, d, r, g)
					k := &device.ConvKernel{Mode: mode, Geom: g, Epilogue: device.Identity(device.Float32)}
					var want []float64
					if mode == device.ConvForward {
						w, wv := strided(t, d, r, device.Float32, []int{g.O, g.C / g.Groups, g.Kernel[0], g.Kernel[1]}, identityPerm(4), 0)
						k.A, k.B = x, w
						want = refConv(mode, g, dense(xv, x), dense(wv, w))
					} else {
						dy, dyv := strided(t, d, r, device.Float32, []int{g.N, g.O, g.Out[0], g.Out[1]}, identityPerm(4), 0)
						k.A, k.B = dy, x
						want = refConv(mode, g, dense(dyv, dy), dense(xv, x))
					}
					shape := k.ResultShape()
					n := device.NumElements(shape)
					k.Outputs = []device.View{device.Contiguous(poisoned(t, d, device.Float32, n), device.Float32, 0, shape)}
					require.NoError(t, d.Conv(k))
					requireClose(t, want, download(t, d, k.Outputs[0].Buf, device.Float32, n), 1e-4, 1e-4, "conv")
				})
			}
		}
	}
}

// TestConvEmptyOutputs runs every mode on geometries whose output has no
// positions along one dimension (an input narrower than the dilated
// window), and on empty batches: results are zeros or empty, never a
// panic.
func TestConvEmptyOutputs(t *testing.T) {
	d := newDevice(t, 2)
	cases := []device.ConvGeometry{
		geometry(2, 3, 4, 1, []int{5, 2}, []int{3, 3}, []int{1, 1}, []int{0, 0}, []int{1, 1}),
		geometry(2, 3, 4, 1, []int{2, 6}, []int{3, 3}, []int{1, 1}, []int{0, 0}, []int{1, 1}),
		geometry(0, 3, 4, 1, []int{6, 6}, []int{3, 3}, []int{1, 1}, []int{1, 1}, []int{1, 1}),
	}
	for ci, g := range cases {
		for _, mode := range []device.ConvMode{device.ConvForward, device.ConvBackwardInput, device.ConvBackwardWeight} {
			t.Run(fmt.Sprintf("case%d/mode%d", ci, mode), func(t *testing.T) {
				x := []int{g.N, g.C, g.In[0], g.In[1]}
				w := []int{g.O, g.C, g.Kernel[0], g.Kernel[1]}
				y := []int{g.N, g.O, g.Out[0], g.Out[1]}
				view := func(shape []int) device.View {
					return device.Contiguous(poisoned(t, d, device.Float32, max(1, device.NumElements(shape))), device.Float32, 0, shape)
				}
				k := &device.ConvKernel{Mode: mode, Geom: g, Epilogue: device.Identity(device.Float32)}
				switch mode {
				case device.ConvForward:
					k.A, k.B = view(x), view(w)
				case device.ConvBackwardInput:
					k.A, k.B = view(y), view(w)
				default:
					k.A, k.B = view(y), view(x)
				}
				shape := k.ResultShape()
				n := device.NumElements(shape)
				k.Outputs = []device.View{view(shape)}
				require.NoError(t, d.Conv(k))
				for i, v := range download(t, d, k.Outputs[0].Buf, device.Float32, n) {
					require.Zero(t, v, "element %d", i)
				}
			})
		}
	}
}

// TestConvTapsMatchFloat64 runs forward convolutions whose products sum
// over kernel rows from row patches (conv_taps.go): several tiles with a
// short last one, groups, dilation, no padding, taller and wider kernels, a
// single kernel column, more channels than a depth block, width strides,
// rows and planes of X further apart than dense, on one worker and on
// images in parallel.
func TestConvTapsMatchFloat64(t *testing.T) {
	r := newRand(t)
	cases := []device.ConvGeometry{
		geometry(4, 64, 20, 1, []int{30, 40}, []int{3, 3}, []int{1, 1}, []int{1, 1}, []int{1, 1}),
		geometry(3, 64, 30, 2, []int{20, 33}, []int{3, 3}, []int{1, 1}, []int{1, 1}, []int{1, 1}),
		geometry(2, 40, 17, 1, []int{25, 36}, []int{3, 3}, []int{1, 1}, []int{2, 2}, []int{2, 2}),
		geometry(2, 32, 33, 1, []int{19, 24}, []int{5, 3}, []int{1, 1}, []int{2, 1}, []int{1, 1}),
		geometry(2, 48, 29, 1, []int{21, 26}, []int{3, 3}, []int{1, 1}, []int{0, 0}, []int{1, 1}),
		geometry(2, 32, 16, 1, []int{24, 20}, []int{3, 1}, []int{1, 1}, []int{1, 0}, []int{1, 1}),
		geometry(2, 300, 14, 1, []int{6, 20}, []int{3, 3}, []int{1, 1}, []int{1, 1}, []int{1, 1}),
		geometry(2, 32, 20, 1, []int{20, 41}, []int{3, 3}, []int{1, 2}, []int{1, 1}, []int{1, 1}),
		geometry(3, 16, 9, 1, []int{17, 60}, []int{3, 3}, []int{1, 3}, []int{2, 1}, []int{1, 2}),
		// Small images, once batched into one product (the CNN's conv2).
		geometry(6, 32, 64, 1, []int{13, 13}, []int{3, 3}, []int{1, 1}, []int{0, 0}, []int{1, 1}),
		geometry(5, 32, 64, 1, []int{14, 14}, []int{3, 3}, []int{1, 1}, []int{1, 1}, []int{1, 1}),
	}
	for ci, g := range cases {
		op := drawConvForward(r, g)
		for _, workers := range []int{1, 3} {
			t.Run(fmt.Sprintf("case%d/w%d", ci, workers), func(t *testing.T) {
				d := newDevice(t, workers)
				k := op.kernel(t, d)
				j := newConvJob(g)
				j.setImage(nil, k.A)
				require.Equal(t, sgemmTaps != nil, j.usesTaps() && j.forwardImagesPerCall(workers) == 1, "the products sum over kernel rows wherever the level can")
				require.NoError(t, d.Conv(k))
				requireClose(t, op.want, download(t, d, k.Outputs[0].Buf, device.Float32, len(op.want)), 1e-4, 1e-4, "conv")
			})
		}
	}
}

// TestConvWinogradMatchesFloat64 runs forward 3×3 convolutions that take
// Winograd's F(2×2, 3×3) (conv_winograd.go) against the float64 reference:
// odd output sizes (tiles past the edge), no padding and padding two, bands
// of one image's tile rows and groups of small images, X with rows and
// planes further apart than dense, one worker and images in parallel, and
// the same convolutions with the transforms switched off.
func TestConvWinogradMatchesFloat64(t *testing.T) {
	r := newRand(t)
	cases := []device.ConvGeometry{
		geometry(2, 32, 32, 1, []int{9, 11}, []int{3, 3}, []int{1, 1}, []int{1, 1}, []int{1, 1}),
		geometry(3, 64, 40, 1, []int{14, 14}, []int{3, 3}, []int{1, 1}, []int{1, 1}, []int{1, 1}),
		geometry(2, 33, 35, 1, []int{7, 7}, []int{3, 3}, []int{1, 1}, []int{0, 0}, []int{1, 1}),
		geometry(2, 40, 48, 1, []int{8, 13}, []int{3, 3}, []int{1, 1}, []int{2, 2}, []int{1, 1}),
		geometry(2, 256, 32, 1, []int{4, 3}, []int{3, 3}, []int{1, 1}, []int{1, 1}, []int{1, 1}),
		// From here on, enough pieces of work for two workers.
		geometry(21, 32, 64, 1, []int{7, 7}, []int{3, 3}, []int{1, 1}, []int{1, 1}, []int{1, 1}),
		geometry(2, 32, 33, 1, []int{41, 37}, []int{3, 3}, []int{1, 1}, []int{1, 1}, []int{1, 1}),
		// The production thresholds' smallest case (one worker, transforms on).
		geometry(1, 128, 128, 1, []int{13, 14}, []int{3, 3}, []int{1, 1}, []int{1, 1}, []int{1, 1}),
	}
	const parallelFrom, production = 5, 7
	for ci, g := range cases {
		op := drawConvForward(r, g)
		// Rounding grows with Σ|w·x|, which the transforms' sums reach for
		// C·9 terms: allow 16 units of float32 times the square root of the
		// terms (a random walk; the errors seen are under a hundredth of
		// it, a wrong transform's are of the order of the values).
		mag := refConv(device.ConvForward, g, absAll(op.xd), absAll(op.wd))
		for _, workers := range []int{1, 2} {
			for _, on := range []bool{true, false} {
				if ci == production && (workers > 1 || !on) {
					continue
				}
				t.Run(fmt.Sprintf("case%d/w%d/winograd=%v", ci, workers, on), func(t *testing.T) {
					defer func(on bool, c, across int) {
						winogradEnabled, winogradMinChannels, winogradMinTilesAcross = on, c, across
					}(winogradEnabled, winogradMinChannels, winogradMinTilesAcross)
					winogradEnabled = on
					if ci != production {
						winogradMinChannels, winogradMinTilesAcross = 1, 1
					}
					d := newDevice(t, workers)
					k := op.kernel(t, d)
					j := &convJob{g: norm3(g, false)}
					j.setImage(nil, k.A)
					_, used := j.winograd(workers)
					if workers == 1 || ci >= parallelFrom && ci != production {
						require.Equal(t, on && sgemmTaps != nil, used, "Winograd's products wherever the level has them")
					}
					require.NoError(t, d.Conv(k))
					got := download(t, d, k.Outputs[0].Buf, device.Float32, len(op.want))
					for i, want := range op.want {
						tol := 16 * 0x1p-23 * math.Sqrt(float64(9*g.C)) * mag[i]
						require.InDelta(t, want, got[i], tol, "case %d: output %d (Σ|w·x| = %g)", ci, i, mag[i])
					}
				})
			}
		}
	}
}

// TestConvWinogradEpilogue checks that the epilogue (bias and ReLU) runs
// over Winograd's outputs both ways: per group of whole images on the
// worker that computed them, and over the whole result after bands of one
// image's tile rows.
func TestConvWinogradEpilogue(t *testing.T) {
	defer func(c, across int) { winogradMinChannels, winogradMinTilesAcross = c, across }(winogradMinChannels, winogradMinTilesAcross)
	winogradMinChannels, winogradMinTilesAcross = 1, 1
	r := newRand(t)
	for _, g := range []device.ConvGeometry{
		geometry(21, 32, 64, 1, []int{7, 7}, []int{3, 3}, []int{1, 1}, []int{1, 1}, []int{1, 1}),
		geometry(2, 32, 33, 1, []int{41, 37}, []int{3, 3}, []int{1, 1}, []int{1, 1}, []int{1, 1}),
	} {
		d := newDevice(t, 2)
		x, xv := strided(t, d, r, device.Float32, []int{g.N, g.C, g.In[0], g.In[1]}, identityPerm(4), 0)
		w, wv := strided(t, d, r, device.Float32, []int{g.O, g.C, 3, 3}, identityPerm(4), 0)
		j := &convJob{g: norm3(g, false)}
		j.setImage(nil, x)
		p, used := j.winograd(2)
		require.Equal(t, sgemmTaps != nil, used)
		shape := append([]int{g.N, g.O}, g.Out...)
		n := device.NumElements(shape)
		bias, biasV := strided(t, d, r, device.Float32, []int{g.O}, []int{0}, 0)
		bias.Shape, bias.Strides = shape, []int{0, 1, 0, 0}
		out := device.Contiguous(poisoned(t, d, device.Float32, n), device.Float32, 0, shape)
		require.NoError(t, d.Conv(&device.ConvKernel{Geom: g, A: x, B: w, EpilogueInputs: []device.View{bias}, Epilogue: biasRelu(), Outputs: []device.View{out}}))
		want := refConv(device.ConvForward, g, dense(xv, x), dense(wv, w))
		for i := range want {
			want[i] = math.Max(want[i]+float64(float32(at(biasV, bias, i))), 0)
		}
		requireClose(t, want, download(t, d, out.Buf, device.Float32, n), 1e-3, 1e-4, fmt.Sprintf("conv+bias+relu, %d bands", p.bands))
	}
}

// sparseImages returns random 2-D images for g whose rows lie 3 floats and
// whose channel planes 5 floats further apart than dense, and their values
// (the gaps included).
func sparseImages(t *testing.T, d *Device, r *rand.Rand, g device.ConvGeometry) (device.View, []float64) {
	xv := randVals(r, sparseLen(g))
	return sparseView(g, upload(t, d, device.Float32, xv)), xv
}

// sparseView is the layout sparseImages gives images of g, over buf; it
// spans sparseLen(g) floats.
func sparseView(g device.ConvGeometry, buf device.Buffer) device.View {
	ih, iw := g.In[0], g.In[1]
	ld, plane := iw+3, (iw+3)*ih+5
	return device.View{Buf: buf, DType: device.Float32, Shape: []int{g.N, g.C, ih, iw}, Strides: []int{g.C * plane, plane, ld, 1}}
}

// sparseLen is the number of floats sparseView's images span.
func sparseLen(g device.ConvGeometry) int { return g.N * sparseView(g, nil).Strides[0] }

// convForwardDraw is one draw of a 2-D forward convolution's operands:
// images laid out by sparseView and contiguous weights, as float64 values
// and as the float32 values the device sees (xd, wd), with the float64
// reference of the result, so that a test's variants of one geometry
// compute the slow reference once.
type convForwardDraw struct {
	g              device.ConvGeometry
	xv, wv, xd, wd []float64
	want           []float64
}

// drawConvForward draws a forward convolution of geometry g from r.
func drawConvForward(r *rand.Rand, g device.ConvGeometry) *convForwardDraw {
	op := &convForwardDraw{g: g, xv: randVals(r, sparseLen(g))}
	op.wv = randVals(r, device.NumElements(op.weightShape()))
	op.xd = dense(op.xv, sparseView(g, nil))
	op.wd = dense(op.wv, device.Contiguous(nil, device.Float32, 0, op.weightShape()))
	op.want = refConv(device.ConvForward, g, op.xd, op.wd)
	return op
}

// weightShape is the shape of the weights, [O, C/groups, kh, kw].
func (op *convForwardDraw) weightShape() []int {
	g := op.g
	return []int{g.O, g.C / g.Groups, g.Kernel[0], g.Kernel[1]}
}

// kernel uploads the operands to d and returns the forward kernel into a
// poisoned output.
func (op *convForwardDraw) kernel(t *testing.T, d *Device) *device.ConvKernel {
	g := op.g
	k := &device.ConvKernel{Mode: device.ConvForward, Geom: g, Epilogue: device.Identity(device.Float32),
		A: sparseView(g, upload(t, d, device.Float32, op.xv)),
		B: device.Contiguous(upload(t, d, device.Float32, op.wv), device.Float32, 0, op.weightShape())}
	shape := k.ResultShape()
	n := device.NumElements(shape)
	k.Outputs = []device.View{device.Contiguous(poisoned(t, d, device.Float32, n), device.Float32, 0, shape)}
	return k
}

// TestConvCol2Im3x3MatchesFloat64 checks the input gradients of 3×3,
// stride-one convolutions, padded or not, whose col2im sums each element in
// a register (col2im3x3): into poisoned outputs, so that every element must
// be set, over images batched side by side and whole single images.
func TestConvCol2Im3x3MatchesFloat64(t *testing.T) {
	r := newRand(t)
	cases := []device.ConvGeometry{
		geometry(6, 8, 12, 1, []int{14, 14}, []int{3, 3}, []int{1, 1}, []int{1, 1}, []int{1, 1}), // the CNN's conv2, smaller
		geometry(3, 4, 6, 2, []int{9, 11}, []int{3, 3}, []int{1, 1}, []int{2, 2}, []int{1, 1}),
		geometry(2, 3, 5, 1, []int{7, 10}, []int{3, 3}, []int{1, 1}, []int{1, 0}, []int{1, 1}),
		geometry(2, 3, 5, 1, []int{8, 6}, []int{3, 3}, []int{1, 1}, []int{0, 2}, []int{1, 1}),
		geometry(2, 5, 4, 1, []int{9, 9}, []int{3, 3}, []int{1, 1}, []int{0, 0}, []int{1, 1}),
		geometry(2, 4, 7, 1, []int{40, 33}, []int{3, 3}, []int{1, 1}, []int{1, 1}, []int{1, 1}), // one image a product
	}
	for ci, g := range cases {
		for _, workers := range []int{1, 3} {
			t.Run(fmt.Sprintf("case%d/w%d", ci, workers), func(t *testing.T) {
				d := newDevice(t, workers)
				j := newConvJob(g)
				require.True(t, j.col2im3x3(), "col2im sums in registers")
				y, yv := strided(t, d, r, device.Float32, append([]int{g.N, g.O}, g.Out...), identityPerm(4), 0)
				w, wv := strided(t, d, r, device.Float32, []int{g.O, g.C / g.Groups, 3, 3}, identityPerm(4), 0)
				k := &device.ConvKernel{Mode: device.ConvBackwardInput, Geom: g, Epilogue: device.Identity(device.Float32), A: y, B: w}
				shape := k.ResultShape()
				n := device.NumElements(shape)
				k.Outputs = []device.View{device.Contiguous(poisoned(t, d, device.Float32, n), device.Float32, 0, shape)}
				require.NoError(t, d.Conv(k))
				want := refConv(device.ConvBackwardInput, g, dense(yv, y), dense(wv, w))
				requireClose(t, want, download(t, d, k.Outputs[0].Buf, device.Float32, n), 1e-4, 1e-4, "conv")
			})
		}
	}
}
