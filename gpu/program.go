package gpu

import (
	"fmt"
	"math"
	"slices"

	"github.com/shaderflow/shaderflow/tensor/device"
)

// MaxRegisters bounds the registers the encoded bytecode may use (a limit
// of the former bytecode interpreter that the encoding keeps: the generated
// hooks read only the bytecode's immediates); programs needing more live
// values are refused.
const MaxRegisters = 64

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
	// Code is the word offset of the bytecode from the block's start:
	// generated code reads constants and stream keys from the immediates
	// there, so that they are never compile-time constants (see wgsl.go).
	Code int
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

// Program block fields (PB_* in common.wgsl).
const (
	pbRank    = 0
	pbNIn     = 1
	pbNOut    = 2
	pbAcc     = 3
	pbNCode   = 4
	pbCode    = 5
	pbOutRegs = 6
	pbShape   = 7
)

// instrWords is the size of one bytecode instruction.
const instrWords = 5

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
	e.put(uint32(len(cshape)), uint32(len(inputs)), uint32(nout), b2u(acc), uint32(len(prog.Code)), 0, 0)
	e.putInts(cshape)
	contig := device.ContiguousStrides(cshape)
	hv := make([]HookView, nv)
	for i := range hv {
		v := view(i)
		c := slices.Equal(cstrides[i], contig)
		desc := e.view(v, cstrides[i], c)
		hv[i] = HookView{Desc: desc - blk, Binding: e.lastBinding, DType: v.DType, Contiguous: c}
	}
	code, outs, err := bytecode(prog)
	if err != nil {
		e.fail("%v", err)
	}
	codeAt := e.here()
	e.w[blk+pbCode] = uint32(codeAt)
	e.put(code...)
	e.w[blk+pbOutRegs] = uint32(e.here())
	e.put(outs...)
	baseAt := e.here()
	e.put(e.count(e.base))
	return Hook{Name: name, Program: prog, Header: hdr, Acc: acc, NIn: len(inputs), NOut: nout, Rank: len(cshape), Views: hv, Code: codeAt - blk, Base: baseAt - blk}
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

// bytecode encodes a validated program for the interpreter: 5 words per
// instruction (see interp.wgsl) with registers allocated so that values
// dead after an instruction free their register, and the output list
// (register | type<<8).
func bytecode(p device.Program) (code, outs []uint32, err error) {
	n := len(p.Code)
	last := make([]int, n) // last instruction reading each value; n: an output
	for i := range last {
		last[i] = -1
	}
	for i, in := range p.Code {
		for a := 0; a < in.Op.Arity(); a++ {
			last[in.Args[a]] = i
		}
	}
	for _, r := range p.Outputs {
		last[r] = n
	}
	phys := make([]int, n)
	var free []int
	next := 0
	code = make([]uint32, 0, n*instrWords)
	for i, in := range p.Code {
		ar := in.Op.Arity()
		var args [3]uint32
		for a := 0; a < ar; a++ {
			args[a] = uint32(phys[in.Args[a]])
		}
		for a := 0; a < ar; a++ { // free arguments read for the last time
			r := in.Args[a]
			if last[r] == i && !slices.Contains(in.Args[:a], r) {
				free = append(free, phys[r])
			}
		}
		if len(free) > 0 {
			phys[i] = free[len(free)-1]
			free = free[:len(free)-1]
		} else {
			phys[i] = next
			next++
		}
		if phys[i] >= MaxRegisters {
			return nil, nil, fmt.Errorf("program needs more than %d live registers", MaxRegisters)
		}
		if last[i] < 0 { // never read: its register is free again
			free = append(free, phys[i])
		}
		at := device.Invalid
		if ar > 0 {
			at = p.Code[in.Args[0]].Type
		}
		w0 := uint32(in.Op) | uint32(in.Type)<<8 | uint32(at)<<16 | uint32(phys[i])<<24
		code = append(code, w0, args[0], args[1], args[2], immediate(in))
	}
	for _, r := range p.Outputs {
		outs = append(outs, uint32(phys[r])|uint32(p.Code[r].Type)<<8)
	}
	return code, outs, nil
}

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
