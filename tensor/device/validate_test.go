package device

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// fakeBuf is a Buffer of a given size for validation tests.
type fakeBuf int64

func (b fakeBuf) Bytes() int64 { return int64(b) }

// f32 returns a contiguous Float32 view of shape over a buffer that fits it exactly.
func f32(shape ...int) View {
	return Contiguous(fakeBuf(4*NumElements(shape)), Float32, 0, shape)
}

// addProgram is out0 = in0 + in1 in Float32.
func addProgram() Program {
	var b Builder
	b.Output(b.Binary(OpAdd, b.Input(0, Float32), b.Input(1, Float32)))
	return b.P
}

func goodElementwise() *ElementwiseKernel {
	return &ElementwiseKernel{
		Shape:   []int{3, 4},
		Inputs:  []View{f32(3, 4), {Buf: fakeBuf(16), DType: Float32, Shape: []int{3, 4}, Strides: []int{0, 1}}},
		Program: addProgram(),
		Outputs: []View{f32(3, 4)},
	}
}

func TestProgramValidateAccepts(t *testing.T) {
	var b Builder
	x := b.Input(0, Float16)
	i := b.Input(1, Int32)
	m := b.Input(2, Bool)
	xi := b.Cast(x, Int32)
	s := b.Binary(OpDiv, xi, i)
	c := b.Binary(OpLt, s, b.Const(3, Int32))
	w := b.Where(b.Binary(OpAnd, c, m), x, b.Rand(7, true))
	b.Output(b.Fma(w, b.Unary(OpExp, w), b.Cast(b.Index(), Float32)))
	b.Output(b.Unary(OpNot, b.Unary(OpIsNaN, x)))
	b.Output(b.Unary(OpAbs, s))
	require.NoError(t, b.P.Validate([]DType{Float16, Int32, Bool}))
	require.NoError(t, Identity(BFloat16).Validate([]DType{BFloat16}))
}

func TestProgramValidateRejects(t *testing.T) {
	in := func(i int, t DType) Instr { return Instr{Op: OpInput, Type: t, Index: i} }
	cases := []struct {
		name  string
		p     Program
		types []DType
		msg   string
	}{
		{"no outputs", Program{Code: []Instr{in(0, Float32)}}, []DType{Float32}, "no outputs"},
		{"output range", Program{Code: []Instr{in(0, Float32)}, Outputs: []Reg{1}}, []DType{Float32}, "output 0"},
		{"forward ref", Program{Code: []Instr{{Op: OpNeg, Type: Float32, Args: [3]Reg{0}}}, Outputs: []Reg{0}}, nil, "not defined"},
		{"negative ref", Program{Code: []Instr{in(0, Float32), {Op: OpNeg, Type: Float32, Args: [3]Reg{-1}}}, Outputs: []Reg{1}}, []DType{Float32}, "not defined"},
		{"input range", Program{Code: []Instr{in(1, Float32)}, Outputs: []Reg{0}}, []DType{Float32}, "out of range"},
		{"input type", Program{Code: []Instr{in(0, Float16)}, Outputs: []Reg{0}}, []DType{Float16}, "not a register type"},
		{"input int type", Program{Code: []Instr{in(0, Float32)}, Outputs: []Reg{0}}, []DType{Int32}, "loads as int32"},
		{"unused last input", Program{Code: []Instr{in(0, Float32)}, Outputs: []Reg{0}}, []DType{Float32, Float32}, "loads 1 inputs, kernel has 2"},
		{"bad op", Program{Code: []Instr{{Op: NumOps, Type: Float32}}, Outputs: []Reg{0}}, nil, "unknown op"},
		{"bad type", Program{Code: []Instr{{Op: OpConst, Type: Float16}}, Outputs: []Reg{0}}, nil, "not a register type"},
		{"exp int", Program{Code: []Instr{in(0, Int32), {Op: OpExp, Type: Int32, Args: [3]Reg{0}}}, Outputs: []Reg{1}}, []DType{Int32}, "needs float32"},
		{"add mixed", Program{Code: []Instr{in(0, Int32), in(1, Float32), {Op: OpAdd, Type: Float32, Args: [3]Reg{0, 1}}}, Outputs: []Reg{2}}, []DType{Int32, Float32}, "result type"},
		{"add bool", Program{Code: []Instr{in(0, Bool), {Op: OpAdd, Type: Bool, Args: [3]Reg{0, 0}}}, Outputs: []Reg{1}}, []DType{Bool}, "numeric arguments"},
		{"exp int64", Program{Code: []Instr{in(0, Int64), {Op: OpExp, Type: Int64, Args: [3]Reg{0}}}, Outputs: []Reg{1}}, []DType{Int64}, "exp is not defined on int64"},
		{"is_nan int64", Program{Code: []Instr{in(0, Int64), {Op: OpIsNaN, Type: Bool, Args: [3]Reg{0}}}, Outputs: []Reg{1}}, []DType{Int64}, "not defined on int64"},
		{"add int64 int32", Program{Code: []Instr{in(0, Int64), in(1, Int32), {Op: OpAdd, Type: Int64, Args: [3]Reg{0, 1}}}, Outputs: []Reg{2}}, []DType{Int64, Int32}, "result type"},
		{"int64 const", Program{Code: []Instr{{Op: OpConst, Type: Int64, Imm: 0.5}}, Outputs: []Reg{0}}, nil, "not an int64"},
		{"uint8 loads int32", Program{Code: []Instr{in(0, Uint8)}, Outputs: []Reg{0}}, []DType{Uint8}, "not a register type"},
		{"compare type", Program{Code: []Instr{in(0, Float32), {Op: OpLt, Type: Float32, Args: [3]Reg{0, 0}}}, Outputs: []Reg{1}}, []DType{Float32}, "yields bool"},
		{"where cond", Program{Code: []Instr{in(0, Float32), {Op: OpWhere, Type: Float32, Args: [3]Reg{0, 0, 0}}}, Outputs: []Reg{1}}, []DType{Float32}, "bool condition"},
		{"not float", Program{Code: []Instr{in(0, Float32), {Op: OpNot, Type: Bool, Args: [3]Reg{0}}}, Outputs: []Reg{1}}, []DType{Float32}, "needs bool"},
		{"index type", Program{Code: []Instr{{Op: OpIndex, Type: Float32}}, Outputs: []Reg{0}}, nil, "int32"},
		{"int const", Program{Code: []Instr{{Op: OpConst, Type: Int32, Imm: 1.5}}, Outputs: []Reg{0}}, nil, "not an int32"},
		{"bool const", Program{Code: []Instr{{Op: OpConst, Type: Bool, Imm: 2}}, Outputs: []Reg{0}}, nil, "not 0 or 1"},
		{"fma int", Program{Code: []Instr{in(0, Int32), {Op: OpFma, Type: Int32, Args: [3]Reg{0, 0, 0}}}, Outputs: []Reg{1}}, []DType{Int32}, "needs float32"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := c.p.Validate(c.types)
			require.Error(t, err)
			assert.Contains(t, err.Error(), c.msg)
			assert.Contains(t, err.Error(), "device: ")
		})
	}
}

func TestElementwiseValidate(t *testing.T) {
	require.NoError(t, goodElementwise().Validate())
	var nilK *ElementwiseKernel
	require.Error(t, nilK.Validate())

	cases := []struct {
		name   string
		mutate func(k *ElementwiseKernel)
		msg    string
	}{
		{"negative shape", func(k *ElementwiseKernel) { k.Shape = []int{-1, 4} }, "negative"},
		{"input shape", func(k *ElementwiseKernel) { k.Inputs[0] = f32(4, 3) }, "input 0 has shape [4 3], want [3 4]"},
		{"no buffer", func(k *ElementwiseKernel) { k.Inputs[1].Buf = nil }, "input 1 has no buffer"},
		{"strides rank", func(k *ElementwiseKernel) { k.Inputs[1].Strides = []int{1} }, "strides"},
		{"outside buffer", func(k *ElementwiseKernel) { k.Inputs[1].Offset = 1 }, "outside its buffer"},
		{"negative span", func(k *ElementwiseKernel) { k.Inputs[1].Strides = []int{0, -1} }, "outside its buffer"},
		{"huge stride", func(k *ElementwiseKernel) { k.Inputs[1].Strides = []int{1 << 62, 1} }, "out of range"},
		{"bad dtype", func(k *ElementwiseKernel) { k.Inputs[0].DType = Invalid }, "invalid dtype"},
		{"missing input", func(k *ElementwiseKernel) { k.Inputs = k.Inputs[:1] }, "out of range"},
		{"output count", func(k *ElementwiseKernel) { k.Outputs = append(k.Outputs, f32(3, 4)) }, "program has 1 outputs, kernel has 2"},
		{"output shape", func(k *ElementwiseKernel) { k.Outputs[0] = f32(12) }, "output 0 has shape [12], want [3 4]"},
		{"output strided", func(k *ElementwiseKernel) {
			k.Outputs[0] = View{Buf: fakeBuf(4 * 12), DType: Float32, Shape: []int{3, 4}, Strides: []int{1, 3}}
		}, "not contiguous"},
		{"store int", func(k *ElementwiseKernel) { k.Outputs[0] = Contiguous(fakeBuf(48), Int32, 0, []int{3, 4}) }, "stores a float32 register"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			k := goodElementwise()
			c.mutate(k)
			err := k.Validate()
			require.Error(t, err)
			assert.Contains(t, err.Error(), "device: elementwise: ")
			assert.Contains(t, err.Error(), c.msg)
		})
	}

	// Half-precision stores of float registers are allowed.
	k := goodElementwise()
	k.Outputs[0] = Contiguous(fakeBuf(24), Float16, 0, []int{3, 4})
	require.NoError(t, k.Validate())
	// Empty views need no room in their buffer.
	k = &ElementwiseKernel{Shape: []int{0, 5}, Inputs: []View{{Buf: fakeBuf(0), DType: Float32, Offset: 99, Shape: []int{0, 5}, Strides: []int{5, 1}}},
		Program: Identity(Float32), Outputs: []View{f32(0, 5)}}
	require.NoError(t, k.Validate())
}

func TestValidateAllocatesNothing(t *testing.T) {
	k := goodElementwise()
	allocs := testing.AllocsPerRun(100, func() {
		if k.Validate() != nil {
			panic("invalid")
		}
	})
	assert.Zero(t, allocs)
	m := goodMatMul()
	allocs = testing.AllocsPerRun(100, func() {
		if m.Validate() != nil {
			panic("invalid")
		}
	})
	assert.Zero(t, allocs)
}

func goodReduce() *ReduceKernel {
	return &ReduceKernel{
		Op: ReduceSum, OutShape: []int{2}, RedShape: []int{3, 5},
		Inputs:   []View{f32(2, 3, 5)},
		Prologue: Identity(Float32),
		Epilogue: Identity(Float32),
		Outputs:  []View{f32(2)},
	}
}

func TestReduceValidate(t *testing.T) {
	require.NoError(t, goodReduce().Validate())
	cases := []struct {
		name   string
		mutate func(k *ReduceKernel)
		msg    string
	}{
		{"op", func(k *ReduceKernel) { k.Op = 99 }, "unknown reduction"},
		{"input shape", func(k *ReduceKernel) { k.Inputs[0] = f32(2, 15) }, "want [2 3 5]"},
		{"prologue outputs", func(k *ReduceKernel) { k.Prologue.Outputs = append(k.Prologue.Outputs, 0) }, "exactly one output"},
		{"prologue bool", func(k *ReduceKernel) {
			k.Inputs[0] = Contiguous(fakeBuf(30), Bool, 0, []int{2, 3, 5})
			k.Prologue = Identity(Bool)
		}, "prologue yields bool"},
		{"prologue int, epilogue float", func(k *ReduceKernel) {
			k.Inputs[0] = Contiguous(fakeBuf(120), Int32, 0, []int{2, 3, 5})
			k.Prologue = Identity(Int32)
		}, "loads as int32, not float32"},
		{"empty max", func(k *ReduceKernel) {
			k.Op = ReduceMax
			k.RedShape = []int{0}
			k.Inputs[0] = f32(2, 0)
		}, "no identity"},
		{"argmax float epilogue", func(k *ReduceKernel) { k.Op = ReduceArgMax }, "loads as int32"},
		{"epilogue input shape", func(k *ReduceKernel) {
			var b Builder
			b.Output(b.Binary(OpMul, b.Input(0, Float32), b.Input(1, Float32)))
			k.Epilogue = b.P
			k.EpilogueInputs = []View{f32(3)}
		}, "epilogue input 0 has shape [3], want [2]"},
		{"output shape", func(k *ReduceKernel) { k.Outputs[0] = f32(2, 1) }, "output 0 has shape"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			k := goodReduce()
			c.mutate(k)
			err := k.Validate()
			require.Error(t, err)
			assert.Contains(t, err.Error(), "device: reduce: ")
			assert.Contains(t, err.Error(), c.msg)
		})
	}
	k := goodReduce()
	k.Op = ReduceArgMin
	k.Epilogue = Identity(Int32)
	k.Outputs[0] = Contiguous(fakeBuf(8), Int32, 0, []int{2})
	require.NoError(t, k.Validate())
	k = goodReduce()
	k.RedShape = []int{0}
	k.Inputs[0] = f32(2, 0)
	require.NoError(t, k.Validate(), "an empty sum is zero")
}

func goodMatMul() *MatMulKernel {
	return &MatMulKernel{
		Batch: []int{2}, M: 3, N: 4, K: 5,
		A: f32(2, 3, 5),
		// B is a transposed, batch-broadcast view of a [4, 5] buffer.
		B:        View{Buf: fakeBuf(80), DType: Float32, Shape: []int{2, 5, 4}, Strides: []int{0, 1, 5}},
		Epilogue: Identity(Float32),
		Outputs:  []View{f32(2, 3, 4)},
	}
}

func TestMatMulValidate(t *testing.T) {
	require.NoError(t, goodMatMul().Validate())
	cases := []struct {
		name   string
		mutate func(k *MatMulKernel)
		msg    string
	}{
		{"negative", func(k *MatMulKernel) { k.M = -1 }, "bad sizes"},
		{"A shape", func(k *MatMulKernel) { k.A = f32(2, 5, 3) }, "A has shape [2 5 3], want [2 3 5]"},
		{"B dtype", func(k *MatMulKernel) { k.B.DType = Float16 }, "B has dtype float16"},
		{"B outside", func(k *MatMulKernel) { k.B.Strides = []int{0, 1, 6} }, "outside its buffer"},
		{"output", func(k *MatMulKernel) { k.Outputs[0] = f32(2, 4, 3) }, "want [2 3 4]"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			k := goodMatMul()
			c.mutate(k)
			err := k.Validate()
			require.Error(t, err)
			assert.Contains(t, err.Error(), "device: matmul: ")
			assert.Contains(t, err.Error(), c.msg)
		})
	}
}

func conv2d() ConvGeometry {
	// 7x6 input, 3x2 kernel, stride 2x1, padding 1x0, dilation 1x2:
	// out = floor((7+2-2-1)/2)+1 = 4, floor((6+0-2-1)/1)+1 = 4.
	return ConvGeometry{N: 2, C: 4, O: 6, Groups: 2, In: []int{7, 6}, Kernel: []int{3, 2}, Out: []int{4, 4},
		Stride: []int{2, 1}, Padding: []int{1, 0}, Dilation: []int{1, 2}}
}

func TestConvValidate(t *testing.T) {
	g := conv2d()
	fwd := &ConvKernel{Geom: g, A: f32(2, 4, 7, 6), B: f32(6, 2, 3, 2), Epilogue: Identity(Float32), Outputs: []View{f32(2, 6, 4, 4)}}
	require.NoError(t, fwd.Validate())
	bwdIn := &ConvKernel{Mode: ConvBackwardInput, Geom: g, A: f32(2, 6, 4, 4), B: f32(6, 2, 3, 2), Epilogue: Identity(Float32), Outputs: []View{f32(2, 4, 7, 6)}}
	require.NoError(t, bwdIn.Validate())
	bwdW := &ConvKernel{Mode: ConvBackwardWeight, Geom: g, A: f32(2, 6, 4, 4), B: f32(2, 4, 7, 6), Epilogue: Identity(Float32), Outputs: []View{f32(6, 2, 3, 2)}}
	require.NoError(t, bwdW.Validate())

	bad := *fwd
	bad.Geom.Out = []int{4, 5}
	err := bad.Validate()
	require.Error(t, err)
	assert.Contains(t, err.Error(), "dimension 1 should be 4")

	bad = *fwd
	bad.Geom.Groups = 3
	require.ErrorContains(t, bad.Validate(), "divisible by Groups=3")

	bad = *fwd
	bad.Geom.In, bad.Geom.Out = []int{1, 2, 3, 4}, []int{1, 2, 3, 4}
	require.ErrorContains(t, bad.Validate(), "want 1 to 3")

	bad = *fwd
	bad.Geom.Stride = []int{0, 1}
	require.ErrorContains(t, bad.Validate(), "Stride")

	bad = *bwdW
	bad.B = f32(2, 4, 6, 7)
	require.ErrorContains(t, bad.Validate(), "B (X) has shape [2 4 6 7], want [2 4 7 6]")

	bad = *bwdIn
	bad.Outputs = []View{f32(2, 6, 4, 4)}
	require.ErrorContains(t, bad.Validate(), "want [2 4 7 6]")
}

func TestPoolValidate(t *testing.T) {
	g := ConvGeometry{N: 1, C: 3, O: 3, Groups: 3, In: []int{5}, Kernel: []int{3}, Out: []int{3}, Stride: []int{2}, Padding: []int{1}, Dilation: []int{1}}
	idx := Contiguous(fakeBuf(36), Int32, 0, []int{1, 3, 3})
	fwd := &PoolKernel{Geom: g, X: f32(1, 3, 5), Out: f32(1, 3, 3), Indices: idx}
	require.NoError(t, fwd.Validate())
	bwd := &PoolKernel{Backward: true, Geom: g, X: f32(1, 3, 3), Out: f32(1, 3, 5), Indices: idx}
	require.NoError(t, bwd.Validate())

	bad := *bwd
	bad.Indices = View{}
	require.ErrorContains(t, bad.Validate(), "needs Indices")
	bad = *fwd
	bad.Indices.DType = Float32
	require.ErrorContains(t, bad.Validate(), "Indices has dtype float32")
	bad = *fwd
	bad.Geom.O = 4
	require.ErrorContains(t, bad.Validate(), "O = Groups = C")
	bad = *fwd
	bad.Geom.Padding = []int{2}
	bad.Geom.Out = []int{4}
	require.ErrorContains(t, bad.Validate(), "at most half")

	adaptive := &PoolKernel{Op: PoolAvg, Adaptive: true, Geom: ConvGeometry{N: 1, C: 3, O: 3, Groups: 3, In: []int{5}, Out: []int{4}}, X: f32(1, 3, 5), Out: f32(1, 3, 4)}
	require.NoError(t, adaptive.Validate())
}

func TestGatherScatterCopyValidate(t *testing.T) {
	idx := Contiguous(fakeBuf(24), Int32, 0, []int{2, 3})
	gk := &GatherKernel{Axis: 1, Src: f32(4, 5), Index: idx, Out: f32(2, 3)}
	require.NoError(t, gk.Validate())
	bad := *gk
	bad.Axis = 2
	require.ErrorContains(t, bad.Validate(), "axis 2 out of range")
	bad = *gk
	bad.Index = Contiguous(fakeBuf(24), Float32, 0, []int{2, 3})
	require.ErrorContains(t, bad.Validate(), "Index has dtype float32")
	bad = *gk
	bad.Src = f32(1, 5)
	require.ErrorContains(t, bad.Validate(), "exceeds Src shape")
	bad = *gk
	bad.Out = Contiguous(fakeBuf(24), Int32, 0, []int{2, 3})
	require.ErrorContains(t, bad.Validate(), "Out has dtype int32")

	sk := &ScatterKernel{Axis: 0, Dst: f32(4, 5), Index: idx, Src: f32(2, 3)}
	require.NoError(t, sk.Validate())
	bads := *sk
	bads.Src = f32(3, 2)
	require.ErrorContains(t, bads.Validate(), "Src has shape [3 2], want [2 3]")
	bads = *sk
	bads.Dst = View{Buf: fakeBuf(80), DType: Float32, Shape: []int{4, 5}, Strides: []int{1, 4}}
	require.ErrorContains(t, bads.Validate(), "not contiguous")

	ck := &CopyKernel{Src: f32(2, 3), Dst: View{Buf: fakeBuf(4 * 12), DType: Float32, Offset: 1, Shape: []int{2, 3}, Strides: []int{6, 2}}}
	require.NoError(t, ck.Validate())
	badc := *ck
	badc.Dst.Strides = []int{0, 1}
	require.ErrorContains(t, badc.Validate(), "writes one element twice")
	badc = *ck
	badc.Dst.DType = Int32
	require.ErrorContains(t, badc.Validate(), "dtype int32, want float32")
}

func TestNumElementsRefusesOverflow(t *testing.T) {
	assert.Equal(t, 0, NumElements([]int{3, 0, 1 << 62}))
	assert.Equal(t, 24, NumElements([]int{2, 3, 4}))
	assert.Equal(t, 1, NumElements(nil))
	for _, shape := range [][]int{{(1 << 62) + 1, 4}, {1 << 32, 1 << 32}, {3, -1}} {
		assert.PanicsWithValue(t, fmt.Sprintf("device.NumElements: shape %v has a negative dimension or more elements than an int holds", shape),
			func() { NumElements(shape) }, "%v", shape)
	}
}
