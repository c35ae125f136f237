//go:build cgo && linux

package cuda

import (
	"fmt"
	"math"
	"reflect"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/shaderflow/shaderflow/gpu/gputest"
	"github.com/shaderflow/shaderflow/tensor/device"
)

// planBufs are the buffers of the plan cache tests, all restored to
// their first contents before each run so that runs compare byte for byte.
type planBufs struct {
	a, b, h, small, o1, o2, oh, freed device.Buffer
	foreign                           device.Buffer // a buffer of another device
	all                               []device.Buffer
	init                              [][]byte
}

// newPlanBufs allocates float32 inputs a and b, a float16 input h, a
// float32 input too small for the kernels' views, float32 outputs o1 and
// o2, a float16 output oh, a freed buffer and a float32 buffer of other.
func newPlanBufs(t *testing.T, d, other *Device) *planBufs {
	const n = 1100
	vals := func(scale, shift float64) []float64 {
		v := make([]float64, n)
		for i := range v {
			v[i] = scale*float64(i%97) + shift
		}
		return v
	}
	f32, f16 := device.Float32, device.Float16
	s := &planBufs{
		a: gputest.Upload(t, d, f32, vals(1, 0.5)), b: gputest.Upload(t, d, f32, vals(-2, 0.25)),
		h: gputest.Upload(t, d, f16, vals(0.5, 1)), small: gputest.Upload(t, d, f32, []float64{1, 2}),
		o1: gputest.Alloc(t, d, 4*n), o2: gputest.Alloc(t, d, 4*n), oh: gputest.Alloc(t, d, 2*n),
	}
	freed, err := d.Alloc(4 * n)
	require.NoError(t, err)
	d.Free(freed)
	s.freed = freed
	s.foreign = gputest.Upload(t, other, f32, vals(1, 0.5))
	s.all = []device.Buffer{s.a, s.b, s.h, s.small, s.o1, s.o2, s.oh}
	s.init = s.snapshot(t, d)
	return s
}

// snapshot returns every live buffer's bytes.
func (s *planBufs) snapshot(t *testing.T, d *Device) [][]byte {
	out := make([][]byte, len(s.all))
	for i, b := range s.all {
		out[i] = make([]byte, b.Bytes())
		require.NoError(t, d.Read(b, 0, out[i]))
	}
	return out
}

// reset restores every live buffer's first contents.
func (s *planBufs) reset(t *testing.T, d *Device) {
	for i, b := range s.all {
		require.NoError(t, d.Write(b, 0, s.init[i]))
	}
}

// ewCacheBase returns a fresh kernel of one of the plan cache tests' base
// layouts: "small" is out = in0*3 + in1 + uniform(7) on [3, 4] with an
// offset and a transposed input, "looped" is out = in0*2 on ten
// dimensions of two that do not merge (host-looped launches), "const"
// stores the constant +0.
func ewCacheBase(s *planBufs, layout string) *device.ElementwiseKernel {
	f32 := device.Float32
	var p device.Builder
	switch layout {
	case "small":
		x, y := p.Input(0, f32), p.Input(1, f32)
		sum := p.Binary(device.OpAdd, p.Binary(device.OpMul, x, p.Const(3, f32)), y)
		p.Output(p.Binary(device.OpAdd, sum, p.Rand(7, false)))
		shape := []int{3, 4}
		return &device.ElementwiseKernel{Shape: shape, Program: p.P,
			Inputs: []device.View{
				{Buf: s.a, DType: f32, Offset: 1, Shape: []int{3, 4}, Strides: []int{4, 1}},
				{Buf: s.b, DType: f32, Shape: []int{3, 4}, Strides: []int{1, 3}},
			},
			Outputs: []device.View{device.Contiguous(s.o1, f32, 0, []int{3, 4})}}
	case "looped":
		p.Output(p.Binary(device.OpMul, p.Input(0, f32), p.Const(2, f32)))
		shape, strides := make([]int, 10), make([]int, 10)
		for i := range shape {
			shape[i], strides[i] = 2, 1<<i
		}
		return &device.ElementwiseKernel{Shape: shape, Program: p.P,
			Inputs:  []device.View{{Buf: s.a, DType: f32, Shape: append([]int(nil), shape...), Strides: strides}},
			Outputs: []device.View{device.Contiguous(s.o1, f32, 0, append([]int(nil), shape...))}}
	}
	p.Output(p.Const(0, f32))
	return &device.ElementwiseKernel{Shape: []int{4}, Program: p.P,
		Outputs: []device.View{device.Contiguous(s.o1, f32, 0, []int{4})}}
}

// TestElementwisePlanCache checks the plan cache (checkPlanCache) on
// changes to each thing an elementwise plan depends on, and that a hit
// allocates nothing and a kernel of many launches is not kept.
func TestElementwisePlanCache(t *testing.T) {
	f := buildFake(t, nil, nil)
	d := f.open(t, 1<<20)
	s := newPlanBufs(t, d, f.open(t, 1<<16))
	f16 := device.Float16
	cases := []struct {
		name, layout string
		change       func(k *device.ElementwiseKernel)
		plans        int // plans beside the base's afterwards: 0 where the change is to buffers only (the base's plan serves) or the kernel fails
	}{
		{"shape", "small", func(k *device.ElementwiseKernel) {
			k.Shape, k.Inputs[0].Shape, k.Inputs[1].Shape = []int{3, 3}, []int{3, 3}, []int{3, 3}
			k.Outputs[0] = device.Contiguous(s.o1, device.Float32, 0, []int{3, 3})
		}, 1},
		{"iteration shape only", "small", func(k *device.ElementwiseKernel) { k.Shape = []int{4, 3} }, 0},
		{"input shape only", "small", func(k *device.ElementwiseKernel) { k.Inputs[1].Shape = []int{4, 3} }, 0},
		{"input strides", "small", func(k *device.ElementwiseKernel) { k.Inputs[0].Strides = []int{1, 3} }, 1},
		{"input offset", "small", func(k *device.ElementwiseKernel) { k.Inputs[0].Offset = 2 }, 1},
		{"output offset", "small", func(k *device.ElementwiseKernel) { k.Outputs[0].Offset = 5 }, 1},
		{"input dtype", "small", func(k *device.ElementwiseKernel) { k.Inputs[0].Buf, k.Inputs[0].DType = s.h, f16 }, 1},
		{"output dtype", "small", func(k *device.ElementwiseKernel) { k.Outputs[0].Buf, k.Outputs[0].DType = s.oh, f16 }, 1},
		{"input buffer", "small", func(k *device.ElementwiseKernel) { k.Inputs[0].Buf = s.b }, 0},
		{"output buffer", "small", func(k *device.ElementwiseKernel) { k.Outputs[0].Buf = s.o2 }, 0},
		{"input buffer too small", "small", func(k *device.ElementwiseKernel) { k.Inputs[1].Buf = s.small }, 0},
		{"freed output buffer", "small", func(k *device.ElementwiseKernel) { k.Outputs[0].Buf = s.freed }, 0},
		{"input buffer of another device", "small", func(k *device.ElementwiseKernel) { k.Inputs[0].Buf = s.foreign }, 0},
		{"constant", "small", func(k *device.ElementwiseKernel) { k.Program.Code[2].Imm = 5 }, 1},
		{"seed", "small", func(k *device.ElementwiseKernel) { k.Program.Code[5].Seed = 8 }, 1},
		{"op", "small", func(k *device.ElementwiseKernel) { k.Program.Code[4].Op = device.OpSub }, 1},
		{"input index", "small", func(k *device.ElementwiseKernel) { k.Program.Code[0].Index, k.Program.Code[1].Index = 1, 0 }, 1},
		{"program output", "small", func(k *device.ElementwiseKernel) { k.Program.Outputs[0] = 3 }, 1},
		{"second output", "small", func(k *device.ElementwiseKernel) {
			k.Program.Outputs = append(k.Program.Outputs, 4)
			k.Outputs = append(k.Outputs, device.Contiguous(s.o2, device.Float32, 0, []int{3, 4}))
		}, 1},
		{"looped input offset", "looped", func(k *device.ElementwiseKernel) { k.Inputs[0].Offset = 1 }, 1},
		{"looped output offset", "looped", func(k *device.ElementwiseKernel) { k.Outputs[0].Offset = 3 }, 1},
		{"looped input strides", "looped", func(k *device.ElementwiseKernel) { k.Inputs[0].Strides = device.ContiguousStrides(k.Shape) }, 1},
		{"looped buffers", "looped", func(k *device.ElementwiseKernel) { k.Inputs[0].Buf, k.Outputs[0].Buf = s.b, s.o2 }, 0},
		{"negative zero", "const", func(k *device.ElementwiseKernel) { k.Program.Code[0].Imm = math.Copysign(0, -1) }, 1},
	}
	var pcs []planCase
	for _, c := range cases {
		pcs = append(pcs, planCase{c.name, func(changed bool) error {
			k := ewCacheBase(s, c.layout)
			if changed {
				c.change(k)
			}
			return d.Elementwise(k)
		}, c.plans})
	}
	checkPlanCache(t, d, s, pcs)
	t.Run("no allocations", func(t *testing.T) {
		k := ewCacheBase(s, "small")
		require.NoError(t, d.Elementwise(k))
		assert.Zero(t, testing.AllocsPerRun(20, func() { _ = d.Elementwise(k) }))
	})
	t.Run("many launches", func(t *testing.T) {
		k := ewCacheBase(s, "looped")
		k.Shape = append(k.Shape, 2, 2, 2, 2, 2)
		n := device.NumElements(k.Shape)
		in, out := gputest.Alloc(t, d, int64(4*n)), gputest.Alloc(t, d, int64(4*n))
		k.Inputs[0] = device.View{Buf: in, DType: device.Float32, Shape: k.Shape, Strides: make([]int, len(k.Shape))}
		for i := range k.Shape {
			k.Inputs[0].Strides[i] = 1 << i
		}
		k.Outputs[0] = device.Contiguous(out, device.Float32, 0, k.Shape)
		clear(d.plans)
		require.NoError(t, d.Elementwise(k))
		assert.Empty(t, d.plans, "a plan of more than planMaxLaunches launches is kept")
	})
}

// planCase is a case of checkPlanCache: run runs its base kernel, or with
// changed its changed kernel, and plans is how many plans beside the
// base's the changed kernel leaves: 0 where the change is to buffers only
// (the base's plan serves) or the kernel fails.
type planCase struct {
	name  string
	run   func(changed bool) error
	plans int
}

// checkPlanCache runs, for each case, the changed kernel right after its
// base (whose plan is then cached) and checks that every buffer and the
// error come out as they do with an empty cache, that the change does
// alter them, and that the kernels that differ only in their buffers
// reuse the base's plan.
func checkPlanCache(t *testing.T, d *Device, s *planBufs, cases []planCase) {
	errText := func(err error) string {
		if err == nil {
			return ""
		}
		return err.Error()
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s.reset(t, d)
			clear(d.plans)
			wantErr := errText(c.run(true))
			want := s.snapshot(t, d)

			s.reset(t, d)
			clear(d.plans)
			require.NoError(t, c.run(false))
			base := s.snapshot(t, d)
			require.Len(t, d.plans, 1)
			var plan *kernelPlan
			for _, p := range d.plans {
				plan = p
			}

			s.reset(t, d)
			assert.Equal(t, wantErr, errText(c.run(true)))
			assert.Equal(t, want, s.snapshot(t, d), "buffers after the changed kernel")
			assert.True(t, wantErr != "" || !reflect.DeepEqual(base, want), "the change alters no buffer")
			others := 0
			for _, p := range d.plans {
				if p != plan {
					others++
				}
			}
			assert.Equal(t, c.plans, others, "plans beside the base's")
		})
	}
}

// rdCacheBase returns a fresh reduction of the plan cache tests: the sums
// of rows of red elements of 2*a[...] over [3, red] at offset 1, plus half
// an epilogue input from b, into o1.
func rdCacheBase(s *planBufs, red int) *device.ReduceKernel {
	f32 := device.Float32
	var pro, epi device.Builder
	pro.Output(pro.Binary(device.OpMul, pro.Input(0, f32), pro.Const(2, f32)))
	epi.Output(epi.Binary(device.OpAdd, epi.Input(0, f32), epi.Binary(device.OpMul, epi.Input(1, f32), epi.Const(0.5, f32))))
	return &device.ReduceKernel{Op: device.ReduceSum, OutShape: []int{3}, RedShape: []int{red}, Prologue: pro.P, Epilogue: epi.P,
		Inputs:         []device.View{{Buf: s.a, DType: f32, Offset: 1, Shape: []int{3, red}, Strides: []int{red, 1}}},
		EpilogueInputs: []device.View{{Buf: s.b, DType: f32, Offset: 2, Shape: []int{3}, Strides: []int{1}}},
		Outputs:        []device.View{device.Contiguous(s.o1, f32, 0, []int{3})}}
}

// TestReducePlanCache checks the plan cache (checkPlanCache) on changes to
// each thing a reduction's plan depends on, with the serial kernel (rows
// of 8) and the block kernel (rows of 64), and that a hit allocates
// nothing.
func TestReducePlanCache(t *testing.T) {
	f := buildFake(t, nil, nil)
	d := f.open(t, 1<<20)
	s := newPlanBufs(t, d, f.open(t, 1<<16))
	f16 := device.Float16
	changes := []struct {
		name   string
		change func(k *device.ReduceKernel)
		plans  int
	}{
		{"op", func(k *device.ReduceKernel) { k.Op = device.ReduceMax }, 1},
		{"output shape", func(k *device.ReduceKernel) {
			k.OutShape, k.Inputs[0].Shape[0], k.EpilogueInputs[0].Shape = []int{2}, 2, []int{2}
			k.Outputs[0] = device.Contiguous(s.o1, device.Float32, 0, []int{2})
		}, 1},
		{"reduced shape", func(k *device.ReduceKernel) { k.RedShape[0] /= 2; k.Inputs[0].Shape[1] /= 2 }, 1},
		{"input offset", func(k *device.ReduceKernel) { k.Inputs[0].Offset = 3 }, 1},
		{"input strides", func(k *device.ReduceKernel) { k.Inputs[0].Strides = []int{1, 3} }, 1},
		{"epilogue input offset", func(k *device.ReduceKernel) { k.EpilogueInputs[0].Offset = 5 }, 1},
		{"epilogue input strides", func(k *device.ReduceKernel) { k.EpilogueInputs[0].Strides = []int{2} }, 1},
		{"output offset", func(k *device.ReduceKernel) { k.Outputs[0].Offset = 4 }, 1},
		{"prologue constant", func(k *device.ReduceKernel) { k.Prologue.Code[1].Imm = 3 }, 1},
		{"epilogue constant", func(k *device.ReduceKernel) { k.Epilogue.Code[2].Imm = -1 }, 1},
		{"prologue op", func(k *device.ReduceKernel) { k.Prologue.Code[2].Op = device.OpAdd }, 1},
		{"input dtype", func(k *device.ReduceKernel) { k.Inputs[0].Buf, k.Inputs[0].DType = s.h, f16 }, 1},
		{"output dtype", func(k *device.ReduceKernel) { k.Outputs[0].Buf, k.Outputs[0].DType = s.oh, f16 }, 1},
		{"input buffer", func(k *device.ReduceKernel) { k.Inputs[0].Buf = s.b }, 0},
		{"epilogue input buffer", func(k *device.ReduceKernel) { k.EpilogueInputs[0].Buf = s.a }, 0},
		{"output buffer", func(k *device.ReduceKernel) { k.Outputs[0].Buf = s.o2 }, 0},
		{"input buffer too small", func(k *device.ReduceKernel) { k.Inputs[0].Buf = s.small }, 0},
		{"freed epilogue input buffer", func(k *device.ReduceKernel) { k.EpilogueInputs[0].Buf = s.freed }, 0},
		{"input buffer of another device", func(k *device.ReduceKernel) { k.Inputs[0].Buf = s.foreign }, 0},
	}
	var cases []planCase
	for _, red := range []int{8, 64} {
		for _, c := range changes {
			cases = append(cases, planCase{fmt.Sprintf("%s/rows of %d", c.name, red), func(changed bool) error {
				k := rdCacheBase(s, red)
				if changed {
					c.change(k)
				}
				return d.Reduce(k)
			}, c.plans})
		}
	}
	// Without inputs, only the reduced shape tells how many constants a
	// sum adds.
	cases = append(cases, planCase{"reduced shape without inputs", func(changed bool) error {
		k := rdCacheBase(s, 8)
		var pro device.Builder
		pro.Output(pro.Const(1, device.Float32))
		k.Inputs, k.Prologue = nil, pro.P
		if changed {
			k.RedShape[0] = 4
		}
		return d.Reduce(k)
	}, 1})
	checkPlanCache(t, d, s, cases)
	t.Run("no allocations", func(t *testing.T) {
		k := rdCacheBase(s, 64)
		require.NoError(t, d.Reduce(k))
		assert.Zero(t, testing.AllocsPerRun(20, func() { _ = d.Reduce(k) }))
	})
}

// mmCacheBase returns a fresh product of the plan cache tests: a batch of
// two [3, 5] by [5, 4] products of a at offset 1 and b, then twice the
// product plus an epilogue input from b broadcast over the batch, into o1.
func mmCacheBase(s *planBufs) *device.MatMulKernel {
	f32 := device.Float32
	var e device.Builder
	e.Output(e.Binary(device.OpAdd, e.Binary(device.OpMul, e.Input(0, f32), e.Const(2, f32)), e.Input(1, f32)))
	return &device.MatMulKernel{Batch: []int{2}, M: 3, N: 4, K: 5, Epilogue: e.P,
		A:              device.View{Buf: s.a, DType: f32, Offset: 1, Shape: []int{2, 3, 5}, Strides: []int{15, 5, 1}},
		B:              device.View{Buf: s.b, DType: f32, Shape: []int{2, 5, 4}, Strides: []int{20, 4, 1}},
		EpilogueInputs: []device.View{{Buf: s.b, DType: f32, Offset: 3, Shape: []int{2, 3, 4}, Strides: []int{0, 4, 1}}},
		Outputs:        []device.View{device.Contiguous(s.o1, f32, 0, []int{2, 3, 4})}}
}

// TestMatMulPlanCache checks the plan cache (checkPlanCache) on changes to
// each thing a generated product's plan depends on, that a product the
// cuBLAS policy sends to cuBLAS keeps no plan and that the policy is in
// the key, and that a hit allocates nothing.
func TestMatMulPlanCache(t *testing.T) {
	f := buildFake(t, nil, nil)
	d := f.open(t, 1<<20)
	s := newPlanBufs(t, d, f.open(t, 1<<16))
	f32 := device.Float32
	changes := []struct {
		name   string
		change func(k *device.MatMulKernel)
		plans  int
	}{
		{"M", func(k *device.MatMulKernel) {
			k.M, k.A.Shape[1], k.EpilogueInputs[0].Shape[1] = 2, 2, 2
			k.Outputs[0] = device.Contiguous(s.o1, f32, 0, []int{2, 2, 4})
		}, 1},
		{"N", func(k *device.MatMulKernel) {
			k.N, k.B.Shape[2], k.EpilogueInputs[0].Shape[2] = 3, 3, 3
			k.Outputs[0] = device.Contiguous(s.o1, f32, 0, []int{2, 3, 3})
		}, 1},
		{"K", func(k *device.MatMulKernel) { k.K, k.A.Shape[2], k.B.Shape[1] = 4, 4, 4 }, 1},
		{"batch", func(k *device.MatMulKernel) {
			k.Batch, k.A.Shape[0], k.B.Shape[0], k.EpilogueInputs[0].Shape[0] = []int{1}, 1, 1, 1
			k.Outputs[0] = device.Contiguous(s.o1, f32, 0, []int{1, 3, 4})
		}, 1},
		{"A offset", func(k *device.MatMulKernel) { k.A.Offset = 2 }, 1},
		{"A strides", func(k *device.MatMulKernel) { k.A.Strides = []int{15, 1, 3} }, 1},
		{"B offset", func(k *device.MatMulKernel) { k.B.Offset = 1 }, 1},
		{"B strides", func(k *device.MatMulKernel) { k.B.Strides = []int{20, 1, 5} }, 1},
		{"epilogue input offset", func(k *device.MatMulKernel) { k.EpilogueInputs[0].Offset = 5 }, 1},
		{"epilogue input strides", func(k *device.MatMulKernel) { k.EpilogueInputs[0].Strides = []int{12, 4, 1} }, 1},
		{"output offset", func(k *device.MatMulKernel) { k.Outputs[0].Offset = 2 }, 1},
		{"epilogue constant", func(k *device.MatMulKernel) { k.Epilogue.Code[1].Imm = 3 }, 1},
		{"epilogue op", func(k *device.MatMulKernel) { k.Epilogue.Code[4].Op = device.OpSub }, 1},
		{"output dtype", func(k *device.MatMulKernel) { k.Outputs[0].Buf, k.Outputs[0].DType = s.oh, device.Float16 }, 1},
		{"A buffer", func(k *device.MatMulKernel) { k.A.Buf = s.b }, 0},
		{"B buffer", func(k *device.MatMulKernel) { k.B.Buf = s.a }, 0},
		{"epilogue input buffer", func(k *device.MatMulKernel) { k.EpilogueInputs[0].Buf = s.a }, 0},
		{"output buffer", func(k *device.MatMulKernel) { k.Outputs[0].Buf = s.o2 }, 0},
		{"B buffer too small", func(k *device.MatMulKernel) { k.B.Buf = s.small }, 0},
		{"freed output buffer", func(k *device.MatMulKernel) { k.Outputs[0].Buf = s.freed }, 0},
		{"A buffer of another device", func(k *device.MatMulKernel) { k.A.Buf = s.foreign }, 0},
	}
	var cases []planCase
	for _, c := range changes {
		cases = append(cases, planCase{c.name, func(changed bool) error {
			k := mmCacheBase(s)
			if changed {
				c.change(k)
			}
			return d.MatMul(k)
		}, c.plans})
	}
	checkPlanCache(t, d, s, cases)
	t.Run("cuBLAS policy", func(t *testing.T) {
		k := mmCacheBase(s)
		assert.NotEqual(t, appendMmKey(nil, k, blasBySize), appendMmKey(nil, k, blasAlways))
		defer func(p blasPolicy) { d.blasUse = p }(d.blasUse)
		d.blasUse = blasAlways // the double refuses cuBLAS, so the product runs on the generated kernel
		clear(d.plans)
		require.NoError(t, d.MatMul(k))
		assert.Empty(t, d.plans, "a product the policy sends to cuBLAS is kept")
	})
	t.Run("no allocations", func(t *testing.T) {
		k := mmCacheBase(s)
		require.NoError(t, d.MatMul(k))
		assert.Zero(t, testing.AllocsPerRun(20, func() { _ = d.MatMul(k) }))
	})
}

// TestPlanKeyFields fails when a kernel, view, program or instruction
// gains a field, which the kind's key (appendEwKey, appendRdKey,
// appendMmKey) or, for buffers, bind must then cover.
func TestPlanKeyFields(t *testing.T) {
	fields := func(v any) []string {
		var names []string
		for f := range reflect.TypeOf(v).Fields() {
			names = append(names, f.Name)
		}
		return names
	}
	assert.Equal(t, []string{"Shape", "Inputs", "Program", "Outputs"}, fields(device.ElementwiseKernel{}))
	assert.Equal(t, []string{"Op", "OutShape", "RedShape", "Inputs", "Prologue", "EpilogueInputs", "Epilogue", "Outputs"}, fields(device.ReduceKernel{}))
	assert.Equal(t, []string{"Batch", "M", "N", "K", "A", "B", "EpilogueInputs", "Epilogue", "Outputs"}, fields(device.MatMulKernel{}))
	assert.Equal(t, []string{"Buf", "DType", "Offset", "Shape", "Strides"}, fields(device.View{}))
	assert.Equal(t, []string{"Code", "Outputs"}, fields(device.Program{}))
	assert.Equal(t, []string{"Op", "Type", "Args", "Index", "Imm", "Seed"}, fields(device.Instr{}))
}
