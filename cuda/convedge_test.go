//go:build cgo && linux

package cuda

import (
	"fmt"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/shaderflow/shaderflow/gpu/gputest"
	"github.com/shaderflow/shaderflow/tensor/device"
)

// withOut completes a geometry with the output size its validation
// requires (floor((In + 2P - D(K-1) - 1) / S) + 1, at least 0).
func withOut(g device.ConvGeometry) device.ConvGeometry {
	g.Out = make([]int, len(g.In))
	for i := range g.In {
		g.Out[i] = max(0, (g.In[i]+2*g.Padding[i]-g.Dilation[i]*(g.Kernel[i]-1)-1)/g.Stride[i]+1)
	}
	return g
}

// convEpilogue is a five-output epilogue over inputs (acc, an f16 bias, an
// int32 term): relu(acc + bias) as f32, acc * 0.5 as bf16, int(acc) +
// term as i32, acc > 0 as bool, and acc plus the position plus a uniform
// random number as f16.
func convEpilogue() device.Program {
	f32, i32 := device.Float32, device.Int32
	var e device.Builder
	acc := e.Input(0, f32)
	e.Output(e.Unary(device.OpRelu, e.Binary(device.OpAdd, acc, e.Input(1, f32))))
	e.Output(e.Binary(device.OpMul, acc, e.Const(0.5, f32)))
	e.Output(e.Binary(device.OpAdd, e.Cast(acc, i32), e.Input(2, i32)))
	e.Output(e.Binary(device.OpGt, acc, e.Const(0, f32)))
	e.Output(e.Binary(device.OpAdd, e.Binary(device.OpAdd, acc, e.Cast(e.Index(), f32)), e.Rand(42, false)))
	return e.P
}

// convOutDTypes are the dtypes of convEpilogue's outputs and their
// tolerances (the result differs from the CPU's in rounding only); the
// float32 output's grows with the sum's length (sumTol).
var convOutDTypes = []struct {
	dt device.DType
	tl gputest.Tol
}{
	{device.Float32, gputest.Tol{Abs: 1e-5, Rel: 1e-5}}, {device.BFloat16, gputest.Tol{Abs: 1e-5, Rel: 1e-2}},
	{device.Int32, gputest.Tol{Abs: 1}}, {device.Bool, gputest.Exact}, {device.Float16, gputest.Tol{Abs: 1e-3, Rel: 1e-3}},
}

// convTerms is the most products one result of mode adds: a window of one
// group's channels forward, of one group's output channels backward to the
// input, and every batch and output position for the weight gradient.
func convTerms(mode device.ConvMode, g device.ConvGeometry) int {
	window := device.NumElements(g.Kernel)
	switch mode {
	case device.ConvBackwardInput:
		return g.O / max(g.Groups, 1) * window
	case device.ConvBackwardWeight:
		return g.N * device.NumElements(g.Out)
	}
	return g.C / max(g.Groups, 1) * window
}

// sumTol is the tolerance between two float32 sums of n products of
// standard normal values added in different orders: each addition rounds
// by up to half an ulp of a partial sum of about sqrt(n), so n roundings
// drift by about n/2 ulps of one; the tolerance allows eight times that.
func sumTol(n int) gputest.Tol {
	const ulp = 0x1p-23
	return gputest.Tol{Abs: 1e-5 + 4*float64(n)*ulp, Rel: 1e-5}
}

// TestConvEdgeCases runs convolutions the shared tests do not, against the
// CPU backend: 1-D and 3-D geometries with groups, strides larger than the
// window, padding and dilation in every mode, operands transposed, offset
// and broadcast (stride 0), a five-output epilogue of every dtype with f16
// and transposed int32 inputs, positions and random numbers, an empty
// depth (C = 0, N = 0 for the weight gradient) and an empty result, on the
// direct kernel and then with the ungrouped ones as products over patch
// matrices (convGEMM); then it compiles every source they generated to PTX
// with clang-19.
func TestConvEdgeCases(t *testing.T) {
	tw := newTwins(t)
	d := tw.devs[0].(*Device)
	d.direct = true
	convEdgeCases(tw)
	d.direct = false
	convEdgeCases(tw) // the ungrouped cases as products over patch matrices
	assert.Positive(t, tw.f.count(t, "cuLaunchKernel sf_col2im"))
	t.Run("PTX", func(t *testing.T) { compileSourcesToPTX(t, generatedSources(t, tw.f, cvEntry), cvEntry) })
}

// convEdgeCases runs TestConvEdgeCases's kernels on tw.
func convEdgeCases(tw *twins) {
	f32, f16, i32 := device.Float32, device.Float16, device.Int32
	type layouts struct{ a, b layout }
	cases := []struct {
		g   device.ConvGeometry
		lay [3]layouts // per mode
	}{
		{withOut(device.ConvGeometry{N: 2, C: 6, O: 4, Groups: 2, In: []int{5, 6, 4}, Kernel: []int{2, 3, 2},
			Stride: []int{2, 1, 3}, Padding: []int{1, 1, 0}, Dilation: []int{2, 1, 1}}),
			[3]layouts{
				{layout{perm: []int{0, 2, 1, 4, 3}, offset: 5}, layout{perm: []int{4, 3, 2, 1, 0}}},
				{layout{broadcast: []int{0}, offset: 2}, layout{perm: []int{1, 0, 2, 3, 4}}},
				{layout{perm: []int{1, 0, 4, 2, 3}}, layout{perm: []int{4, 3, 2, 1, 0}, offset: 1}},
			}},
		{withOut(device.ConvGeometry{N: 1, C: 3, O: 6, Groups: 3, In: []int{10}, Kernel: []int{2},
			Stride: []int{3}, Padding: []int{1}, Dilation: []int{3}}),
			[3]layouts{{layout{perm: []int{2, 1, 0}}, layout{}}, {layout{}, layout{broadcast: []int{2}}}, {layout{offset: 3}, layout{perm: []int{2, 0, 1}}}}},
		{withOut(device.ConvGeometry{N: 2, C: 4, O: 2, Groups: 1, In: []int{3, 9}, Kernel: []int{3, 1},
			Stride: []int{1, 2}, Padding: []int{2, 0}, Dilation: []int{1, 1}}),
			[3]layouts{{layout{}, layout{}}, {layout{perm: []int{3, 2, 1, 0}}, layout{}}, {layout{}, layout{broadcast: []int{1}}}}},
		// Weight gradients long enough for the block-per-result kernel.
		{withOut(device.ConvGeometry{N: 3, C: 4, O: 4, Groups: 2, In: []int{20, 19}, Kernel: []int{3, 3},
			Stride: []int{1, 2}, Padding: []int{1, 1}, Dilation: []int{1, 1}}),
			[3]layouts{{layout{}, layout{}}, {layout{}, layout{}}, {layout{perm: []int{1, 0, 3, 2}, offset: 2}, layout{perm: []int{0, 1, 3, 2}}}}},
		{withOut(device.ConvGeometry{N: 5, C: 2, O: 3, Groups: 1, In: []int{130}, Kernel: []int{4},
			Stride: []int{1}, Padding: []int{2}, Dilation: []int{2}}),
			[3]layouts{{layout{}, layout{}}, {layout{}, layout{}}, {layout{broadcast: []int{0}}, layout{perm: []int{2, 1, 0}, offset: 1}}}},
		{withOut(device.ConvGeometry{N: 2, C: 0, O: 2, Groups: 1, In: []int{4}, Kernel: []int{2},
			Stride: []int{1}, Padding: []int{0}, Dilation: []int{1}}), [3]layouts{}},
		{withOut(device.ConvGeometry{N: 0, C: 2, O: 2, Groups: 2, In: []int{4, 4}, Kernel: []int{3, 3},
			Stride: []int{1, 1}, Padding: []int{1, 1}, Dilation: []int{1, 1}}), [3]layouts{}},
	}
	for _, c := range cases {
		g := c.g
		xs := slices.Concat([]int{g.N, g.C}, g.In)
		ws := slices.Concat([]int{g.O, g.C / g.Groups}, g.Kernel)
		ys := slices.Concat([]int{g.N, g.O}, g.Out)
		modes := [3][3][]int{
			device.ConvForward:        {xs, ws, ys},
			device.ConvBackwardInput:  {ys, ws, xs},
			device.ConvBackwardWeight: {ys, xs, ws},
		}
		for mode, shapes := range modes {
			mode := device.ConvMode(mode)
			what := fmt.Sprintf("conv mode %d %v", mode, g)
			rs := shapes[2]
			a := tw.view(f32, shapes[0], c.lay[mode].a, tw.normal)
			b := tw.view(f32, shapes[1], c.lay[mode].b, tw.normal)
			notChannel := []int{0}
			for d := 2; d < len(rs); d++ {
				notChannel = append(notChannel, d)
			}
			bias := tw.view(f16, rs, layout{broadcast: notChannel}, tw.normal)
			reversed := make([]int, len(rs))
			for d := range reversed {
				reversed[d] = len(rs) - 1 - d
			}
			term := tw.view(i32, rs, layout{perm: reversed, offset: 1}, func() float64 { return float64(tw.rng.IntN(9) - 4) })
			outs := make([][2]device.View, len(convOutDTypes))
			for j, o := range convOutDTypes {
				outs[j] = tw.output(o.dt, rs)
			}
			tw.run(what, func(i int) error {
				k := &device.ConvKernel{Mode: mode, Geom: g, A: a[i], B: b[i], EpilogueInputs: []device.View{bias[i], term[i]}, Epilogue: convEpilogue()}
				for _, o := range outs {
					k.Outputs = append(k.Outputs, o[i])
				}
				return tw.devs[i].Conv(k)
			})
			for j, o := range convOutDTypes {
				tl := o.tl
				if o.dt == device.Float32 {
					tl = sumTol(convTerms(mode, g))
				}
				tw.check(fmt.Sprintf("%s: output %d", what, j), outs[j], tl)
			}
		}
	}
}

// TestConvSharesModulesAndRefuses checks that convolutions of one
// signature share a module whatever their geometry and constants, and that
// an epilogue whose constants overflow the kernel parameter space is
// refused with ErrNotImplemented rather than launched.
func TestConvSharesModulesAndRefuses(t *testing.T) {
	tw := newTwins(t)
	d := tw.devs[0].(*Device)
	d.direct = true // the direct kernel's modules
	f32 := device.Float32
	run := func(g device.ConvGeometry, scale float64) {
		var e device.Builder
		e.Output(e.Binary(device.OpMul, e.Input(0, f32), e.Const(scale, f32)))
		x := tw.view(f32, slices.Concat([]int{g.N, g.C}, g.In), layout{}, tw.normal)
		w := tw.view(f32, slices.Concat([]int{g.O, g.C / g.Groups}, g.Kernel), layout{}, tw.normal)
		y := tw.output(f32, slices.Concat([]int{g.N, g.O}, g.Out))
		tw.run("conv", func(i int) error {
			return tw.devs[i].Conv(&device.ConvKernel{Geom: g, A: x[i], B: w[i], Epilogue: e.P, Outputs: []device.View{y[i]}})
		})
		tw.check(fmt.Sprintf("conv %v times %v", g, scale), y, gputest.Tol{Abs: 1e-5, Rel: 1e-5})
	}
	run(withOut(device.ConvGeometry{N: 1, C: 2, O: 2, Groups: 1, In: []int{6, 5}, Kernel: []int{3, 3},
		Stride: []int{1, 1}, Padding: []int{1, 1}, Dilation: []int{1, 1}}), 2)
	run(withOut(device.ConvGeometry{N: 3, C: 4, O: 2, Groups: 2, In: []int{9, 2}, Kernel: []int{2, 1},
		Stride: []int{2, 1}, Padding: []int{0, 0}, Dilation: []int{3, 1}}), -1)
	assert.Equal(t, 1, tw.f.count(t, "nvrtcCreateProgram conv.cu"), "one module for both geometries and constants")

	var e device.Builder
	r := e.Input(0, f32)
	for i := 0; i < 600; i++ {
		r = e.Binary(device.OpAdd, r, e.Const(float64(i), f32))
	}
	e.Output(r)
	g := withOut(device.ConvGeometry{N: 1, C: 1, O: 1, Groups: 1, In: []int{3}, Kernel: []int{1}, Stride: []int{1}, Padding: []int{0}, Dilation: []int{1}})
	x := tw.view(f32, []int{1, 1, 3}, layout{}, tw.normal)
	w := tw.view(f32, []int{1, 1, 1}, layout{}, tw.normal)
	y := tw.output(f32, []int{1, 1, 3})
	err := d.Conv(&device.ConvKernel{Geom: g, A: x[0], B: w[0], Epilogue: e.P, Outputs: []device.View{y[0]}})
	require.ErrorIs(t, err, ErrNotImplemented)
}
