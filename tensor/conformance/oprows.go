package conformance

import (
	"github.com/shaderflow/shaderflow/tensor"
	"github.com/shaderflow/shaderflow/tensor/conformance/ref"
)

// opRow is a composed op checked against its float64 reference: forward in
// every layout of its first input (fusion on and off are run by the suite),
// and, when grad is set, its gradients by central differences (checkGrad).
type opRow struct {
	op   gradOp
	out  tensor.DType                                // the result's dtype
	tol  func(ins []*ref.Array, want *ref.Array) tol // nil for exact
	grad bool
}

// row builds an opRow of a Float32 result.
func row(name string, ins []gradIn, dev func([]*tensor.Tensor) *tensor.Tensor, r func([]*ref.Array) *ref.Array) opRow {
	return opRow{op: gradOp{name, ins, dev, r}, out: tensor.Float32}
}

func (r opRow) within(t func(ins []*ref.Array, want *ref.Array) tol) opRow { r.tol = t; return r }
func (r opRow) differentiable() opRow                                      { r.grad = true; return r }
func (r opRow) giving(dt tensor.DType) opRow                               { r.out = dt; return r }

// relTol is a fixed tolerance for rows whose error does not grow with size.
func relTol(rel float64) func([]*ref.Array, *ref.Array) tol {
	return func([]*ref.Array, *ref.Array) tol { return tol{rel: rel, abs: rel / 10} }
}

// rowCases turns rows into test cases: one per layout of the first input,
// then one gradient check per differentiable row.
func rowCases(rows []opRow) []testCase {
	var cs []testCase
	for _, r := range rows {
		for _, l := range layoutsFor(r.op.ins[0].shape) {
			cs = append(cs, testCase{name: caseName(r.op.name, shapeName(r.op.ins[0].shape), l.name), run: func(e *env) {
				ts := make([]*tensor.Tensor, len(r.op.ins))
				rs := make([]*ref.Array, len(r.op.ins))
				for i, gi := range r.op.ins {
					if i == 0 {
						gi.l = l
					}
					p := e.gradInput(gi)
					ts[i], rs[i] = p.T, p.R
				}
				want := r.op.ref(rs)
				t := exact
				if r.tol != nil {
					t = r.tol(rs, want)
				}
				e.expect(r.op.name, r.out, want, t, func() *tensor.Tensor { return r.op.dev(ts) })
			}})
		}
		if r.grad {
			cs = append(cs, testCase{name: caseName("grad", r.op.name, shapeName(r.op.ins[0].shape)), run: func(e *env) { checkGrad(e, r.op) }})
		}
	}
	return cs
}

// unary adapts a one-input op to a row.
func unary(name string, x gradIn, dev func(*tensor.Tensor) *tensor.Tensor, r func(*ref.Array) *ref.Array) opRow {
	g := unaryGrad(name, x, dev, r)
	return opRow{op: g, out: tensor.Float32}
}
