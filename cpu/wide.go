package cpu

import (
	"encoding/binary"
	"math"

	"github.com/shaderflow/shaderflow/tensor/device"
)

// The wide path: elementwise programs and reductions that involve a type
// outside device.BaseDTypes (Int64 and Float64 registers or views, Uint8 and
// Int8 views) or accumulate in a type other than Float32 run here, one
// element at a time through the contract's scalar definitions, instead of
// through the SIMD interpreter, whose registers are float32, int32 and bytes.
// It is a reference path: exact, parallel over positions or outputs, and
// slower per element than the interpreter.

// wideVal is one register's value: f holds Float32 (exactly) and Float64
// registers, i holds Int32, Int64 and Bool (0 or 1) registers.
type wideVal struct {
	f float64
	i int64
}

// wideView is an operand of a wide kernel: bytes and a view of them whose
// shape is the iteration space (inputs) or a contiguous range (outputs).
type wideView struct {
	data []byte
	v    device.View
}

// isWide reports whether a kernel with these views and programs must take
// the wide path.
func isWide(views [][]device.View, progs ...device.Program) bool {
	for _, vs := range views {
		for _, v := range vs {
			if !device.BaseDTypes.Has(v.DType) {
				return true
			}
		}
	}
	for _, p := range progs {
		for _, in := range p.Code {
			if in.Type == device.Int64 || in.Type == device.Float64 {
				return true
			}
		}
	}
	return false
}

// wideViews resolves views to their bytes.
func (d *Device) wideViews(vs []device.View) ([]wideView, error) {
	out := make([]wideView, len(vs))
	for i, v := range vs {
		data, err := d.data(v.Buf)
		if err != nil {
			return nil, err
		}
		out[i] = wideView{data, v}
	}
	return out, nil
}

// elementwiseWide runs an elementwise kernel on the wide path.
func (d *Device) elementwiseWide(k *device.ElementwiseKernel) error {
	ins, err := d.wideViews(k.Inputs)
	if err != nil {
		return err
	}
	outs, err := d.wideViews(k.Outputs)
	if err != nil {
		return err
	}
	return d.runWide(k.Shape, k.Program, ins, outs)
}

// runWide evaluates p at every position of shape, loading ins and storing
// its outputs to the contiguous outs.
func (d *Device) runWide(shape []int, p device.Program, ins, outs []wideView) error {
	n := device.NumElements(shape)
	body := func(lo, hi int) {
		regs := make([]wideVal, len(p.Code))
		idx := make([]int, len(shape))
		for pos := lo; pos < hi; pos++ {
			unravelInto(pos, shape, idx)
			evalWide(p.Code, regs, ins, pos, idx)
			for j, r := range p.Outputs {
				o := &outs[j]
				storeElem(o.data, o.v.DType, o.v.Offset+pos, regs[r])
			}
		}
	}
	cost := len(p.Code) * 8
	if d.serial(n, cost) {
		return safely(func() { body(0, n) })
	}
	return d.parallelFor(n, d.grainFor(n, cost), func(_, lo, hi int) { body(lo, hi) })
}

// unravelInto sets idx to the multi-index of row-major position p in shape.
func unravelInto(p int, shape, idx []int) {
	for d := len(shape) - 1; d >= 0; d-- {
		idx[d] = p % shape[d]
		p /= shape[d]
	}
}

// evalWide computes every register of code at position pos (multi-index
// idx of the iteration space).
func evalWide(code []device.Instr, regs []wideVal, ins []wideView, pos int, idx []int) {
	for i := range code {
		in := &code[i]
		a := in.Args
		var r wideVal
		switch op := in.Op; {
		case op == device.OpInput:
			s := &ins[in.Index]
			e := s.v.Offset
			for d, x := range idx {
				e += x * s.v.Strides[d]
			}
			r = loadElem(s.data, s.v.DType, e)
		case op == device.OpConst:
			r = constWide(in.Imm, in.Type)
		case op == device.OpIndex:
			r.i = int64(int32(pos))
		case op == device.OpRandUniform:
			r.f = float64(device.Uniform(device.StreamKey(in.Seed), uint32(pos)))
		case op == device.OpRandNormal:
			r.f = float64(device.Normal(device.StreamKey(in.Seed), uint32(pos)))
		case op == device.OpIsNaN:
			r.i = b2i(regs[a[0]].f != regs[a[0]].f)
		case op == device.OpNot:
			r.i = regs[a[0]].i ^ 1
		case op == device.OpCast:
			r = castWide(regs[a[0]], code[a[0]].Type, in.Type)
		case op.IsComparison():
			r.i = b2i(compareWide(op, code[a[0]].Type, regs[a[0]], regs[a[1]]))
		case op == device.OpAnd:
			r.i = regs[a[0]].i & regs[a[1]].i
		case op == device.OpOr:
			r.i = regs[a[0]].i | regs[a[1]].i
		case op == device.OpWhere:
			r = regs[a[2]]
			if regs[a[0]].i != 0 {
				r = regs[a[1]]
			}
		case op == device.OpFma:
			x, y, z := regs[a[0]].f, regs[a[1]].f, regs[a[2]].f
			r.f = math.FMA(x, y, z)
			if in.Type == device.Float32 {
				r.f = float64(float32(r.f))
			}
		case op.Arity() == 1:
			r = unaryWide(op, in.Type, regs[a[0]])
		default:
			r = binaryWide(op, in.Type, regs[a[0]], regs[a[1]])
		}
		regs[i] = r
	}
}

func b2i(b bool) int64 {
	if b {
		return 1
	}
	return 0
}

// constWide is the register value of a constant of register type t.
func constWide(v float64, t device.DType) wideVal {
	switch t {
	case device.Float32:
		return wideVal{f: float64(float32(v))}
	case device.Float64:
		return wideVal{f: v}
	case device.Int32:
		return wideVal{i: int64(int32(v))}
	case device.Bool:
		return wideVal{i: b2i(v != 0)}
	}
	return wideVal{i: int64(v)}
}

// unaryWide applies a one-argument arithmetic op to a register of type t.
func unaryWide(op device.Op, t device.DType, x wideVal) wideVal {
	switch t {
	case device.Float32:
		return wideVal{f: float64(device.UnaryF32(op, float32(x.f)))}
	case device.Float64:
		return wideVal{f: device.UnaryF64(op, x.f)}
	case device.Int32:
		return wideVal{i: int64(device.UnaryI32(op, int32(x.i)))}
	}
	return wideVal{i: device.UnaryI64(op, x.i)}
}

// binaryWide applies a two-argument arithmetic op to registers of type t.
func binaryWide(op device.Op, t device.DType, x, y wideVal) wideVal {
	switch t {
	case device.Float32:
		return wideVal{f: float64(device.BinaryF32(op, float32(x.f), float32(y.f)))}
	case device.Float64:
		return wideVal{f: device.BinaryF64(op, x.f, y.f)}
	case device.Int32:
		return wideVal{i: int64(device.BinaryI32(op, int32(x.i), int32(y.i)))}
	}
	return wideVal{i: device.BinaryI64(op, x.i, y.i)}
}

// compareWide compares two registers of type t.
func compareWide(op device.Op, t device.DType, x, y wideVal) bool {
	if t == device.Float32 || t == device.Float64 {
		return device.Compare(op, x.f, y.f)
	}
	return device.Compare(op, x.i, y.i)
}

// castWide converts a register of type from to type to (see device.OpCast).
func castWide(x wideVal, from, to device.DType) wideVal {
	isF := from == device.Float32 || from == device.Float64
	switch to {
	case device.Bool:
		if isF {
			return wideVal{i: b2i(x.f != 0)}
		}
		return wideVal{i: b2i(x.i != 0)}
	case device.Float32:
		if isF {
			return wideVal{f: float64(float32(x.f))}
		}
		return wideVal{f: float64(float32(x.i))}
	case device.Float64:
		if isF {
			return wideVal{f: x.f}
		}
		return wideVal{f: float64(x.i)}
	case device.Int32:
		switch from {
		case device.Float32:
			return wideVal{i: int64(device.FloatToInt32(float32(x.f)))}
		case device.Float64:
			return wideVal{i: int64(device.Float64ToInt32(x.f))}
		}
		return wideVal{i: int64(int32(x.i))} // int64 wraps, as in PyTorch
	}
	if isF {
		return wideVal{i: device.FloatToInt64(x.f)}
	}
	return wideVal{i: x.i}
}

// loadElem reads element e of data, of storage type dt, as its compute type.
func loadElem(data []byte, dt device.DType, e int) wideVal {
	le := binary.LittleEndian
	switch dt {
	case device.Float32:
		return wideVal{f: float64(math.Float32frombits(le.Uint32(data[4*e:])))}
	case device.Float16:
		return wideVal{f: float64(device.Float16ToFloat32(le.Uint16(data[2*e:])))}
	case device.BFloat16:
		return wideVal{f: float64(device.BFloat16ToFloat32(le.Uint16(data[2*e:])))}
	case device.Float64:
		return wideVal{f: math.Float64frombits(le.Uint64(data[8*e:]))}
	case device.Int32:
		return wideVal{i: int64(int32(le.Uint32(data[4*e:])))}
	case device.Int64:
		return wideVal{i: int64(le.Uint64(data[8*e:]))}
	case device.Uint8:
		return wideVal{i: int64(data[e])}
	case device.Int8:
		return wideVal{i: int64(int8(data[e]))}
	}
	return wideVal{i: b2i(data[e] != 0)} // Bool
}

// storeElem writes a register value to element e of data, of storage type
// dt: float16 and bfloat16 round to nearest even, Uint8 and Int8 keep the
// low byte.
func storeElem(data []byte, dt device.DType, e int, x wideVal) {
	le := binary.LittleEndian
	switch dt {
	case device.Float32:
		le.PutUint32(data[4*e:], math.Float32bits(float32(x.f)))
	case device.Float16:
		le.PutUint16(data[2*e:], device.Float32ToFloat16(float32(x.f)))
	case device.BFloat16:
		le.PutUint16(data[2*e:], device.Float32ToBFloat16(float32(x.f)))
	case device.Float64:
		le.PutUint64(data[8*e:], math.Float64bits(x.f))
	case device.Int32:
		le.PutUint32(data[4*e:], uint32(x.i))
	case device.Int64:
		le.PutUint64(data[8*e:], uint64(x.i))
	default: // Bool, Uint8, Int8
		data[e] = uint8(x.i)
	}
}
