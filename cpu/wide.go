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
// its outputs to the contiguous outs, a chunk of positions at a time.
func (d *Device) runWide(shape []int, p device.Program, ins, outs []wideView) error {
	n := device.NumElements(shape)
	steps := compileWide(p.Code, ins)
	body := func(lo, hi int) {
		f := newWideFrame(steps, len(p.Code), shape, ins)
		f.w.start(lo)
		for pos := lo; pos < hi; pos += wideChunk {
			c := min(wideChunk, hi-pos)
			f.eval(pos, c)
			for j, r := range p.Outputs {
				o := &outs[j]
				storeCol(o.data, o.v.DType, o.v.Offset+pos, f.regs[r][:c])
			}
		}
	}
	cost := len(p.Code) * 4
	if d.serial(n, cost) {
		return safely(func() { body(0, n) })
	}
	return d.parallelFor(n, d.grainFor(n, cost), func(_, lo, hi int) { body(lo, hi) })
}

// walker steps through the positions of an iteration space in row-major
// order, keeping each input's element offset.
type walker struct {
	shape []int
	idx   []int
	offs  []int
	ins   []wideView
}

func newWalker(shape []int, ins []wideView) *walker {
	return &walker{shape: shape, idx: make([]int, len(shape)), offs: make([]int, len(ins)), ins: ins}
}

// start moves to position p.
func (w *walker) start(p int) {
	for d := len(w.shape) - 1; d >= 0; d-- {
		w.idx[d] = p % max(w.shape[d], 1)
		p /= max(w.shape[d], 1)
	}
	for j := range w.ins {
		v := &w.ins[j].v
		e := v.Offset
		for d, x := range w.idx {
			e += x * v.Strides[d]
		}
		w.offs[j] = e
	}
}

// run returns how many of the next m ≥ 1 positions, from the current one
// on, lie along the innermost dimension without a carry.
func (w *walker) run(m int) int {
	if len(w.shape) == 0 {
		return 1
	}
	last := len(w.shape) - 1
	return max(min(m, w.shape[last]-w.idx[last]), 1)
}

// innerStride is input j's stride along the innermost dimension.
func (w *walker) innerStride(j int) int {
	if len(w.shape) == 0 {
		return 0
	}
	return w.ins[j].v.Strides[len(w.shape)-1]
}

// skip moves r positions on, r being at most what run returned.
func (w *walker) skip(r int) {
	if r > 1 {
		last := len(w.shape) - 1
		w.idx[last] += r - 1
		for j := range w.ins {
			w.offs[j] += (r - 1) * w.ins[j].v.Strides[last]
		}
	}
	w.next()
}

// next moves to the following position.
func (w *walker) next() {
	for d := len(w.shape) - 1; d >= 0; d-- {
		w.idx[d]++
		for j := range w.ins {
			w.offs[j] += w.ins[j].v.Strides[d]
		}
		if w.idx[d] < w.shape[d] {
			return
		}
		for j := range w.ins {
			w.offs[j] -= w.shape[d] * w.ins[j].v.Strides[d]
		}
		w.idx[d] = 0
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

// loadCol reads the elements of data at offs, of storage type dt, as their
// compute type, the type switch made once a column.
func loadCol(dst []wideVal, data []byte, dt device.DType, offs []int) {
	switch dt {
	case device.Float32:
		src := asF32(data)
		for k, e := range offs {
			dst[k] = wideVal{f: float64(src[e])}
		}
	case device.Float64:
		src := asU64(data)
		for k, e := range offs {
			dst[k] = wideVal{f: math.Float64frombits(src[e])}
		}
	case device.Int32:
		src := asI32(data)
		for k, e := range offs {
			dst[k] = wideVal{i: int64(src[e])}
		}
	case device.Int64:
		src := asU64(data)
		for k, e := range offs {
			dst[k] = wideVal{i: int64(src[e])}
		}
	case device.Uint8:
		for k, e := range offs {
			dst[k] = wideVal{i: int64(data[e])}
		}
	default:
		for k, e := range offs {
			dst[k] = loadElem(data, dt, e)
		}
	}
}

// storeCol writes src to the contiguous elements from e on of data, of
// storage type dt, as storeElem does.
func storeCol(data []byte, dt device.DType, e int, src []wideVal) {
	switch dt {
	case device.Float32:
		dst := asF32(data)[e : e+len(src)]
		for k, x := range src {
			dst[k] = float32(x.f)
		}
	case device.Float64:
		dst := asU64(data)[e : e+len(src)]
		for k, x := range src {
			dst[k] = math.Float64bits(x.f)
		}
	case device.Int32:
		dst := asI32(data)[e : e+len(src)]
		for k, x := range src {
			dst[k] = int32(x.i)
		}
	case device.Int64:
		dst := asU64(data)[e : e+len(src)]
		for k, x := range src {
			dst[k] = uint64(x.i)
		}
	case device.Bool, device.Uint8, device.Int8:
		dst := data[e : e+len(src)]
		for k, x := range src {
			dst[k] = uint8(x.i)
		}
	default:
		for k, x := range src {
			storeElem(data, dt, e+k, x)
		}
	}
}
