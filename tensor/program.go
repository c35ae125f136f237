package tensor

import (
	"slices"

	"github.com/shaderflow/shaderflow/tensor/device"
)

// accInput is the placeholder input index of an absorbed producer's result
// (a reduction, matmul or convolution) while a program is being built; it
// becomes input 0 of the producer's epilogue.
const accInput = 1 << 30

// maxProgramOps bounds how many instructions fusion puts into one kernel.
const maxProgramOps = 256

type memoEntry struct {
	n *node
	v view
	r device.Reg
}

type contribution struct {
	n      *node
	inputs int
}

// progBuilder turns a node and the elementwise producers it can inline into
// one device.Program over an iteration shape.
type progBuilder struct {
	d       *Device
	b       device.Builder
	shape   []int
	inputs  []device.View
	srcs    []*node // the nodes pinned while the builder is in use (see pin)
	memo    []memoEntry
	contrib []contribution
	ops     []string

	absorbOK bool  // may absorb one producer as the epilogue's input 0
	absorbed *node // the absorbed producer
	err      error
}

// newProgBuilder returns a builder from the device's free list; callers
// return it with putProgBuilder once its program has been launched.
func (d *Device) newProgBuilder(shape []int, absorbOK bool) *progBuilder {
	var pb *progBuilder
	if n := len(d.pbFree); n > 0 {
		pb = d.pbFree[n-1]
		d.pbFree = d.pbFree[:n-1]
	} else {
		pb = &progBuilder{}
	}
	pb.d, pb.shape, pb.absorbOK = d, shape, absorbOK && Fusion()
	return pb
}

// pin takes a consumer reference on n for as long as pb is in use: a nested
// realization while the program is built (of a node that the program also
// inlines) may drop the last other reference, and a node the program reads
// or absorbs must not be freed, nor its block reused, before the kernel is
// launched.
func (pb *progBuilder) pin(n *node) {
	n.consumers++
	pb.srcs = append(pb.srcs, n)
}

// putProgBuilder drops pb's pins, freeing what nothing else reads, and
// recycles pb, keeping its slices' capacity.
func (d *Device) putProgBuilder(pb *progBuilder) {
	for _, n := range pb.srcs {
		n.consumers--
		n.maybeFree()
	}
	clear(pb.inputs)
	clear(pb.srcs)
	clear(pb.memo)
	clear(pb.contrib)
	*pb = progBuilder{
		b:       device.Builder{P: device.Program{Code: pb.b.P.Code[:0], Outputs: pb.b.P.Outputs[:0]}},
		inputs:  pb.inputs[:0],
		srcs:    pb.srcs[:0],
		memo:    pb.memo[:0],
		contrib: pb.contrib[:0],
		ops:     pb.ops[:0],
	}
	d.pbFree = append(d.pbFree, pb)
}

// canInline reports whether n may be computed inside the kernel being built
// when read through v.
func (pb *progBuilder) canInline(n *node, v view) bool {
	if n.block != nil || n.err != nil || n.kind != kindElementwise || n.forceMat || len(pb.b.P.Code) >= maxProgramOps {
		return false
	}
	if !Fusion() && n.op != device.OpConst {
		return false
	}
	switch n.op {
	case device.OpIndex, device.OpRandUniform, device.OpRandNormal:
		return v.isIdentity(n.shape) // these depend on the output position
	}
	return true
}

// canAbsorb reports whether n can become the producer whose epilogue this
// program is.
func (pb *progBuilder) canAbsorb(n *node, v view) bool {
	if !pb.absorbOK || pb.absorbed != nil || n.block != nil || n.err != nil || n.forceMat || n.consumers != 1 {
		return false
	}
	switch n.kind {
	case kindReduce, kindMatMul, kindConv:
	default:
		return false
	}
	if device.NumElements(n.shape) != device.NumElements(pb.shape) {
		return false
	}
	// A matmul may also be read through a reshape that keeps its element
	// order (a product folded over a batch, read in the batch's shape): the
	// epilogue's inputs are then viewed in the product's shape (reshaped).
	return v.isIdentity(n.shape) || n.kind == kindMatMul && v.isIdentity(pb.shape)
}

// build returns the register holding n's value at each iteration position,
// where v (of the iteration shape) maps positions onto n.
func (pb *progBuilder) build(n *node, v view) device.Reg {
	for _, e := range pb.memo {
		if e.n == n && viewEqual(e.v, v) {
			return e.r
		}
	}
	var r device.Reg
	switch {
	case pb.canInline(n, v):
		var ok bool
		if r, ok = pb.inline(n, v); !ok {
			r = pb.materialized(n, v)
		}
	case pb.canAbsorb(n, v):
		pb.absorbed = n
		pb.pin(n)
		r = pb.b.Round(pb.b.Input(accInput, n.dtype), n.dtype)
		pb.ops = append(pb.ops, n.kind.String())
	default:
		r = pb.materialized(n, v)
	}
	pb.memo = append(pb.memo, memoEntry{n: n, v: v, r: r})
	return r
}

// inline emits n's op over its sources read through views composed with v.
func (pb *progBuilder) inline(n *node, v view) (device.Reg, bool) {
	var views [3]view
	for i, s := range n.srcs {
		cv, ok := compose(v, n.shape, s.v)
		if !ok {
			return 0, false
		}
		views[i] = cv
	}
	before := len(pb.inputs)
	var args [3]device.Reg
	at := n.argType
	for i, s := range n.srcs {
		args[i] = pb.build(s.n, views[i])
		if !(n.op == device.OpWhere && i == 0) {
			args[i] = pb.b.Cast(args[i], at)
		} else {
			args[i] = pb.b.Cast(args[i], Bool)
		}
	}
	if n.lit > 0 { // a scalar operand stored in the node
		copy(args[n.lit:], args[n.lit-1:len(n.srcs)])
		args[n.lit-1] = pb.b.Const(n.imm, at)
	}
	b := &pb.b
	var r device.Reg
	switch op := n.op; {
	case op == device.OpConst:
		r = b.Const(n.imm, n.dtype.ComputeType())
	case op == device.OpIndex:
		r = b.Index()
	case op == device.OpRandUniform || op == device.OpRandNormal:
		r = b.Rand(n.seed, op == device.OpRandNormal)
	case op == device.OpCast:
		r = b.Cast(args[0], n.dtype)
	case op == device.OpWhere:
		r = b.Where(args[0], args[1], args[2])
	case op == device.OpFma:
		r = b.Fma(args[0], args[1], args[2])
	case op.Arity() == 1:
		r = b.Unary(op, args[0])
	default:
		r = b.Binary(op, args[0], args[1])
	}
	if !pb.exactIn(r, n.dtype) {
		r = b.Round(r, n.dtype)
	}
	if n.op != device.OpConst {
		pb.ops = append(pb.ops, n.op.String())
	}
	pb.contrib = append(pb.contrib, contribution{n: n, inputs: len(pb.inputs) - before})
	return r, true
}

// exactIn reports whether register r certainly holds a value of storage type
// dt, so that rounding it to dt would change nothing: a load of a dt view, a
// rounding to dt, or a sign change, absolute value, ReLU, maximum, minimum or
// selection of such values. Other narrow results are rounded where they are
// computed, as storing them would.
func (pb *progBuilder) exactIn(r device.Reg, dt DType) bool {
	in := &pb.b.P.Code[r]
	switch in.Op {
	case device.OpInput:
		return in.Index != accInput && pb.inputs[in.Index].DType == dt
	case device.OpRoundF16:
		return dt == Float16
	case device.OpRoundBF16:
		return dt == BFloat16
	case device.OpNeg, device.OpAbs, device.OpRelu: // exact for floats, not for a uint8's negation
		return dt.IsFloat() && pb.exactIn(in.Args[0], dt)
	case device.OpMax, device.OpMin:
		return pb.exactIn(in.Args[0], dt) && pb.exactIn(in.Args[1], dt)
	case device.OpWhere:
		return pb.exactIn(in.Args[1], dt) && pb.exactIn(in.Args[2], dt)
	}
	return false
}

// unroundLast returns the argument of r when r is the program's last
// instruction and rounds to dt, removing it, for r stored next to an output
// of type dt: the store rounds the value the same way.
func (pb *progBuilder) unroundLast(r device.Reg, dt DType) device.Reg {
	code := pb.b.P.Code
	if int(r) != len(code)-1 || !(code[r].Op == device.OpRoundF16 && dt == Float16 || code[r].Op == device.OpRoundBF16 && dt == BFloat16) {
		return r
	}
	pb.b.P.Code = code[:r]
	return code[r].Args[0]
}

// materialized realizes n on its own and reads it as a kernel input.
func (pb *progBuilder) materialized(n *node, v view) device.Reg {
	if err := pb.d.realize(n); err != nil {
		if pb.err == nil {
			pb.err = err
		}
		return pb.b.Const(0, n.dtype.ComputeType())
	}
	pb.inputs = append(pb.inputs, n.deviceView(v))
	pb.pin(n)
	return pb.b.Input(len(pb.inputs)-1, n.dtype)
}

// finish returns the program with the absorbed producer's result renumbered
// to input 0 and the other inputs shifted up by one.
func (pb *progBuilder) finish() device.Program {
	p := pb.b.P
	if pb.absorbed == nil {
		return p
	}
	p.Code = slices.Clone(p.Code)
	for i := range p.Code {
		if p.Code[i].Op == device.OpInput {
			if p.Code[i].Index == accInput {
				p.Code[i].Index = 0
			} else {
				p.Code[i].Index++
			}
		}
	}
	return p
}

// bindings returns the number of buffers the kernel binds so far plus extra.
func (pb *progBuilder) bindings(extra int) int { return len(pb.inputs) + extra }

// worstContributor returns the inlined node other than except whose
// materialization frees the most bindings, or nil.
func (pb *progBuilder) worstContributor(except *node) *node {
	var best *node
	bestN := 1
	for _, c := range pb.contrib {
		if c.n != except && c.inputs > bestN {
			best, bestN = c.n, c.inputs
		}
	}
	return best
}

func viewEqual(a, b view) bool {
	return a.offset == b.offset && slices.Equal(a.shape, b.shape) && slices.Equal(a.strides, b.strides)
}

func (k nodeKind) String() string {
	return [...]string{"data", "elementwise", "reduce", "matmul", "conv", "pool", "gather", "scatter", "cat", "softmax", "softmax_grad", "normalize", "normalize_grad", "attention", "attention_grad", "sort", "cumsum"}[k]
}

// reshapeInputs views the program's inputs, which have the iteration shape,
// in shape, which has as many elements (an absorbed product's own shape,
// read in element order: see canAbsorb); it reports false when an input's
// strides cannot express that reshape.
func (pb *progBuilder) reshapeInputs(shape []int) bool {
	if slices.Equal(shape, pb.shape) {
		return true
	}
	for i, in := range pb.inputs {
		st, ok := reshapeStrides(in.Shape, in.Strides, shape)
		if !ok {
			return false
		}
		pb.inputs[i].Shape, pb.inputs[i].Strides = shape, st
	}
	return true
}
