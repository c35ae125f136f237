package cpu

import (
	"slices"
	"unsafe"

	"github.com/shaderflow/shaderflow/cpu/internal/vec"
	"github.com/shaderflow/shaderflow/tensor/device"
)

// chunkLen is the number of elements the interpreter evaluates at a time:
// small enough that a program's live registers stay in the L1/L2 caches
// (8 KiB each), large enough to amortize each SIMD kernel call's fixed cost
// (docs/measurements.md).
const chunkLen = 2048

// inPlaceChunk is the chunk of a plan whose registers all live in its
// sources and sinks (no scratch): nothing to keep in cache, so fewer,
// longer kernel calls.
const inPlaceChunk = 1 << 16

// chunk returns the number of positions eval may take at a time.
func (p *plan) chunk() int {
	if p.nslots == [3]int{} {
		return inPlaceChunk
	}
	return chunkLen
}

// Register classes: how a register's values are held in scratch.
const (
	classF32 = iota // float32
	classI32        // int32
	classU8         // bool as 0 or 1
)

// classOf returns the register class of a register type.
func classOf(t device.DType) int8 {
	switch t {
	case device.Int32:
		return classI32
	case device.Bool:
		return classU8
	}
	return classF32
}

// srcKind classifies a source's addressing after dimensions are coalesced.
type srcKind uint8

const (
	srcContiguous srcKind = iota // element index = off + position
	srcScalar                    // every position reads element off
	srcStrided                   // general strides
)

// typed holds one buffer viewed as each element type.
type typed struct {
	dt   device.DType
	base unsafe.Pointer // first byte, to detect aliasing
	f32  []float32
	u16  []uint16
	i32  []int32
	u8   []uint8
}

// typedBytes views data as elements of dt.
func typedBytes(data []byte, dt device.DType) typed {
	t := typed{dt: dt, base: unsafe.Pointer(unsafe.SliceData(data))}
	switch dt {
	case device.Float32:
		t.f32 = asF32(data)
	case device.Float16, device.BFloat16:
		t.u16 = asU16(data)
	case device.Int32:
		t.i32 = asI32(data)
	case device.Bool:
		t.u8 = data
	}
	return t
}

// source is one input of a plan.
type source struct {
	typed
	off     int
	strides []int // coalesced, one per plan dimension
	kind    srcKind
	// perRun: strided, but the same element along each run of the
	// innermost dimension (a row's maximum broadcast along the row, a
	// channel's bias along an image), so within a chunk that stays inside
	// one run the source is uniform (see plan.run).
	perRun bool
	// periodic: the fused machine streams it from plan.periodBuf
	// (fused_periodic.go); expanded is that buffer once written this kernel.
	periodic bool
	expanded []float32
}

// sink is one output of a plan: a contiguous range starting at off.
type sink struct {
	typed
	off int
	reg device.Reg
}

// regInfo says where a register's values live during a chunk.
type regInfo struct {
	class   int8
	slot    int32 // scratch slot of its class, or -1
	alias   bool  // an input read in place from its buffer
	uniform bool  // the same value at every position of a chunk (a constant, a scalar or perRun input)
	// scalar: uniform and read only as the scalar operand of float binary
	// ops, comparisons and selections, so a chunk evaluates its one value
	// rather than filling a slot (see markScalar).
	scalar bool
	direct int32 // the sink whose memory holds it, or -1
	mode   int8  // how its kernel moves data: modeCached, modePrefetch or modeStream (see chooseModes)
}

// plan is a program compiled against its sources and sinks: coalesced
// dimensions, source addressing, and a register allocation that reuses
// scratch slots once a register is dead. A plan is reused across kernels to
// avoid allocation.
type plan struct {
	code     []device.Instr
	shape    []int
	n        int
	dims     []int
	srcs     []source
	sinks    []sink
	regs     []regInfo
	nslots   [3]int
	raw      []int // sources' strides before coalescing, rank per source
	coal     []int // coalesced strides, rank per source
	lastUse  []int32
	full     []bool // registers some consumer reads element by element
	read     []bool // registers some instruction reads
	fetched  []bool // in-place inputs an earlier instruction prefetches
	free     [3][]int32
	tbuf     [][]float32 // row-major copies of transposed sources
	fused    bool        // the program runs on vec's fused machine (see compileFused)
	prefetch bool        // compileFused: the plan is large, prefetch inputs
	vm       vec.FusedProgram
	vmConst  []vec.FusedConst // the machine's constant operands, by register
	// period is the length after which the machine's periodic operands
	// repeat, a multiple of vec.FusedBlock, or 0 when it has none; see
	// fused_periodic.go.
	period    int
	periodic  []int       // the machine's instructions that stream a periodic operand
	periodBuf [][]float32 // by source: the first period of a periodic source, expanded
	idx       []int       // odometer for writing out periodBuf and for untranspose
	// run is the length of the innermost dimension when some source is
	// perRun, else 0: chunks then end at the runs' ends (see take), so that
	// those sources are uniform in each and run on the scalar kernels
	// instead of being expanded into a chunk first.
	run int
}

// minRun is the shortest run of the innermost dimension along which a
// broadcast source is treated as uniform: shorter runs would cut chunks so
// short that each kernel call's fixed cost outweighs expanding the source.
// Rows of 128 (a GPT's softmax, LayerNorm and their gradients) are faster
// expanded (docs/gpt.md).
const minRun = 256

// take returns how many of m positions from lo one chunk evaluates: m,
// or fewer so as to end with lo's run when the plan has perRun sources.
func (p *plan) take(lo, m int) int {
	if p.run > 0 {
		m = min(m, p.run-lo%p.run)
	}
	return m
}

// reset starts a plan for code over shape.
func (p *plan) reset(code []device.Instr, shape []int) {
	p.code = code
	p.shape = shape
	p.n = device.NumElements(shape)
	p.srcs = p.srcs[:0]
	p.sinks = p.sinks[:0]
	p.raw = p.raw[:0]
	p.fused = false
}

// addView adds an input view of a device buffer.
func (p *plan) addView(data []byte, v device.View) {
	p.srcs = append(p.srcs, source{typed: typedBytes(data, v.DType), off: v.Offset})
	p.raw = append(p.raw, v.Strides...)
}

// addF32 adds a contiguous float32 input of the plan's shape held in s.
func (p *plan) addF32(s []float32) {
	p.srcs = append(p.srcs, source{typed: typed{dt: device.Float32, f32: s, base: unsafe.Pointer(unsafe.SliceData(s))}})
	p.addContiguousStrides()
}

// addI32 adds a contiguous int32 input of the plan's shape held in s.
func (p *plan) addI32(s []int32) {
	p.srcs = append(p.srcs, source{typed: typed{dt: device.Int32, i32: s, base: unsafe.Pointer(unsafe.SliceData(s))}})
	p.addContiguousStrides()
}

func (p *plan) addContiguousStrides() {
	r, n := len(p.shape), len(p.raw)
	p.raw = slices.Grow(p.raw, r)[:n+r] // keeps the strides of the sources added before
	st := p.raw[n:]
	acc := 1
	for i := r - 1; i >= 0; i-- {
		st[i] = acc
		acc *= p.shape[i]
	}
}

// addSink adds an output: a contiguous view of the plan's shape storing reg.
func (p *plan) addSink(data []byte, v device.View, reg device.Reg) {
	p.sinks = append(p.sinks, sink{typed: typedBytes(data, v.DType), off: v.Offset, reg: reg})
}

// finish coalesces dimensions and allocates registers. outputs names the
// registers that must stay live to the end of a chunk (the stored ones and,
// for a reduction prologue, the reduced one).
func (p *plan) finish(outputs []device.Reg) {
	p.coalesce()
	p.untranspose()
	p.allocate(outputs)
}

// coalesce drops dimensions of size one and merges neighbours that every
// source steps through as one, so most plans run over one or two dimensions.
func (p *plan) coalesce() {
	r := len(p.shape)
	rr := max(r, 1) // coalesced strides kept per source
	ns := len(p.srcs)
	p.dims = p.dims[:0]
	p.coal = grow(p.coal, ns*rr)
	nd := 0
	for i, s := range p.shape {
		if s == 1 {
			continue
		}
		merge := nd > 0
		for k := 0; merge && k < ns; k++ {
			merge = p.raw[k*r+i]*s == p.coal[k*rr+nd-1]
		}
		if merge {
			p.dims[nd-1] *= s
			for k := 0; k < ns; k++ {
				p.coal[k*rr+nd-1] = p.raw[k*r+i]
			}
			continue
		}
		p.dims = append(p.dims, s)
		for k := 0; k < ns; k++ {
			p.coal[k*rr+nd] = p.raw[k*r+i]
		}
		nd++
	}
	if nd == 0 { // one element: a single dimension
		p.dims = append(p.dims, p.n)
		for k := 0; k < ns; k++ {
			p.coal[k*rr] = 0
		}
		nd = 1
	}
	p.run = 0
	for k := range p.srcs {
		s := &p.srcs[k]
		s.strides = p.coal[k*rr : k*rr+nd]
		s.kind = srcStrided
		switch {
		case p.n <= 1 || rowMajor(p.dims, s.strides):
			s.kind = srcContiguous
		case allZero(s.strides):
			s.kind = srcScalar
		}
		s.perRun = s.kind == srcStrided && s.strides[nd-1] == 0 && p.dims[nd-1] >= minRun
		if s.perRun {
			p.run = p.dims[nd-1]
		}
	}
}

// rowMajor reports whether strides are the row-major strides of dims, so
// that position p of the iteration space is element off+p of the source
// (a contiguous operand of a kernel whose other operands broadcast).
func rowMajor(dims, strides []int) bool {
	acc := 1
	for d := len(dims) - 1; d >= 0; d-- {
		if strides[d] != acc {
			return false
		}
		acc *= dims[d]
	}
	return true
}

func allZero(s []int) bool {
	for _, v := range s {
		if v != 0 {
			return false
		}
	}
	return true
}

// aliasFree reports whether no sink shares a buffer with a source or with
// another sink, so inputs may be read in place and results written straight
// into their outputs.
func (p *plan) aliasFree() bool {
	for i, o := range p.sinks {
		if o.base == nil {
			continue
		}
		for _, s := range p.srcs {
			if s.base == o.base {
				return false
			}
		}
		for _, o2 := range p.sinks[:i] {
			if o2.base == o.base {
				return false
			}
		}
	}
	return true
}

// allocate assigns each register a place: read in place (contiguous
// float32/int32 inputs), written in place (a result stored to an output of
// its own representation), or a scratch slot reused once its register is
// dead.
func (p *plan) allocate(outputs []device.Reg) {
	n := len(p.code)
	p.regs = grow(p.regs, n)
	p.lastUse = grow(p.lastUse, n)
	for i := range p.lastUse {
		p.lastUse[i] = -1
	}
	for i := range p.code {
		in := &p.code[i]
		for a := 0; a < in.Op.Arity(); a++ {
			p.lastUse[in.Args[a]] = int32(i)
		}
	}
	for _, r := range outputs {
		p.lastUse[r] = int32(n)
	}
	inPlace := p.aliasFree()
	for i := range p.code {
		in := &p.code[i]
		ri := regInfo{class: classOf(in.Type), slot: -1, direct: -1, uniform: in.Op == device.OpConst}
		if in.Op == device.OpInput {
			s := &p.srcs[in.Index]
			ri.alias = inPlace && s.kind == srcContiguous && (s.dt == device.Float32 || s.dt == device.Int32)
			ri.uniform = s.kind == srcScalar || s.perRun || p.n == 1
		}
		p.regs[i] = ri
	}
	p.propagateUniform()
	if inPlace {
		for j, o := range p.sinks {
			r := &p.regs[o.reg]
			if !r.alias && r.direct < 0 && o.dt == p.code[o.reg].Type && p.code[o.reg].Op != device.OpInput {
				r.direct = int32(j)
			}
		}
	}
	p.markScalar(outputs)
	p.chooseModes()
	p.nslots = [3]int{}
	for c := range p.free {
		p.free[c] = p.free[c][:0]
	}
	release := func(r device.Reg) {
		ri := &p.regs[r]
		if ri.slot >= 0 {
			p.free[ri.class] = append(p.free[ri.class], ri.slot)
		}
	}
	for i := range p.code {
		in := &p.code[i]
		for a := 0; a < in.Op.Arity(); a++ {
			r := in.Args[a]
			if p.lastUse[r] == int32(i) && !repeated(in, a) {
				release(r)
			}
		}
		ri := &p.regs[i]
		if !ri.alias && ri.direct < 0 {
			c := ri.class
			if f := p.free[c]; len(f) > 0 {
				ri.slot = f[len(f)-1]
				p.free[c] = f[:len(f)-1]
			} else {
				ri.slot = int32(p.nslots[c])
				p.nslots[c]++
			}
		}
		if p.lastUse[i] < 0 {
			release(device.Reg(i))
		}
	}
}

// propagateUniform marks float arithmetic on uniform operands uniform: a
// log-softmax's log of the row sum, a layer norm's rsqrt(var + eps), which
// are then computed once a chunk (see markScalar) instead of once an
// element.
func (p *plan) propagateUniform() {
	for i := range p.code {
		in := &p.code[i]
		n := in.Op.Arity()
		if in.Type != device.Float32 || n < 1 || n > 2 || !in.Op.IsArith(n) {
			continue
		}
		u := true
		for a := range n {
			u = u && p.regs[in.Args[a]].uniform
		}
		p.regs[i].uniform = u
	}
}

// markScalar sets regInfo.scalar on the uniform registers that no
// consumer reads element by element: every use is as the scalar operand of
// a float binary op, comparison or selection (see plan.binaryF32,
// compareF32 and whereF32 for which operand that is) or an operand of
// another scalar register, and the register is neither stored nor a
// reduction's input (nor read in place, which costs nothing anyway).
// Consumers come after their operands, so a backward pass knows whether
// each consumer is itself scalar (reading one element of its operands).
func (p *plan) markScalar(outputs []device.Reg) {
	p.full = grow(p.full, len(p.code))
	clear(p.full)
	for _, r := range outputs {
		p.full[r] = true
	}
	for i := len(p.code) - 1; i >= 0; i-- {
		in := &p.code[i]
		if in.Op != device.OpInput && in.Op != device.OpConst && p.isScalar(device.Reg(i)) {
			continue
		}
		floatBinary := in.Op.IsArith(2) && in.Type == device.Float32
		floatCompare := in.Op.IsComparison() && p.code[in.Args[0]].Type == device.Float32
		if in.Op == device.OpWhere && in.Type == device.Float32 {
			p.full[in.Args[0]] = true
			floatBinary, in = true, &device.Instr{Args: [3]device.Reg{in.Args[1], in.Args[2]}}
		}
		if floatBinary || floatCompare {
			x, y := in.Args[0], in.Args[1]
			switch {
			case p.regs[y].uniform:
				p.full[x] = true
			case p.regs[x].uniform:
				p.full[y] = true
			default:
				p.full[x], p.full[y] = true, true
			}
			continue
		}
		for a := 0; a < in.Op.Arity(); a++ {
			p.full[in.Args[a]] = true
		}
	}
	for i := range p.regs {
		p.regs[i].scalar = p.isScalar(device.Reg(i))
	}
}

// isScalar reports whether register r is evaluated as one value a chunk,
// once markScalar has set p.full for the instructions after r.
func (p *plan) isScalar(r device.Reg) bool {
	ri := &p.regs[r]
	return ri.uniform && !p.full[r] && ri.class == classF32 && !ri.alias && ri.direct < 0
}

// streamMinBytes is the size from which a kernel's float32 output counts as
// far larger than the caches: results written straight into it use
// streaming (non-temporal) stores, and instructions reading an input in
// place from a buffer of that size prefetch it (see chooseModes). Below it,
// streaming slowed chains that read an output back; from it, single ops
// gained (docs/measurements.md; TestModeReport with -cpu.modereportn).
var streamMinBytes = 8 << 20

// chooseModes picks the kernel mode of each float instruction (see
// modeCached): when the iteration space holds at least streamMinBytes of
// float32, an instruction whose result is written straight into an output
// and read by no other instruction streams its stores, and the first
// instruction to read each input in place prefetches it.
// Scalar instructions (one element) and plans below the size stay cached.
func (p *plan) chooseModes() {
	big := 4*p.n >= streamMinBytes
	p.read, p.fetched = grow(p.read, len(p.code)), grow(p.fetched, len(p.code))
	clear(p.read)
	clear(p.fetched)
	for i := range p.code {
		in := &p.code[i]
		for a := 0; a < in.Op.Arity(); a++ {
			p.read[in.Args[a]] = true
		}
	}
	for i := range p.code {
		ri := &p.regs[i]
		ri.mode = modeCached
		if !big || ri.class != classF32 || ri.scalar || ri.alias {
			continue
		}
		if ri.direct >= 0 && !p.read[i] { // a result read back would come from memory
			ri.mode = modeStream
			continue
		}
		in := &p.code[i]
		for a := 0; a < in.Op.Arity(); a++ {
			if r := in.Args[a]; p.regs[r].alias && !p.fetched[r] {
				ri.mode = modePrefetch // the first reader; later ones find the chunk in cache
				p.fetched[r] = true
			}
		}
	}
}

// repeated reports whether argument a of in also appears earlier among its
// arguments, so that a register is released once.
func repeated(in *device.Instr, a int) bool {
	for b := 0; b < a; b++ {
		if in.Args[b] == in.Args[a] {
			return true
		}
	}
	return false
}
