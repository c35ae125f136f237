package cuda

import (
	"math"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/shaderflow/shaderflow/tensor/device"
)

// fakeBuf is a buffer for views that are only planned and rendered.
type fakeBuf int64

func (b fakeBuf) Bytes() int64 { return int64(b) }

// opDefinition matches a definition of an op function in ops.cuh: its name
// and its parameter list (the overload), or a cast specialization.
var opDefinition = regexp.MustCompile(`(?m)^(?:template <[^>]*> )?SF_(?:FN|SPEC) (?:long long|\w+) (op_\w+)(<[^>]*>)?\(([^)]*)\)`)

// TestOpsFileMatchesOpTable checks that ops.cuh defines a function for
// every op of arity one or more and no other op_ function, with one overload
// per argument type the op's type rule accepts, each defined once, and
// that its name is the one ops.wgsl uses where the op table names one.
func TestOpsFileMatchesOpTable(t *testing.T) {
	overloads := map[string]map[string]int{}
	for _, m := range opDefinition.FindAllStringSubmatch(opsSource, -1) {
		if overloads[m[1]] == nil {
			overloads[m[1]] = map[string]int{}
		}
		overloads[m[1]][m[2]+"("+m[3]+")"]++
	}
	// One overload per narrow register type the rule takes, one more per
	// wide type (Float64, Int64) the op is defined on (device.WideOK); the
	// casts count their explicit specializations.
	perRule := map[device.TypeRule]int{device.TypesFloat: 1, device.TypesNumeric: 2, device.TypesTest: 1,
		device.TypesLogic: 1, device.TypesCompare: 2, device.TypesSelect: 1, device.TypesCast: 10}
	wide := func(op device.Op) int {
		n := 0
		for _, t := range []device.DType{device.Float64, device.Int64} {
			if op.Info().Types != device.TypesCast && op.Info().Types != device.TypesSelect && device.WideOK(op, t) {
				n++
			}
		}
		return n
	}
	want := map[string]bool{}
	for _, op := range device.Ops() {
		info := op.Info()
		if info.Arity < 1 {
			continue
		}
		name := OpFunction(op)
		want[name] = true
		if info.GPU != "" {
			assert.Equal(t, info.GPU, name, "%s: one spelling across the GPU sources", op)
		}
		defs := overloads[name]
		assert.Len(t, defs, perRule[info.Types]+wide(op), "%s: overloads %v", op, defs)
		for sig, n := range defs {
			assert.Equal(t, 1, n, "%s%s is defined %d times", name, sig, n)
		}
	}
	got := map[string]bool{}
	for name := range overloads {
		got[name] = true
	}
	assert.Equal(t, want, got, "ops.cuh's op_ functions against the op table")
	assert.NotContains(t, opsSource, "#include \"", "ops.cuh includes nothing of its own")
}

// program builds a program with b and returns it.
func program(f func(b *device.Builder)) device.Program {
	var b device.Builder
	f(&b)
	return b.P
}

// ewKernel makes an elementwise kernel of shape whose inputs are views of
// the given strides and offsets and whose outputs are contiguous.
func ewKernel(shape []int, p device.Program, in []device.View, outs ...device.DType) *device.ElementwiseKernel {
	k := &device.ElementwiseKernel{Shape: shape, Inputs: in, Program: p}
	for _, dt := range outs {
		k.Outputs = append(k.Outputs, device.Contiguous(fakeBuf(1<<20), dt, 0, shape))
	}
	return k
}

func TestRenderIsShapedBySignatureOnly(t *testing.T) {
	f32 := device.Float32
	prog := func(c float64, seed uint64) device.Program {
		return program(func(b *device.Builder) {
			x := b.Input(0, f32)
			b.Output(b.Binary(device.OpMul, x, b.Const(c, f32)))
			b.Output(b.Binary(device.OpAdd, b.Rand(seed, false), b.Unary(device.OpExp, x)))
		})
	}
	small := ewKernel([]int{4, 5}, prog(2, 1), []device.View{device.Contiguous(fakeBuf(80), f32, 0, []int{4, 5})}, f32, device.Float16)
	big := ewKernel([]int{3, 7, 9}, prog(0.5, 99), []device.View{{Buf: fakeBuf(1 << 12), DType: f32, Offset: 200, Shape: []int{3, 7, 9}, Strides: []int{-63, 0, 1}}}, f32, device.Float16)
	require.NoError(t, small.Validate())
	require.NoError(t, big.Validate())
	assert.Equal(t, ewSignature(small), ewSignature(big))
	src := renderElementwise(small)
	assert.Equal(t, src, renderElementwise(big), "shapes, strides, constants and seeds are parameters")
	assert.True(t, strings.HasPrefix(src, opsSource))
	assert.Contains(t, src, `extern "C" __global__ void sf_elementwise(const sf_ew_params p)`)
	assert.Contains(t, src, "const float r0 = sf_ld_f32(p.in[0], e0);")
	assert.Contains(t, src, "const float r2 = op_mul(r0, r1);")
	assert.Contains(t, src, "sf_rand_uniform((unsigned)p.imm[1], (unsigned)pos)")
	assert.Contains(t, src, "sf_st_f16(p.out[1], p.out_off[1] + i, r5);")

	other := ewKernel([]int{4, 5}, prog(2, 1), []device.View{device.Contiguous(fakeBuf(80), device.Float16, 0, []int{4, 5})}, f32, device.Float16)
	assert.NotEqual(t, ewSignature(small), ewSignature(other), "an input's dtype is part of the signature")
}

func TestRenderCastsAndConstants(t *testing.T) {
	f32, i32, bl := device.Float32, device.Int32, device.Bool
	p := program(func(b *device.Builder) {
		x := b.Input(0, f32)
		b.Output(b.Cast(x, i32))
		b.Output(b.Cast(b.Const(1, bl), f32))
		b.Output(b.Where(b.Binary(device.OpLt, x, b.Const(0.5, f32)), b.Const(-3, i32), b.Index()))
	})
	k := ewKernel([]int{6}, p, []device.View{device.Contiguous(fakeBuf(24), f32, 0, []int{6})}, i32, f32, i32)
	require.NoError(t, k.Validate())
	src := renderElementwise(k)
	assert.Contains(t, src, "op_cast<int, float>(r0)")
	assert.Contains(t, src, "(p.imm[0] != 0)")
	assert.Contains(t, src, "(int)p.imm[2]")
	assert.Contains(t, src, "op_where(r")
	assert.Contains(t, src, "(int)(unsigned)pos")

	ptrs := []uint64{0x1000, 0x2000, 0x3000, 0x4000}
	ls, err := planElementwise(k, ptrs)
	require.NoError(t, err)
	require.Len(t, ls, 1)
	l := ewLayout{nin: 1, nout: 3, nimm: 3}
	w := ls[0]
	require.Len(t, w, l.words())
	assert.Equal(t, []int64{1, int64(math.Float32bits(0.5)), -3}, w[l.imm():], "bool, float bits, int")
	assert.Equal(t, []int64{0x2000, 0x3000, 0x4000}, w[l.outPtr():l.outPtr()+3])
}

func TestPlanMergesAndSplitsDims(t *testing.T) {
	f32 := device.Float32
	p := program(func(b *device.Builder) { b.Output(b.Binary(device.OpAdd, b.Input(0, f32), b.Input(1, f32))) })
	// [2,1,3,4]: input 0 contiguous, input 1 broadcast along the last two
	// dimensions with a negative stride on the first.
	shape := []int{2, 1, 3, 4}
	a := device.Contiguous(fakeBuf(96), f32, 0, shape)
	b := device.View{Buf: fakeBuf(8), DType: f32, Offset: 1, Shape: shape, Strides: []int{-1, 5, 0, 0}}
	k := ewKernel(shape, p, []device.View{a, b}, f32)
	require.NoError(t, k.Validate())
	ls, err := planElementwise(k, []uint64{1, 2, 3})
	require.NoError(t, err)
	require.Len(t, ls, 1)
	l := ewLayout{nin: 2, nout: 1, nimm: 0}
	w := ls[0]
	assert.Equal(t, []int64{24, 2, 0}, w[:3], "n, rank, base: the size-one dimension dropped, the last two merged")
	assert.Equal(t, []int64{2, 12}, w[3:5])
	assert.Equal(t, []int64{12, 1}, w[l.inStride():l.inStride()+2])
	assert.Equal(t, []int64{-1, 0}, w[l.inStride()+ewMaxRank:l.inStride()+ewMaxRank+2])
	assert.Equal(t, []int64{0, 1}, w[l.inOff():l.inOff()+2])

	// Ten dimensions of two, every input transposed so nothing merges:
	// two leading dimensions are looped over, four launches of 256.
	shape = []int{2, 2, 2, 2, 2, 2, 2, 2, 2, 2}
	rev := make([]int, 10)
	for i := range rev {
		rev[i] = 1 << i
	}
	tv := device.View{Buf: fakeBuf(4096), DType: f32, Offset: 0, Shape: shape, Strides: rev}
	k = ewKernel(shape, p, []device.View{tv, tv}, f32)
	k.Outputs[0].Offset = 5
	require.NoError(t, k.Validate())
	ls, err = planElementwise(k, []uint64{1, 2, 3})
	require.NoError(t, err)
	require.Len(t, ls, 4)
	for i, w := range ls {
		assert.Equal(t, []int64{256, 8, int64(256 * i)}, w[:3])
		assert.Equal(t, int64(i>>1+(i&1)*2), w[l.inOff()], "launch %d's input offset", i)
		assert.Equal(t, int64(5+256*i), w[l.outOff()], "launch %d's output offset", i)
	}

	empty := ewKernel([]int{3, 0}, p, []device.View{device.Contiguous(fakeBuf(4), f32, 0, []int{3, 0}), device.Contiguous(fakeBuf(4), f32, 0, []int{3, 0})}, f32)
	ls, err = planElementwise(empty, []uint64{1, 2, 3})
	require.NoError(t, err)
	assert.Empty(t, ls)
}

func TestPlanRefusesOversizedParameters(t *testing.T) {
	f32 := device.Float32
	p := program(func(b *device.Builder) {
		x := b.Input(0, f32)
		for i := 0; i < 600; i++ {
			x = b.Binary(device.OpAdd, x, b.Const(float64(i), f32))
		}
		b.Output(x)
	})
	k := ewKernel([]int{4}, p, []device.View{device.Contiguous(fakeBuf(16), f32, 0, []int{4})}, f32)
	require.NoError(t, k.Validate())
	_, err := planElementwise(k, []uint64{1, 2})
	require.ErrorIs(t, err, ErrNotImplemented)
	assert.Contains(t, err.Error(), "more than 4096")
}

// rdKernel makes a sum of a contiguous float32 input of out ++ red with a
// prologue that scales by c and an identity epilogue.
func rdKernel(out, red []int, c float64) *device.ReduceKernel {
	f32 := device.Float32
	full := append(append([]int{}, out...), red...)
	return &device.ReduceKernel{Op: device.ReduceSum, OutShape: out, RedShape: red,
		Inputs:   []device.View{device.Contiguous(fakeBuf(4*max(1, device.NumElements(full))), f32, 0, full)},
		Prologue: program(func(b *device.Builder) { b.Output(b.Binary(device.OpMul, b.Input(0, f32), b.Const(c, f32))) }),
		Epilogue: device.Identity(f32),
		Outputs:  []device.View{device.Contiguous(fakeBuf(4*max(1, device.NumElements(out))), f32, 0, out)}}
}

func TestRenderReduceIsShapedBySignatureOnly(t *testing.T) {
	a, b := rdKernel([]int{3}, []int{4, 5}, 2), rdKernel([]int{2, 7}, []int{9}, -1)
	require.NoError(t, a.Validate())
	require.NoError(t, b.Validate())
	assert.Equal(t, rdSignature(a), rdSignature(b))
	src := renderReduce(a)
	assert.Equal(t, src, renderReduce(b))
	assert.Contains(t, src, `extern "C" __global__ void sf_reduce(const sf_rd_params p)`)
	assert.Contains(t, src, "const float a2 = op_mul(a0, a1);")
	assert.Contains(t, src, "const float b0 = acc;")
	b.Op = device.ReduceArgMax
	b.Epilogue = device.Identity(device.Int32)
	b.Outputs[0].DType = device.Int32
	require.NoError(t, b.Validate())
	assert.NotEqual(t, rdSignature(a), rdSignature(b), "the reduction is part of the signature")
	assert.Contains(t, renderReduce(b), "const int b0 = (int)arg;")
	assert.NotEqual(t, ewSignature(&device.ElementwiseKernel{Program: a.Prologue}), rdSignature(a))
}

func TestPlanReduce(t *testing.T) {
	k := rdKernel([]int{3, 4}, []int{5, 6}, 2)
	require.NoError(t, k.Validate())
	ls, err := planReduce(k, []uint64{1, 2})
	require.NoError(t, err)
	require.Len(t, ls, 1)
	l := rdLayout{nin: 1, nep: 0, nout: 1, nimm: 1}
	w := ls[0]
	require.Len(t, w, l.words())
	assert.Equal(t, []int64{12, 1, 0, 12}, w[:4], "n, rank, base and the merged output shape")
	assert.Equal(t, []int64{30, 1, 30}, w[l.rn():l.rn()+3], "the merged reduced shape")
	assert.Equal(t, int64(30), w[l.inStride()])
	assert.Equal(t, int64(1), w[l.inRStride()])
	assert.Equal(t, int64(math.Float32bits(2)), w[l.imm()])

	transposed := rdKernel([]int{2}, []int{3, 3, 3, 3, 3, 3, 3, 3, 3}, 1)
	st := transposed.Inputs[0].Strides
	for i, j := 1, len(st)-1; i < j; i, j = i+1, j-1 {
		st[i], st[j] = st[j], st[i] // reversed reduced dimensions: nothing merges
	}
	require.NoError(t, transposed.Validate())
	_, err = planReduce(transposed, []uint64{1, 2})
	require.ErrorIs(t, err, ErrNotImplemented)
	assert.Contains(t, err.Error(), "9 reduced dimensions")

	ls, err = planReduce(rdKernel([]int{0, 3}, []int{4}, 1), []uint64{1, 2})
	require.NoError(t, err)
	assert.Empty(t, ls, "no output element, no launch")
}
