package cpu

import (
	"unsafe"

	"github.com/shaderflow/shaderflow/cpu/internal/vec"
	"github.com/shaderflow/shaderflow/tensor/device"
)

// runRange evaluates the plan over positions [lo, hi) and stores its sinks.
func (p *plan) runRange(ws *workspace, lo, hi int) {
	if p.fused && lo%vec.FusedBlock == 0 { // whole blocks on the fused machine
		m := lo + (hi-lo)&^(vec.FusedBlock-1)
		p.runFused(ws, lo, m)
		if lo = m; lo == hi {
			return
		}
	}
	ws.prepare(p)
	step := p.chunk()
	for lo < hi {
		m := p.take(lo, min(step, hi-lo))
		p.eval(ws, lo, m)
		p.store(ws, lo, m)
		lo += m
	}
}

// eval computes every register for positions [lo, lo+m): m <= p.chunk(),
// within one run when the plan has perRun sources (see take). The workspace
// must have been prepared for the plan.
func (p *plan) eval(ws *workspace, lo, m int) {
	for i := range p.code {
		in := &p.code[i]
		ri := p.regs[i]
		if ri.scalar {
			ws.rf32[i] = ws.f32slots[ri.slot][:1]
			p.evalInstr(ws, i, in, lo, 1)
			continue
		}
		switch {
		case ri.alias:
		case ri.direct >= 0:
			s := &p.sinks[ri.direct]
			a, b := s.off+lo, s.off+lo+m
			switch ri.class {
			case classF32:
				ws.rf32[i] = s.f32[a:b]
			case classI32:
				ws.ri32[i] = s.i32[a:b]
			default:
				ws.ru8[i] = s.u8[a:b]
			}
		default:
			switch ri.class {
			case classF32:
				ws.rf32[i] = ws.f32slots[ri.slot][:m]
			case classI32:
				ws.ri32[i] = ws.i32slots[ri.slot][:m]
			default:
				ws.ru8[i] = ws.u8slots[ri.slot][:m]
			}
		}
		p.evalInstr(ws, i, in, lo, m)
	}
}

// evalInstr computes register i.
func (p *plan) evalInstr(ws *workspace, i int, in *device.Instr, lo, m int) {
	a := in.Args
	switch op := in.Op; {
	case op == device.OpInput:
		p.load(ws, i, &p.srcs[in.Index], lo, m)
	case op == device.OpConst:
		switch in.Type {
		case device.Float32:
			fill(ws.rf32[i], float32(in.Imm))
		case device.Int32:
			fill(ws.ri32[i], int32(in.Imm))
		default:
			fill(ws.ru8[i], uint8(in.Imm))
		}
	case op == device.OpIndex:
		dst := ws.ri32[i]
		for j := range dst {
			dst[j] = int32(lo + j)
		}
	case op == device.OpRandUniform:
		key, dst := device.StreamKey(in.Seed), ws.rf32[i]
		for j := range dst {
			dst[j] = device.Uniform(key, uint32(lo+j))
		}
	case op == device.OpRandNormal:
		key, dst := device.StreamKey(in.Seed), ws.rf32[i]
		for j := range dst {
			dst[j] = device.Normal(key, uint32(lo+j))
		}
	case op == device.OpIsNaN:
		x, dst := ws.rf32[a[0]], ws.ru8[i]
		for j := range dst {
			dst[j] = b2u(x[j] != x[j])
		}
	case op == device.OpNot:
		x, dst := ws.ru8[a[0]], ws.ru8[i]
		for j := range dst {
			dst[j] = x[j] ^ 1
		}
	case op == device.OpCast:
		p.cast(ws, i, in)
	case op == device.OpRoundF16:
		roundThrough(ws.rf32[i], ws.rf32[a[0]], ws.u16, f32ToHalf, halfToF32)
	case op == device.OpRoundBF16:
		roundThrough(ws.rf32[i], ws.rf32[a[0]], ws.u16, f32ToBF16, bf16ToF32)
	case op.IsArith(1):
		if in.Type == device.Float32 {
			modeF32[p.regs[i].mode].unary[op](ws.rf32[i], ws.rf32[a[0]])
		} else {
			unaryI32(op, ws.ri32[i], ws.ri32[a[0]])
		}
	case op.IsComparison():
		if p.code[a[0]].Type == device.Float32 {
			p.compareF32(ws, i, op, a[0], a[1])
		} else {
			compareI32[op](ws.ru8[i], ws.ri32[a[0]], ws.ri32[a[1]])
		}
	case op == device.OpAnd:
		x, y, dst := ws.ru8[a[0]], ws.ru8[a[1]], ws.ru8[i]
		for j := range dst {
			dst[j] = x[j] & y[j]
		}
	case op == device.OpOr:
		x, y, dst := ws.ru8[a[0]], ws.ru8[a[1]], ws.ru8[i]
		for j := range dst {
			dst[j] = x[j] | y[j]
		}
	case op.IsArith(2):
		if in.Type == device.Float32 {
			p.binaryF32(ws, i, op, a[0], a[1])
		} else {
			binaryI32(op, ws.ri32[i], ws.ri32[a[0]], ws.ri32[a[1]])
		}
	case op == device.OpWhere:
		c := ws.ru8[a[0]]
		switch in.Type {
		case device.Float32:
			p.whereF32(ws, i, c, a[1], a[2])
		case device.Int32:
			whereF32(f32s(ws.ri32[i]), c, f32s(ws.ri32[a[1]]), f32s(ws.ri32[a[2]]))
		default:
			where(ws.ru8[i], c, ws.ru8[a[1]], ws.ru8[a[2]])
		}
	case op == device.OpFma:
		modeF32[p.regs[i].mode].fma(ws.rf32[i], ws.rf32[a[0]], ws.rf32[a[1]], ws.rf32[a[2]])
	default:
		panic("cpu: unhandled op " + op.String())
	}
}

// binaryF32 computes register i = op(x, y), with the scalar kernels when an
// operand is the same for every element.
func (p *plan) binaryF32(ws *workspace, i int, op device.Op, x, y device.Reg) {
	k := &modeF32[p.regs[i].mode]
	switch {
	case p.regs[y].uniform:
		k.binaryScalar[op](ws.rf32[i], ws.rf32[x], ws.rf32[y][0])
	case p.regs[x].uniform:
		k.scalarBinary[op](ws.rf32[i], ws.rf32[y], ws.rf32[x][0])
	default:
		k.binary[op](ws.rf32[i], ws.rf32[x], ws.rf32[y])
	}
}

// compareF32 computes register i = x op y for float registers, with the
// scalar kernels when an operand is the same for every element (the same
// choice as binaryF32, which plan.markScalar relies on).
func (p *plan) compareF32(ws *workspace, i int, op device.Op, x, y device.Reg) {
	switch {
	case p.regs[y].uniform:
		compareF32Scalar[op](ws.ru8[i], ws.rf32[x], ws.rf32[y][0])
	case p.regs[x].uniform:
		compareF32Scalar[swapCompare(op)](ws.ru8[i], ws.rf32[y], ws.rf32[x][0])
	default:
		compareF32[op](ws.ru8[i], ws.rf32[x], ws.rf32[y])
	}
}

// swapCompare returns the comparison that holds for (y, x) exactly when op
// holds for (x, y).
func swapCompare(op device.Op) device.Op {
	switch op {
	case device.OpLt:
		return device.OpGt
	case device.OpLe:
		return device.OpGe
	case device.OpGt:
		return device.OpLt
	case device.OpGe:
		return device.OpLe
	}
	return op
}

// whereF32 computes float register i = c ? x : y, with the scalar kernels
// when x or y is the same for every element (y first, as in binaryF32).
func (p *plan) whereF32(ws *workspace, i int, c []uint8, x, y device.Reg) {
	switch {
	case p.regs[y].uniform:
		whereF32Else(ws.rf32[i], c, ws.rf32[x], ws.rf32[y][0])
	case p.regs[x].uniform:
		whereF32Then(ws.rf32[i], c, ws.rf32[x][0], ws.rf32[y])
	default:
		whereF32(ws.rf32[i], c, ws.rf32[x], ws.rf32[y])
	}
}

// f32s views int32 values as float32 bits.
func f32s(s []int32) []float32 {
	return unsafe.Slice((*float32)(unsafe.Pointer(unsafe.SliceData(s))), len(s))
}

// repeatRuns sets dst[i*n+j] = src[i]: with vec.Repeat's vector stores
// for float32 (scalar stores of a short run cost several times the
// arithmetic on it), else a fill per run.
func repeatRuns[T any](dst, src []T, n int) {
	if d, ok := any(dst).([]float32); ok {
		vec.Repeat(d, any(src).([]float32), n)
		return
	}
	for i, v := range src {
		fill(dst[i*n:(i+1)*n], v)
	}
}

// fill sets every element of dst to v: a loop for short runs, else a loop
// over the first 32 and doubling copies from there (memmove is vectorized;
// the loop is not, and filling a chunk with a broadcast value, e.g. a
// softmax row's maximum, cost as much as the arithmetic on it; doubling
// from one element took seven memmove calls for a row of 128).
func fill[T any](dst []T, v T) {
	if len(dst) <= 32 {
		for j := range dst {
			dst[j] = v
		}
		return
	}
	head := dst[:32]
	for j := range head {
		head[j] = v
	}
	for k := 32; k < len(dst); k *= 2 {
		copy(dst[k:], dst[:k])
	}
}

// where selects x[j] where c[j] is 1 and y[j] where it is 0, without
// branches (conditions are data and mispredict half the time).
func where[T ~uint32 | ~uint8](dst []T, c []uint8, x, y []T) {
	c, x, y = c[:len(dst)], x[:len(dst)], y[:len(dst)]
	for j := range dst {
		m := -T(c[j]) // all ones or zero
		dst[j] = y[j] ^ ((x[j] ^ y[j]) & m)
	}
}

// u32s views float32 or int32 values as their bits.
func u32s[T float32 | int32](s []T) []uint32 {
	return unsafe.Slice((*uint32)(unsafe.Pointer(unsafe.SliceData(s))), len(s))
}

// unaryI32 applies an integer unary op.
func unaryI32(op device.Op, dst, x []int32) {
	x = x[:len(dst)]
	for j := range dst {
		dst[j] = device.UnaryI32(op, x[j])
	}
}

// binaryI32 applies an integer binary op, with fast loops for the common ones.
func binaryI32(op device.Op, dst, x, y []int32) {
	x, y = x[:len(dst)], y[:len(dst)]
	switch op {
	case device.OpAdd:
		for j := range dst {
			dst[j] = x[j] + y[j]
		}
	case device.OpSub:
		for j := range dst {
			dst[j] = x[j] - y[j]
		}
	case device.OpMul:
		for j := range dst {
			dst[j] = x[j] * y[j]
		}
	default:
		for j := range dst {
			dst[j] = device.BinaryI32(op, x[j], y[j])
		}
	}
}

// cast converts register Args[0] to register i's type: float to int
// truncates toward zero (device.FloatToInt32), anything to bool tests for
// non-zero (NaN is true), bool to a number is 0 or 1.
func (p *plan) cast(ws *workspace, i int, in *device.Instr) {
	x := in.Args[0]
	from := p.code[x].Type
	switch to := in.Type; {
	case from == device.Float32 && to == device.Float32:
		copy(ws.rf32[i], ws.rf32[x])
	case from == device.Int32 && to == device.Int32:
		copy(ws.ri32[i], ws.ri32[x])
	case from == device.Bool && to == device.Bool:
		copy(ws.ru8[i], ws.ru8[x])
	case from == device.Float32 && to == device.Int32:
		src, dst := ws.rf32[x], ws.ri32[i]
		for j := range dst {
			dst[j] = device.FloatToInt32(src[j])
		}
	case from == device.Float32:
		src, dst := ws.rf32[x], ws.ru8[i]
		for j := range dst {
			dst[j] = b2u(src[j] != 0)
		}
	case from == device.Int32 && to == device.Float32:
		src, dst := ws.ri32[x], ws.rf32[i]
		for j := range dst {
			dst[j] = float32(src[j])
		}
	case from == device.Int32:
		src, dst := ws.ri32[x], ws.ru8[i]
		for j := range dst {
			dst[j] = b2u(src[j] != 0)
		}
	case to == device.Float32:
		src, dst := ws.ru8[x], ws.rf32[i]
		for j := range dst {
			dst[j] = float32(src[j])
		}
	default:
		src, dst := ws.ru8[x], ws.ri32[i]
		for j := range dst {
			dst[j] = int32(src[j])
		}
	}
}

// roundThrough sets dst to x rounded to a 16-bit storage type by the
// conversions that stores and loads use (narrow, then widen), a piece of
// len(bits) elements at a time (an in-place plan's span can be longer than
// the scratch); dst may be x.
func roundThrough(dst, x []float32, bits []uint16, narrow func([]uint16, []float32), widen func([]float32, []uint16)) {
	for lo := 0; lo < len(dst); lo += len(bits) {
		hi := min(lo+len(bits), len(dst))
		b := bits[:hi-lo]
		narrow(b, x[lo:hi])
		widen(dst[lo:hi], b)
	}
}

// load fills register i with source s at positions [lo, lo+m), converting
// half-precision to float32 and normalizing bools to 0 or 1.
func (p *plan) load(ws *workspace, i int, s *source, lo, m int) {
	switch s.dt {
	case device.Float32:
		if p.regs[i].alias {
			ws.rf32[i] = s.f32[s.off+lo : s.off+lo+m]
			return
		}
		gather(ws.rf32[i], s.f32, s, p.dims, lo, ws.idx)
	case device.Int32:
		if p.regs[i].alias {
			ws.ri32[i] = s.i32[s.off+lo : s.off+lo+m]
			return
		}
		gather(ws.ri32[i], s.i32, s, p.dims, lo, ws.idx)
	case device.Float16, device.BFloat16:
		raw := ws.u16[:m]
		if s.kind == srcContiguous {
			raw = s.u16[s.off+lo : s.off+lo+m]
		} else {
			gather(raw, s.u16, s, p.dims, lo, ws.idx)
		}
		dst := ws.rf32[i]
		if s.dt == device.Float16 {
			halfToF32(dst, raw)
		} else {
			bf16ToF32(dst, raw)
		}
	default: // Bool
		dst := ws.ru8[i]
		gather(dst, s.u8, s, p.dims, lo, ws.idx)
		for j, v := range dst {
			dst[j] = b2u(v != 0)
		}
	}
}

// gather copies source s at positions [lo, lo+len(dst)) of dims into dst.
func gather[T any](dst, data []T, s *source, dims []int, lo int, idx []int) {
	switch s.kind {
	case srcContiguous:
		copy(dst, data[s.off+lo:s.off+lo+len(dst)])
	case srcScalar:
		fill(dst, data[s.off])
	default:
		gatherStrided(dst, data, dims, s.strides, s.off, lo, idx)
	}
}

// gatherStrided copies the elements at positions [lo, lo+len(dst)) of a
// strided view (dims, strides, off) of data into dst, one run of the
// innermost dimension at a time. idx is scratch of at least len(dims).
func gatherStrided[T any](dst, data []T, dims, strides []int, off, lo int, idx []int) {
	nd := len(dims)
	idx = idx[:nd]
	pos, rem := off, lo
	for d := nd - 1; d >= 0; d-- {
		idx[d] = rem % dims[d]
		rem /= dims[d]
		pos += idx[d] * strides[d]
	}
	inner, ist := dims[nd-1], strides[nd-1]
	for k, m := 0, len(dst); k < m; {
		if ist == 0 && nd > 1 && idx[nd-1] == 0 && strides[nd-2] == 1 {
			// Whole runs of consecutive values, each repeated over the
			// innermost dimension (a row's maximum over its row).
			runs := min(dims[nd-2]-idx[nd-2], (m-k)/inner)
			if runs > 1 {
				repeatRuns(dst[k:k+runs*inner], data[pos:pos+runs], inner)
				k += runs * inner
				idx[nd-2] += runs - 1
				pos = step(idx, dims, strides, pos+runs-1, nd-2)
				continue
			}
		}
		run := min(inner-idx[nd-1], m-k)
		out := dst[k : k+run]
		switch ist {
		case 1:
			copy(out, data[pos:pos+run])
		case 0:
			fill(out, data[pos])
		case -1: // a flipped view
			reverseInto(out, data[pos-run+1:pos+1])
		default:
			q := pos
			for t := range out {
				out[t] = data[q]
				q += ist
			}
		}
		k += run
		pos += run * ist
		idx[nd-1] += run
		if idx[nd-1] < inner {
			continue
		}
		pos -= inner * ist
		idx[nd-1] = 0
		pos = step(idx, dims, strides, pos, nd-2)
	}
}

// reverseInto sets dst to src in reverse order; they have one length.
func reverseInto[T any](dst, src []T) {
	src = src[:len(dst)]
	for i := range dst {
		dst[i] = src[len(src)-1-i]
	}
}

// step advances the position idx of a strided walk by one along dimension
// d, carrying into the outer dimensions, and returns the element offset pos
// moved with it.
func step(idx, dims, strides []int, pos, d int) int {
	for ; d >= 0; d-- {
		idx[d]++
		pos += strides[d]
		if idx[d] < dims[d] {
			return pos
		}
		pos -= dims[d] * strides[d]
		idx[d] = 0
	}
	return pos
}

// store writes the sinks that were not computed in place.
func (p *plan) store(ws *workspace, lo, m int) {
	for k := range p.sinks {
		s := &p.sinks[k]
		r := s.reg
		if p.regs[r].direct == int32(k) {
			continue
		}
		a, b := s.off+lo, s.off+lo+m
		switch s.dt {
		case device.Float32:
			copy(s.f32[a:b], ws.rf32[r])
		case device.Float16:
			f32ToHalf(s.u16[a:b], ws.rf32[r])
		case device.BFloat16:
			f32ToBF16(s.u16[a:b], ws.rf32[r])
		case device.Int32:
			copy(s.i32[a:b], ws.ri32[r])
		default:
			copy(s.u8[a:b], ws.ru8[r])
		}
	}
}
