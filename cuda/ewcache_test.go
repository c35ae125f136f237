//go:build cgo && linux

package cuda

import (
	"math"
	"reflect"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/shaderflow/shaderflow/gpu/gputest"
	"github.com/shaderflow/shaderflow/tensor/device"
)

// ewCacheBufs are the buffers of the plan cache tests, all restored to
// their first contents before each run so that runs compare byte for byte.
type ewCacheBufs struct {
	a, b, h, small, o1, o2, oh, freed device.Buffer
	all                               []device.Buffer
	init                              [][]byte
}

// newEwCacheBufs allocates float32 inputs a and b, a float16 input h, a
// float32 input too small for the kernels' views, float32 outputs o1 and
// o2, a float16 output oh and a freed buffer.
func newEwCacheBufs(t *testing.T, d *Device) *ewCacheBufs {
	const n = 1100
	vals := func(scale, shift float64) []float64 {
		v := make([]float64, n)
		for i := range v {
			v[i] = scale*float64(i%97) + shift
		}
		return v
	}
	f32, f16 := device.Float32, device.Float16
	s := &ewCacheBufs{
		a: gputest.Upload(t, d, f32, vals(1, 0.5)), b: gputest.Upload(t, d, f32, vals(-2, 0.25)),
		h: gputest.Upload(t, d, f16, vals(0.5, 1)), small: gputest.Upload(t, d, f32, []float64{1, 2}),
		o1: gputest.Alloc(t, d, 4*n), o2: gputest.Alloc(t, d, 4*n), oh: gputest.Alloc(t, d, 2*n),
	}
	freed, err := d.Alloc(4 * n)
	require.NoError(t, err)
	d.Free(freed)
	s.freed = freed
	s.all = []device.Buffer{s.a, s.b, s.h, s.small, s.o1, s.o2, s.oh}
	s.init = s.snapshot(t, d)
	return s
}

// snapshot returns every live buffer's bytes.
func (s *ewCacheBufs) snapshot(t *testing.T, d *Device) [][]byte {
	out := make([][]byte, len(s.all))
	for i, b := range s.all {
		out[i] = make([]byte, b.Bytes())
		require.NoError(t, d.Read(b, 0, out[i]))
	}
	return out
}

// reset restores every live buffer's first contents.
func (s *ewCacheBufs) reset(t *testing.T, d *Device) {
	for i, b := range s.all {
		require.NoError(t, d.Write(b, 0, s.init[i]))
	}
}

// ewCacheBase returns a fresh kernel of one of the plan cache tests' base
// layouts: "small" is out = in0*3 + in1 + uniform(7) on [3, 4] with an
// offset and a transposed input, "looped" is out = in0*2 on ten
// dimensions of two that do not merge (host-looped launches), "const"
// stores the constant +0.
func ewCacheBase(s *ewCacheBufs, layout string) *device.ElementwiseKernel {
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

// TestElementwisePlanCache runs, for each change to one thing a plan
// depends on, the changed kernel right after its base (whose plan is then
// cached) and checks that every buffer and the error come out as they do
// with an empty cache, that the change does alter them, and that the
// kernels that differ only in their buffers reuse the base's plan.
func TestElementwisePlanCache(t *testing.T) {
	f := buildFake(t, nil, nil)
	d := f.open(t, 1<<20)
	s := newEwCacheBufs(t, d)
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
	errText := func(err error) string {
		if err == nil {
			return ""
		}
		return err.Error()
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			changed := ewCacheBase(s, c.layout)
			c.change(changed)

			s.reset(t, d)
			clear(d.ewPlans)
			wantErr := errText(d.Elementwise(changed))
			want := s.snapshot(t, d)

			s.reset(t, d)
			clear(d.ewPlans)
			require.NoError(t, d.Elementwise(ewCacheBase(s, c.layout)))
			base := s.snapshot(t, d)
			require.Len(t, d.ewPlans, 1)
			var plan *ewPlan
			for _, p := range d.ewPlans {
				plan = p
			}

			s.reset(t, d)
			changed = ewCacheBase(s, c.layout)
			c.change(changed)
			assert.Equal(t, wantErr, errText(d.Elementwise(changed)))
			assert.Equal(t, want, s.snapshot(t, d), "buffers after the changed kernel")
			assert.True(t, wantErr != "" || !reflect.DeepEqual(base, want), "the change alters no buffer")
			others := 0
			for _, p := range d.ewPlans {
				if p != plan {
					others++
				}
			}
			assert.Equal(t, c.plans, others, "plans beside the base's")
		})
	}
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
		clear(d.ewPlans)
		require.NoError(t, d.Elementwise(k))
		assert.Empty(t, d.ewPlans, "a plan of more than ewPlanMaxLaunches launches is kept")
	})
}

// TestEwKeyFields fails when a kernel, view, program or instruction gains
// a field, which appendEwKey (or bind, for buffers) must then cover.
func TestEwKeyFields(t *testing.T) {
	fields := func(v any) []string {
		var names []string
		for f := range reflect.TypeOf(v).Fields() {
			names = append(names, f.Name)
		}
		return names
	}
	assert.Equal(t, []string{"Shape", "Inputs", "Program", "Outputs"}, fields(device.ElementwiseKernel{}))
	assert.Equal(t, []string{"Buf", "DType", "Offset", "Shape", "Strides"}, fields(device.View{}))
	assert.Equal(t, []string{"Code", "Outputs"}, fields(device.Program{}))
	assert.Equal(t, []string{"Op", "Type", "Args", "Index", "Imm", "Seed"}, fields(device.Instr{}))
}
