package gpu

import (
	"math"
	"slices"

	"github.com/shaderflow/shaderflow/tensor/device"
)

// Hook names: the hook functions the kernel kinds call.
const (
	HookElementwise    = "ew_program"
	HookReducePrologue = "reduce_prologue"
	HookReduceEpilogue = "reduce_epilogue"
	HookEpilogue       = "epilogue"
)

// Hook is one fused program of a launch: which hook function runs it, where
// its block is and what code generation may specialize on.
type Hook struct {
	Name    string // one of the Hook* names
	Program device.Program
	Header  int  // the header word that holds the block's offset
	Acc     bool // OpInput 0 is the accumulator the kernel passes in
	NIn     int  // views loaded (the accumulator not counted)
	NOut    int  // views stored
	Rank    int  // rank of the block's (coalesced) space
	// Views are the block's views, inputs then outputs.
	Views []HookView
	// Imm is the word offset from the block's start of the immediates,
	// one word per instruction: generated code reads constants and stream
	// keys there (ImmWord), so that they are never compile-time constants
	// and one pipeline serves every value (see wgsl.go).
	Imm int
	// Base is the word offset from the block's start of its position base:
	// the position of the launch's first element in the whole kernel's
	// space, which OpIndex and the random streams add to the hook's
	// position (non-zero in the slabs of a split kernel, slabs.go).
	Base int
}

// HookView is what generated code knows about a program view.
type HookView struct {
	Desc       int // word offset of the descriptor from the block's start
	Binding    int
	DType      device.DType
	Contiguous bool // element = offset + position
}

// block appends a program block for prog over the iteration space shape
// (inputs and outputs are views of shape) and stores its offset in header
// word hdr. acc says that OpInput 0 is the kernel's accumulator. The
// block's position base is e.base.
func (e *encoder) block(hdr int, name string, prog device.Program, shape []int, inputs, outputs []device.View, acc bool) Hook {
	nv := len(inputs) + len(outputs)
	view := func(i int) device.View {
		if i < len(inputs) {
			return inputs[i]
		}
		return outputs[i-len(inputs)]
	}
	var sbuf [16][]int
	strides := sbuf[:0]
	for i := 0; i < nv; i++ {
		strides = append(strides, view(i).Strides)
	}
	cshape, cstrides := coalesce(shape, strides)
	nout := len(outputs)
	blk := e.here()
	e.set(hdr, uint32(blk))
	e.putInts(cshape)
	contig := device.ContiguousStrides(cshape)
	hv := make([]HookView, nv)
	for i := range hv {
		v := view(i)
		c := slices.Equal(cstrides[i], contig)
		desc := e.view(v, cstrides[i], c)
		hv[i] = HookView{Desc: desc - blk, Binding: e.lastBinding, DType: v.DType, Contiguous: c}
	}
	immAt := e.here()
	for _, in := range prog.Code {
		e.put(immediate(in))
	}
	baseAt := e.here()
	e.put(e.count(e.base))
	return Hook{Name: name, Program: prog, Header: hdr, Acc: acc, NIn: len(inputs), NOut: nout, Rank: len(cshape), Views: hv, Imm: immAt - blk, Base: baseAt - blk}
}

func b2u(b bool) uint32 {
	if b {
		return 1
	}
	return 0
}

// coalesce drops dimensions of size one and merges adjacent dimensions that
// every view traverses as one (stride[i] == stride[i+1]*shape[i+1]), which
// keeps row-major positions unchanged and saves divisions in the shaders.
func coalesce(shape []int, strides [][]int) ([]int, [][]int) {
	var cs []int
	cst := make([][]int, len(strides))
	for d := range shape {
		if shape[d] == 1 {
			continue
		}
		last := len(cs) - 1
		merge := last >= 0 && shape[d] != 0 && cs[last] != 0
		for k := range strides {
			if merge && cst[k][last] != strides[k][d]*shape[d] {
				merge = false
			}
		}
		if merge {
			cs[last] *= shape[d]
			for k := range strides {
				cst[k][last] = strides[k][d]
			}
			continue
		}
		cs = append(cs, shape[d])
		for k := range strides {
			cst[k] = append(cst[k], strides[k][d])
		}
	}
	if cs == nil {
		cs = []int{}
	}
	for k := range cst {
		if cst[k] == nil {
			cst[k] = []int{}
		}
	}
	return cs, cst
}

// ImmWord returns the word offset from the block's start of instruction i's
// immediate.
func (h Hook) ImmWord(i int) int { return h.Imm + i }

// immediate returns an instruction's immediate word.
func immediate(in device.Instr) uint32 {
	switch in.Op {
	case device.OpInput:
		return uint32(in.Index)
	case device.OpConst:
		return constBits(in)
	case device.OpRandUniform, device.OpRandNormal:
		return device.StreamKey(in.Seed)
	}
	return 0
}

// constBits returns a constant's compute-type bits.
func constBits(in device.Instr) uint32 {
	switch in.Type {
	case device.Int32:
		return uint32(int32(in.Imm))
	case device.Bool:
		return b2u(in.Imm != 0)
	}
	return math.Float32bits(float32(in.Imm))
}

// DTypes are the element types the WGSL kernels store and compute, the
// Info.DTypes of both backends: the base types and Uint8 and Int8, which
// are packed four a word like Bool, load as Int32 (zero- or sign-extended)
// and store the register's low byte (device.StoreInt32). They have no
// 64-bit integer and no float64 arithmetic.
var DTypes = device.BaseDTypes | device.DTypes(device.Uint8, device.Int8)

// checkDTypes refuses a kernel that uses an element type outside DTypes, or
// a reduction accumulating in another type than Float32, with an error
// naming the type.
func checkDTypes(k any) error {
	return device.CheckDTypes("gpu (vulkan, webgpu)", DTypes, device.DTypes(device.Float32), k)
}
