package cpu

import (
	"math"

	"github.com/shaderflow/shaderflow/tensor/device"
)

// wideChunk is how many positions the wide path evaluates together: each
// instruction runs over a column of a chunk's registers, so that its
// definition is looked up and dispatched once a chunk, not once an element.
const wideChunk = 256

// wideFrame is one goroutine's state for evaluating a program on the wide
// path: a chunk's register columns and the inputs' element offsets at each
// of its positions.
type wideFrame struct {
	steps []wideStep
	regs  [][]wideVal
	offs  [][]int
	w     *walker
}

// wideStep computes one register's column at positions pos … pos+n-1.
type wideStep func(f *wideFrame, pos, n int)

func newWideFrame(steps []wideStep, nregs int, shape []int, ins []wideView) *wideFrame {
	f := &wideFrame{steps: steps, regs: make([][]wideVal, nregs), offs: make([][]int, len(ins)), w: newWalker(shape, ins)}
	for i := range f.regs {
		f.regs[i] = make([]wideVal, wideChunk)
	}
	for j := range f.offs {
		f.offs[j] = make([]int, wideChunk)
	}
	return f
}

// eval computes every register at positions pos … pos+n-1 (n ≤ wideChunk);
// the walker must be at pos, and is left at pos+n.
func (f *wideFrame) eval(pos, n int) {
	for k := 0; k < n; {
		run := f.w.run(n - k)
		for j, o := range f.w.offs {
			step := f.w.innerStride(j)
			for t, dst := 0, f.offs[j][k:k+run]; t < run; t++ {
				dst[t] = o + t*step
			}
		}
		f.w.skip(run)
		k += run
	}
	for _, s := range f.steps {
		s(f, pos, n)
	}
}

// mapStep computes register i from register x, element by element.
func mapStep(i int, x device.Reg, g func(wideVal) wideVal) wideStep {
	return func(f *wideFrame, _, n int) {
		dst, src := f.regs[i][:n], f.regs[x][:n]
		for k, v := range src {
			dst[k] = g(v)
		}
	}
}

// zipStep computes register i from registers x and y, element by element.
func zipStep(i int, x, y device.Reg, g func(a, b wideVal) wideVal) wideStep {
	return func(f *wideFrame, _, n int) {
		dst, xs, ys := f.regs[i][:n], f.regs[x][:n], f.regs[y][:n]
		for k := range dst {
			dst[k] = g(xs[k], ys[k])
		}
	}
}

// compileWide turns code into one step per instruction, each op's
// definition looked up once.
func compileWide(code []device.Instr, ins []wideView) []wideStep {
	steps := make([]wideStep, len(code))
	for i := range code {
		in := code[i]
		a := in.Args
		var s wideStep
		switch op := in.Op; {
		case op == device.OpInput:
			src, j := ins[in.Index], in.Index
			s = func(f *wideFrame, _, n int) { loadCol(f.regs[i][:n], src.data, src.v.DType, f.offs[j][:n]) }
		case op == device.OpConst:
			c := constWide(in.Imm, in.Type)
			s = func(f *wideFrame, _, n int) {
				for k := range f.regs[i][:n] {
					f.regs[i][k] = c
				}
			}
		case op == device.OpIndex:
			s = func(f *wideFrame, pos, n int) {
				for k := range f.regs[i][:n] {
					f.regs[i][k] = wideVal{i: int64(int32(pos + k))}
				}
			}
		case op == device.OpRandUniform || op == device.OpRandNormal:
			key, draw := device.StreamKey(in.Seed), device.Uniform
			if op == device.OpRandNormal {
				draw = device.Normal
			}
			s = func(f *wideFrame, pos, n int) {
				for k := range f.regs[i][:n] {
					f.regs[i][k] = wideVal{f: float64(draw(key, uint32(pos+k)))}
				}
			}
		case op == device.OpIsNaN:
			s = mapStep(i, a[0], func(x wideVal) wideVal { return wideVal{i: b2i(x.f != x.f)} })
		case op == device.OpNot:
			s = mapStep(i, a[0], func(x wideVal) wideVal { return wideVal{i: x.i ^ 1} })
		case op == device.OpCast:
			from, to := code[a[0]].Type, in.Type
			s = mapStep(i, a[0], func(x wideVal) wideVal { return castWide(x, from, to) })
		case op.IsComparison():
			t := code[a[0]].Type
			s = zipStep(i, a[0], a[1], func(x, y wideVal) wideVal { return wideVal{i: b2i(compareWide(op, t, x, y))} })
		case op == device.OpAnd:
			s = zipStep(i, a[0], a[1], func(x, y wideVal) wideVal { return wideVal{i: x.i & y.i} })
		case op == device.OpOr:
			s = zipStep(i, a[0], a[1], func(x, y wideVal) wideVal { return wideVal{i: x.i | y.i} })
		case op == device.OpWhere:
			s = func(f *wideFrame, _, n int) {
				dst, c, x, y := f.regs[i][:n], f.regs[a[0]][:n], f.regs[a[1]][:n], f.regs[a[2]][:n]
				for k := range dst {
					if c[k].i != 0 {
						dst[k] = x[k]
					} else {
						dst[k] = y[k]
					}
				}
			}
		case op == device.OpFma:
			narrow := in.Type == device.Float32
			s = func(f *wideFrame, _, n int) {
				dst, x, y, z := f.regs[i][:n], f.regs[a[0]][:n], f.regs[a[1]][:n], f.regs[a[2]][:n]
				for k := range dst {
					v := math.FMA(x[k].f, y[k].f, z[k].f)
					if narrow {
						v = float64(float32(v))
					}
					dst[k] = wideVal{f: v}
				}
			}
		case op.Arity() == 1:
			s = unaryStep(i, op, in.Type, a[0])
		default:
			s = binaryStep(i, op, in.Type, a[0], a[1])
		}
		steps[i] = s
	}
	return steps
}

// unaryStep is the step of a one-argument arithmetic op on type t.
func unaryStep(i int, op device.Op, t device.DType, x device.Reg) wideStep {
	switch t {
	case device.Float32:
		g := op.Info().Float
		return func(f *wideFrame, _, n int) {
			dst, xs := f.regs[i][:n], f.regs[x][:n]
			for k := range dst {
				dst[k] = wideVal{f: float64(g(float32(xs[k].f)))}
			}
		}
	case device.Float64:
		g := device.UnaryF64Func(op)
		return func(f *wideFrame, _, n int) {
			dst, xs := f.regs[i][:n], f.regs[x][:n]
			for k := range dst {
				dst[k] = wideVal{f: g(xs[k].f)}
			}
		}
	case device.Int32:
		g := op.Info().Int
		return func(f *wideFrame, _, n int) {
			dst, xs := f.regs[i][:n], f.regs[x][:n]
			for k := range dst {
				dst[k] = wideVal{i: int64(g(int32(xs[k].i)))}
			}
		}
	}
	return mapStep(i, x, func(v wideVal) wideVal { return wideVal{i: device.UnaryI64(op, v.i)} })
}

// binaryStep is the step of a two-argument arithmetic op on type t: one
// call of the op's definition an element, none for the commonest Float64
// and Int64 ones.
func binaryStep(i int, op device.Op, t device.DType, x, y device.Reg) wideStep {
	cols := func(f *wideFrame, n int) ([]wideVal, []wideVal, []wideVal) {
		return f.regs[i][:n], f.regs[x][:n], f.regs[y][:n]
	}
	switch {
	case t == device.Float64 && op == device.OpAdd:
		return func(f *wideFrame, _, n int) {
			dst, xs, ys := cols(f, n)
			for k := range dst {
				dst[k] = wideVal{f: xs[k].f + ys[k].f}
			}
		}
	case t == device.Float64 && op == device.OpMul:
		return func(f *wideFrame, _, n int) {
			dst, xs, ys := cols(f, n)
			for k := range dst {
				dst[k] = wideVal{f: xs[k].f * ys[k].f}
			}
		}
	case t == device.Int64 && op == device.OpAdd:
		return func(f *wideFrame, _, n int) {
			dst, xs, ys := cols(f, n)
			for k := range dst {
				dst[k] = wideVal{i: xs[k].i + ys[k].i}
			}
		}
	case t == device.Int64 && op == device.OpMul:
		return func(f *wideFrame, _, n int) {
			dst, xs, ys := cols(f, n)
			for k := range dst {
				dst[k] = wideVal{i: xs[k].i * ys[k].i}
			}
		}
	case t == device.Float32:
		g := op.Info().Float2
		return func(f *wideFrame, _, n int) {
			dst, xs, ys := cols(f, n)
			for k := range dst {
				dst[k] = wideVal{f: float64(g(float32(xs[k].f), float32(ys[k].f)))}
			}
		}
	case t == device.Float64:
		g := device.BinaryF64Func(op)
		return func(f *wideFrame, _, n int) {
			dst, xs, ys := cols(f, n)
			for k := range dst {
				dst[k] = wideVal{f: g(xs[k].f, ys[k].f)}
			}
		}
	case t == device.Int32:
		g := op.Info().Int2
		return func(f *wideFrame, _, n int) {
			dst, xs, ys := cols(f, n)
			for k := range dst {
				dst[k] = wideVal{i: int64(g(int32(xs[k].i), int32(ys[k].i)))}
			}
		}
	}
	return zipStep(i, x, y, func(a, b wideVal) wideVal { return wideVal{i: device.BinaryI64(op, a.i, b.i)} })
}
