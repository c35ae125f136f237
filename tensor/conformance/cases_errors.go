package conformance

import (
	"errors"
	"strings"

	"github.com/shaderflow/shaderflow/tensor"
	"github.com/shaderflow/shaderflow/tensor/conformance/ref"
)

// expectUsage runs fn, which must panic with a tensor.UsageError whose
// message contains every one of want (the op's name, the shapes).
func expectUsage(e *env, what string, fn func(), want ...string) {
	e.t.Helper()
	var err error
	func() {
		defer func() {
			if r := recover(); r != nil {
				e.errorf("%s: panicked with %T %v, not a tensor.UsageError that tensor.Catch turns into an error", what, r, r)
			}
		}()
		err = tensor.Catch(fn)
	}()
	if err == nil {
		e.errorf("%s: no panic, want a usage error naming %q", what, want)
		return
	}
	var ue *tensor.UsageError
	if !errors.As(err, &ue) {
		e.errorf("%s: error %T %v is not a *tensor.UsageError", what, err, err)
	}
	for _, w := range want {
		if !strings.Contains(err.Error(), w) {
			e.errorf("%s: message %q does not mention %q", what, err.Error(), w)
		}
	}
}

func errorCases() []testCase {
	return []testCase{
		{name: "shape_mismatch", run: func(e *env) {
			a, b := e.randn(2, 3), e.randn(4)
			expectUsage(e, "Add", func() { a.T.Add(b.T) }, "Add", "[2 3]", "[4]")
			expectUsage(e, "Mul", func() { b.T.Mul(a.T) }, "Mul", "[2 3]", "[4]")
			expectUsage(e, "Maximum", func() { a.T.Maximum(b.T) }, "Maximum", "[2 3]", "[4]")
			expectUsage(e, "Lt", func() { a.T.Lt(b.T) }, "Lt", "[2 3]", "[4]")
			c := e.input(tensor.Bool, ints(0, 1), contiguous, 5)
			expectUsage(e, "Where", func() { tensor.Where(c.T, a.T, a.T) }, "Where", "[5]", "[2 3]")
			m := e.randn(4, 5)
			expectUsage(e, "MatMul", func() { a.T.MatMul(m.T) }, "MatMul", "[2 3]", "[4 5]")
			expectUsage(e, "Cat", func() { tensor.Cat(0, a.T, m.T) }, "Cat", "[2 3]", "[4 5]")
			expectUsage(e, "Stack", func() { tensor.Stack(0, a.T, m.T) }, "Stack", "[2 3]", "[4 5]")
			expectUsage(e, "Expand", func() { a.T.Expand(2, 4) }, "Expand", "[2 3]", "[2 4]")
			expectUsage(e, "Reshape", func() { a.T.Reshape(4, -1) }, "Reshape", "[2 3]")
		}},
		{name: "bad_axis", run: func(e *env) {
			a := e.randn(2, 3)
			expectUsage(e, "Sum", func() { a.T.Sum(2) }, "Sum", "2")
			expectUsage(e, "Softmax", func() { a.T.Softmax(-3) }, "Softmax", "-3")
			expectUsage(e, "Transpose", func() { a.T.Transpose(0, 5) }, "Transpose", "5")
			expectUsage(e, "Narrow", func() { a.T.Narrow(1, 2, 2) }, "Narrow", "[2 3]")
			expectUsage(e, "Permute", func() { a.T.Permute(0, 0) }, "Permute")
		}},
		{name: "conv_pool_norm_shapes", run: func(e *env) {
			x, w := e.randn(1, 3, 5, 5), e.randn(2, 4, 3, 3)
			expectUsage(e, "Conv2d", func() { x.T.Conv2d(w.T, nil, tensor.ConvOptions{}) }, "Conv2d", "[1 3 5 5]", "[2 4 3 3]")
			expectUsage(e, "Conv1d of 4-D", func() { x.T.Conv1d(w.T, nil, tensor.ConvOptions{}) }, "Conv1d", "[1 3 5 5]")
			expectUsage(e, "MaxPool2d", func() { x.T.MaxPool2d(tensor.PoolOptions{Kernel: []int{7}}) }, "MaxPool2d", "[1 3 5 5]")
			g := e.randn(4)
			expectUsage(e, "LayerNorm", func() { x.T.LayerNorm(1, g.T, nil, 1e-5) }, "LayerNorm", "[4]")
			expectUsage(e, "GroupNorm", func() { x.T.GroupNorm(2, nil, nil, 1e-5) }, "GroupNorm", "[1 3 5 5]")
		}},
		{name: "index_out_of_range", run: func(e *env) {
			// A bad index is data, found while the kernel runs: an error, not
			// a crash.
			x := e.randn(3, 4)
			idx := e.constant(tensor.Int32, []float64{0, 7, 1}, 3)
			var readErr error
			usageErr := tensor.Catch(func() { _, readErr = x.T.IndexSelect(0, idx.T).Float32s() })
			if usageErr == nil && readErr == nil {
				e.errorf("IndexSelect with index 7 of 3 rows: neither a usage panic nor a read error")
			}
			_ = e.dev.Sync() // where the deferred error may surface again
			y := e.randn(3)
			e.expect("Neg after a failed kernel", tensor.Float32, ref.Neg(y.R), exact, func() *tensor.Tensor { return y.T.Neg() })
		}},
		{name: "kernel_error_at_realize", run: func(e *env) {
			// A kernel that finds a bad index while it runs fails the
			// Realize that ran it, on every backend (a GPU finds it after
			// the launch), and every later read of the result fails too,
			// returning no data.
			x := e.randn(3, 4)
			rows := e.constant(tensor.Int32, []float64{0, 7, 1}, 3)
			cols := e.constant(tensor.Int32, []float64{0, 9, 2}, 3, 1)
			for _, c := range []struct {
				name  string
				build func() *tensor.Tensor
			}{
				{"IndexSelect", func() *tensor.Tensor { return x.T.IndexSelect(0, rows.T) }},
				{"Gather", func() *tensor.Tensor { return x.T.Gather(1, cols.T) }},
				{"Gather then MulScalar", func() *tensor.Tensor { return x.T.Gather(1, cols.T).MulScalar(2) }},
			} {
				y := c.build()
				if err := y.Realize(); err == nil {
					e.errorf("%s with an index out of range: Realize returned nil", c.name)
				}
				for range 2 {
					if v, err := y.Float32s(); err == nil || v != nil {
						e.errorf("%s after a failed Realize: Float32s returned %v, %v; want no data and an error", c.name, v, err)
					}
				}
				z := c.build()
				for range 2 {
					if v, err := z.Float32s(); err == nil || v != nil {
						e.errorf("%s read without Realize: Float32s returned %v, %v; want no data and an error", c.name, v, err)
					}
				}
			}
			e.noErr(e.dev.Sync(), "Sync after the reported errors")
			y := e.randn(3)
			e.expect("Neg after failed kernels", tensor.Float32, ref.Neg(y.R), exact, func() *tensor.Tensor { return y.T.Neg() })
		}},
		{name: "mixed_devices", run: func(e *env) {
			other, err := tensor.Open(e.dev.Info().Backend)
			if err != nil {
				e.t.Skipf("cannot open a second %s device: %v", e.dev.Info().Backend, err)
			}
			defer other.Close()
			a := e.randn(3)
			b := tensor.Zeros(other, 3)
			expectUsage(e, "Add across devices", func() { a.T.Add(b) }, "Add")
		}},
	}
}
