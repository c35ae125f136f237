package gpu

import (
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"testing"

	"github.com/shaderflow/shaderflow/gpu/gputest"
	"github.com/shaderflow/shaderflow/shaders"
	"github.com/shaderflow/shaderflow/tensor/device"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// fakeBuf is a device.Buffer of a given size.
type fakeBuf struct{ n int64 }

func (b *fakeBuf) Bytes() int64 { return b.n }

var testTarget = Target{MaxBindings: 8, MaxBindingBytes: 1 << 20, BindingAlign: 256, MaxWorkgroups: 65535}

func TestCoalesce(t *testing.T) {
	cases := []struct {
		shape   []int
		strides [][]int
		want    []int
		wantSt  [][]int
	}{
		{[]int{2, 3, 4}, [][]int{{12, 4, 1}}, []int{24}, [][]int{{1}}},
		{[]int{2, 3, 4}, [][]int{{12, 4, 1}, {0, 4, 1}}, []int{2, 12}, [][]int{{12, 1}, {0, 1}}},
		{[]int{2, 1, 4}, [][]int{{4, 99, 1}}, []int{8}, [][]int{{1}}},
		{[]int{3, 4}, [][]int{{1, 3}}, []int{3, 4}, [][]int{{1, 3}}}, // a transpose stays
		{[]int{1, 1}, [][]int{{5, 7}}, []int{}, [][]int{{}}},
		{[]int{2, 0, 3}, [][]int{{0, 3, 1}}, []int{2, 0, 3}, [][]int{{0, 3, 1}}},
	}
	for _, c := range cases {
		got, st := coalesce(c.shape, c.strides)
		assert.Equal(t, c.want, got, "shape %v strides %v", c.shape, c.strides)
		assert.Equal(t, c.wantSt, st, "shape %v strides %v", c.shape, c.strides)
	}
}

func TestGrid(t *testing.T) {
	for _, n := range []int{0, 1, 65535, 65536, 1 << 20, 65535*65535 - 1} {
		x, y := Grid(n, 65535)
		if n == 0 {
			assert.Zero(t, x*y)
			continue
		}
		assert.LessOrEqual(t, x, 65535)
		assert.LessOrEqual(t, y, 65535)
		assert.GreaterOrEqual(t, x*y, n)
		assert.Less(t, x*(y-1), n, "no spare row for n=%d", n)
	}
}

// randomProgram builds a valid program over inputs of the given types.
func randomProgram(r *rand.Rand, inputs []device.DType, n int) device.Program {
	var b device.Builder
	pools := map[device.DType][]device.Reg{}
	add := func(x device.Reg) { t := b.TypeOf(x); pools[t] = append(pools[t], x) }
	for i, dt := range inputs {
		add(b.Input(i, dt))
	}
	add(b.Const(1.5, device.Float32))
	add(b.Const(3, device.Int32))
	add(b.Unary(device.OpIsNaN, pools[device.Float32][0]))
	pick := func(t device.DType) device.Reg { p := pools[t]; return p[r.IntN(len(p))] }
	for len(b.P.Code) < n {
		switch r.IntN(6) {
		case 0:
			add(b.Unary(device.OpNeg+device.Op(r.IntN(int(device.OpCeil-device.OpNeg+1))), pick(device.Float32)))
		case 1:
			add(b.Binary(device.OpAdd+device.Op(r.IntN(7)), pick(device.Float32), pick(device.Float32)))
		case 2:
			ops := []device.Op{device.OpAdd, device.OpSub, device.OpMul, device.OpDiv, device.OpMax, device.OpMin}
			add(b.Binary(ops[r.IntN(len(ops))], pick(device.Int32), pick(device.Int32)))
		case 3:
			add(b.Binary(device.OpEq+device.Op(r.IntN(6)), pick(device.Float32), pick(device.Float32)))
		case 4:
			add(b.Where(pick(device.Bool), pick(device.Float32), pick(device.Float32)))
		case 5:
			add(b.Cast(pick(device.Int32), device.Float32))
		}
	}
	for k := 0; k < 3; k++ {
		b.Output(device.Reg(r.IntN(len(b.P.Code))))
	}
	return b.P
}

// TestImmediates checks that every instruction's immediate is where
// ImmWord says: an input's index, a constant's compute-type bits, a random
// stream's key, zero for the others.
func TestImmediates(t *testing.T) {
	var b device.Builder
	x := b.Input(0, device.Float32)
	i := b.Input(1, device.Int32)
	f := b.Binary(device.OpMul, x, b.Const(-2.5, device.Float32))
	n := b.Binary(device.OpAdd, i, b.Const(-7, device.Int32))
	c := b.Binary(device.OpAnd, b.Binary(device.OpLt, n, i), b.Const(1, device.Bool))
	b.Output(b.Where(c, f, b.Rand(99, true)))
	sh := []int{4, 3}
	mk := func(dt device.DType) device.View { return device.Contiguous(&fakeBuf{64}, dt, 0, sh) }
	k := &device.ElementwiseKernel{Shape: sh, Program: b.P, Inputs: []device.View{mk(device.Float32), mk(device.Int32)},
		Outputs: []device.View{mk(device.Float32)}}
	l, err := EncodeElementwise(k, testTarget)
	require.NoError(t, err)
	h := l.Hooks[0]
	blk := int(l.Params[h.Header])
	want := []uint32{0, 1, math.Float32bits(-2.5), 0, 0xfffffff9, 0, 0, 1, 0, device.StreamKey(99), 0}
	require.Len(t, b.P.Code, len(want))
	for j, w := range want {
		assert.Equal(t, w, l.Params[blk+h.ImmWord(j)], "r%d = %s", j, b.P.Code[j].Op)
	}
}

// TestManyLiveValues checks that a program with more live values than the
// former bytecode encoding had registers (64) encodes.
func TestManyLiveValues(t *testing.T) {
	var b device.Builder
	var live []device.Reg
	for i := 0; i < 100; i++ {
		live = append(live, b.Const(float64(i), device.Float32))
	}
	s := live[0]
	for _, x := range live[1:] {
		s = b.Binary(device.OpAdd, s, x)
	}
	b.Output(s)
	out := device.Contiguous(&fakeBuf{64}, device.Float32, 0, []int{4})
	_, err := EncodeElementwise(&device.ElementwiseKernel{Shape: []int{4}, Program: b.P, Outputs: []device.View{out}}, testTarget)
	require.NoError(t, err)
}

func TestPlanDedupesAndRebases(t *testing.T) {
	small := &fakeBuf{4096}
	big := &fakeBuf{4 << 20}
	e := newEncoder("test", testTarget)
	d1 := e.view(device.Contiguous(small, device.Float32, 10, []int{5}), []int{1}, true)
	d2 := e.view(device.Contiguous(big, device.Float16, 1<<20+3, []int{100}), []int{1}, true)
	d3 := e.view(device.Contiguous(small, device.Float32, 0, []int{5}), []int{1}, true)
	l, err := e.finish(&Launch{})
	require.NoError(t, err)
	require.Len(t, l.Bindings, 2, "one binding per buffer")
	assert.Equal(t, Binding{Buf: small, Offset: 0, Size: 4096}, l.Bindings[0], "a small buffer is bound whole")
	bb := l.Bindings[1]
	assert.Zero(t, bb.Offset%testTarget.BindingAlign)
	assert.LessOrEqual(t, bb.Offset, int64(2*(1<<20+3)))
	assert.GreaterOrEqual(t, bb.Offset+bb.Size, int64(2*(1<<20+103)))
	assert.Equal(t, uint32(1), l.Params[d1+vdBinding])
	assert.Equal(t, uint32(2), l.Params[d2+vdBinding])
	assert.Equal(t, uint32(1), l.Params[d3+vdBinding])
	assert.Equal(t, uint32(10), l.Params[d1+vdOffset])
	assert.Equal(t, uint32(1<<20+3-int(bb.Offset/2)), l.Params[d2+vdOffset], "offsets are rebased to the bound range")
}

func TestPlanRefusesOversizedViewsAndTooManyBuffers(t *testing.T) {
	huge := &fakeBuf{8 << 20}
	e := newEncoder("test", testTarget)
	e.view(device.Contiguous(huge, device.Float32, 0, []int{1 << 19}), []int{1}, true)
	_, err := e.finish(&Launch{})
	assert.ErrorContains(t, err, "more than the device binds")

	e = newEncoder("test", testTarget)
	for i := 0; i <= testTarget.MaxBindings; i++ {
		e.view(device.Contiguous(&fakeBuf{64}, device.Float32, 0, []int{4}), []int{1}, true)
	}
	_, err = e.finish(&Launch{})
	assert.ErrorContains(t, err, "buffers")
}

func TestEncodersValidate(t *testing.T) {
	_, err := EncodeElementwise(&device.ElementwiseKernel{Shape: []int{4}}, testTarget)
	assert.Error(t, err)
	_, err = EncodeMatMul(&device.MatMulKernel{M: 2, N: 2, K: 2}, testTarget)
	assert.Error(t, err)
}

// naga returns the path of naga or skips.
func naga(t *testing.T) string {
	for _, p := range []string{"naga", "/usr/local/bin/naga"} {
		if path, err := exec.LookPath(p); err == nil {
			return path
		}
	}
	t.Skip("naga not installed")
	return ""
}

// TestGeneratedShadersCompile composes every kind that has hooks with
// generated code for a program using every dtype the backends store
// (DTypes) and checks it with naga.
func TestGeneratedShadersCompile(t *testing.T) {
	nagaPath := naga(t)
	f32, f16, bf16, i32, bl := device.Float32, device.Float16, device.BFloat16, device.Int32, device.Bool
	u8, i8 := device.Uint8, device.Int8
	mk := func(dt device.DType, shape ...int) device.View {
		return device.Contiguous(&fakeBuf{int64(4 * device.NumElements(shape))}, dt, 0, shape)
	}
	var b device.Builder
	h, bv, c, iv := b.Input(0, f16), b.Input(1, bf16), b.Input(2, bl), b.Input(3, i32)
	s := b.Binary(device.OpAdd, h, bv)
	b.Output(b.Where(c, s, b.Unary(device.OpGeluErf, s)))
	b.Output(b.Binary(device.OpGt, s, b.Const(math.Inf(1), f32)))
	b.Output(b.Binary(device.OpDiv, iv, b.Const(3, i32)))
	b.Output(b.Rand(7, true))
	sh := []int{3, 5}
	ew := &device.ElementwiseKernel{Shape: sh, Inputs: []device.View{mk(f16, 3, 5), mk(bf16, 3, 5), mk(bl, 3, 5), mk(i32, 3, 5)},
		Program: b.P, Outputs: []device.View{mk(bf16, 3, 5), mk(bl, 3, 5), mk(i32, 3, 5), mk(f32, 3, 5)}}
	var b8 device.Builder
	ub, sb, fv := b8.Input(0, u8), b8.Input(1, i8), b8.Input(2, f32)
	b8.Output(b8.Binary(device.OpAdd, ub, sb))
	b8.Output(b8.Cast(fv, u8))
	ew8 := &device.ElementwiseKernel{Shape: sh, Inputs: []device.View{mk(u8, 3, 5), mk(i8, 3, 5), mk(f32, 3, 5)},
		Program: b8.P, Outputs: []device.View{mk(i8, 3, 5), mk(u8, 3, 5)}}
	var e device.Builder
	e.Output(e.Cast(e.Input(0, i32), f32))
	var pro device.Builder
	pro.Output(pro.Cast(pro.Input(0, u8), f32))
	red := &device.ReduceKernel{Op: device.ReduceArgMax, OutShape: []int{3}, RedShape: []int{5}, Inputs: []device.View{mk(f32, 3, 5)},
		Prologue: device.Identity(f32), Epilogue: e.P, Outputs: []device.View{mk(f32, 3)}}
	red8 := &device.ReduceKernel{Op: device.ReduceArgMax, OutShape: []int{3}, RedShape: []int{5}, Inputs: []device.View{mk(u8, 3, 5)},
		Prologue: pro.P, Epilogue: device.Identity(i32), Outputs: []device.View{mk(i8, 3)}}
	mm := &device.MatMulKernel{M: 3, N: 4, K: 5, A: mk(f32, 3, 5), B: mk(f32, 5, 4), Epilogue: device.Identity(f32), Outputs: []device.View{mk(f16, 3, 4)}}
	launches := []func() (*Launch, error){
		func() (*Launch, error) { return EncodeElementwise(ew, testTarget) },
		func() (*Launch, error) { return EncodeElementwise(ew8, testTarget) },
		func() (*Launch, error) { return EncodeReduce(red, testTarget) },
		func() (*Launch, error) { return EncodeReduce(red8, testTarget) },
		func() (*Launch, error) { return EncodeMatMul(mm, testTarget) },
	}
	dir := t.TempDir()
	for i, f := range launches {
		l, err := f()
		require.NoError(t, err)
		src := shaders.Compose(l.Kind, len(l.Bindings), GenerateHooks(l))
		in := filepath.Join(dir, string(l.Kind)+".wgsl")
		require.NoError(t, os.WriteFile(in, []byte(src), 0o644))
		out, err := exec.Command(nagaPath, in, filepath.Join(dir, "out.spv")).CombinedOutput()
		require.NoError(t, err, "launch %d (%s): %s", i, l.Kind, out)
	}
}

// TestHooksKeyIdentifiesText checks that launches with equal keys generate
// equal text and that different texts have different keys.
func TestHooksKeyIdentifiesText(t *testing.T) {
	r := gputest.NewRand(t)
	inputs := []device.DType{device.Float32, device.Int32, device.Float32}
	byKey := map[string]string{}
	texts := map[string]string{}
	for trial := 0; trial < 300; trial++ {
		p := randomProgram(r, inputs, 3+r.IntN(8))
		if r.IntN(2) == 0 { // same structure, other constants
			for i := range p.Code {
				p.Code[i].Imm *= 2
			}
		}
		sh := []int{2 + r.IntN(2), 3}
		mk := func(dt device.DType) device.View {
			return device.Contiguous(&fakeBuf{64}, dt, 0, sh)
		}
		k := &device.ElementwiseKernel{Shape: sh, Program: p}
		for _, dt := range inputs {
			k.Inputs = append(k.Inputs, mk(dt))
		}
		for _, o := range p.Outputs {
			k.Outputs = append(k.Outputs, mk(p.Code[o].Type))
		}
		l, err := EncodeElementwise(k, testTarget)
		require.NoError(t, err)
		key, text := HooksKey(l), GenerateHooks(l)
		if prev, ok := byKey[key]; ok {
			require.Equal(t, prev, text, "equal keys, different texts")
		}
		if prev, ok := texts[text]; ok {
			require.Equal(t, prev, key, "equal texts, different keys")
		}
		byKey[key], texts[text] = text, key
	}
}

// BenchmarkEncodeElementwise measures the shared encoding cost of a small
// elementwise kernel (validation, coalescing, immediates, binding plan) and
// the hooks key a backend looks its pipeline up by.
func BenchmarkEncodeElementwise(b *testing.B) {
	var p device.Builder
	p.Output(p.Binary(device.OpAdd, p.Input(0, device.Float32), p.Input(1, device.Float32)))
	sh := []int{256}
	mk := func() device.View { return device.Contiguous(&fakeBuf{1024}, device.Float32, 0, sh) }
	k := &device.ElementwiseKernel{Shape: sh, Inputs: []device.View{mk(), mk()}, Program: p.P, Outputs: []device.View{mk()}}
	var key []byte
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		l, err := EncodeElementwise(k, testTarget)
		if err != nil {
			b.Fatal(err)
		}
		key = AppendHooksKey(key[:0], l)
	}
}

// TestConstantsMatchShaders keeps Go's copies of shader constants in step.
func TestConstantsMatchShaders(t *testing.T) {
	for _, c := range []struct {
		file, name string
		want       int
	}{
		{shaders.CommonFile, "WG", WorkgroupSize},
		{"tile.wgsl", "TILE", tileEdge},
		{shaders.CommonFile, "VIEW_CONTIGUOUS", viewContiguous},
	} {
		m := regexp.MustCompile(`const ` + c.name + `: u32 = (\d+)u;`).FindStringSubmatch(shaders.Source(c.file))
		require.NotNil(t, m, "%s in %s", c.name, c.file)
		assert.Equal(t, strconv.Itoa(c.want), m[1], "%s in %s", c.name, c.file)
	}
}
