package torchdiff

import (
	"encoding/base64"
	"encoding/binary"
	"fmt"
	"math"

	"github.com/shaderflow/shaderflow/tensor"
)

// Result is a program's output and the gradients of its loss with respect to
// each input (zeros for an input the output does not depend on).
type Result struct {
	Shape []int
	Out   []float64
	Grads [][]float64
}

// RunShaderflow runs p on dev: the forward chain, then the backward pass
// seeded with p.Weights. A panic in an operation comes back as an error.
func RunShaderflow(dev *tensor.Device, p *Program) (*Result, error) {
	var res *Result
	var runErr error
	if err := tensor.Catch(func() {
		dev.Scope(func() {
			res, runErr = runShaderflow(dev, p)
		})
	}); err != nil {
		return nil, err
	}
	return res, runErr
}

func runShaderflow(dev *tensor.Device, p *Program) (*Result, error) {
	leaves := make([]*tensor.Tensor, len(p.Inputs))
	vals := make([]*tensor.Tensor, len(p.Steps))
	for i, s := range p.Steps {
		v, err := apply(dev, s, vals, leaves, p)
		if err != nil {
			return nil, fmt.Errorf("v%d = %s: %w", i, s.Op, err)
		}
		vals[i] = v
	}
	out := vals[len(vals)-1]
	o, err := out.Float32s()
	if err != nil {
		return nil, fmt.Errorf("reading the output: %w", err)
	}
	res := &Result{Shape: out.Shape(), Out: widen(o)}
	// An output computed only from comparisons does not require grad, and
	// every gradient is zero as in PyTorch.
	if out.RequiresGrad() {
		if err := out.BackwardWith(fromFloat32s(dev, p.Weights, out.Shape())); err != nil {
			return nil, fmt.Errorf("backward: %w", err)
		}
	}
	for i, l := range leaves {
		g := make([]float64, len(p.Inputs[i].Data))
		if gt := l.Grad(); gt != nil {
			gs, err := gt.Float32s()
			if err != nil {
				return nil, fmt.Errorf("reading the gradient of input %d: %w", i, err)
			}
			g = widen(gs)
		}
		res.Grads = append(res.Grads, g)
	}
	return res, nil
}

// apply builds one step in Shaderflow.
func apply(dev *tensor.Device, s Step, vals, leaves []*tensor.Tensor, p *Program) (*tensor.Tensor, error) {
	var x, y *tensor.Tensor
	if len(s.Args) > 0 {
		x = vals[s.Args[0]]
	}
	if len(s.Args) > 1 {
		y = vals[s.Args[1]]
	}
	f := func(i int) float64 { return s.Floats[i] }
	switch s.Op {
	case "input":
		in := p.Inputs[s.Ints[0]]
		t := fromFloat32s(dev, in.Data, in.Shape).SetRequiresGrad(true)
		leaves[s.Ints[0]] = t
		return t, nil
	case "neg":
		return x.Neg(), nil
	case "abs":
		return x.Abs(), nil
	case "exp":
		return x.Exp(), nil
	case "log":
		return x.Log(), nil
	case "sqrt":
		return x.Sqrt(), nil
	case "rsqrt":
		return x.Rsqrt(), nil
	case "reciprocal":
		return x.Reciprocal(), nil
	case "sigmoid":
		return x.Sigmoid(), nil
	case "tanh":
		return x.Tanh(), nil
	case "relu":
		return x.Relu(), nil
	case "sin":
		return x.Sin(), nil
	case "cos":
		return x.Cos(), nil
	case "erf":
		return x.Erf(), nil
	case "gelu":
		return x.Gelu(), nil
	case "silu":
		return x.Silu(), nil
	case "square":
		return x.PowScalar(2), nil
	case "logabs":
		return x.Abs().AddScalar(0.25).Log(), nil
	case "sqrtabs":
		return x.Abs().AddScalar(0.25).Sqrt(), nil
	case "addscalar":
		return x.AddScalar(f(0)), nil
	case "mulscalar":
		return x.MulScalar(f(0)), nil
	case "rsubscalar":
		return x.RSubScalar(f(0)), nil
	case "divscalar":
		return x.DivScalar(f(0)), nil
	case "powscalar":
		return x.PowScalar(f(0)), nil
	case "clamp":
		return x.Clamp(f(0), f(1)), nil
	case "expm1":
		return x.Expm1(), nil
	case "log1pabs":
		return x.Abs().Log1p(), nil
	case "atan":
		return x.Atan(), nil
	case "leakyrelu":
		return x.LeakyRelu(0.1), nil
	case "half":
		return x.Cast(tensor.Float16).Cast(tensor.Float32), nil
	case "bfloat":
		return x.Cast(tensor.BFloat16).Cast(tensor.Float32), nil
	case "add":
		return x.Add(y), nil
	case "sub":
		return x.Sub(y), nil
	case "mul":
		return x.Mul(y), nil
	case "div":
		return x.Div(y), nil
	case "maximum":
		return x.Maximum(y), nil
	case "minimum":
		return x.Minimum(y), nil
	case "pow":
		// A positive base keeps Pow real and its exponent gradient finite.
		return x.Abs().AddScalar(0.25).Pow(y), nil
	case "gt":
		return x.Gt(y), nil
	case "lt":
		return x.Lt(y), nil
	case "ge":
		return x.Ge(y), nil
	case "le":
		return x.Le(y), nil
	case "ne":
		return x.Ne(y), nil
	case "and":
		return x.LogicalAnd(y), nil
	case "or":
		return x.LogicalOr(y), nil
	case "not":
		return x.Not(), nil
	case "tofloat":
		return x.Cast(tensor.Float32), nil
	case "where":
		return tensor.Where(x, y, vals[s.Args[2]]), nil
	case "transpose":
		return x.Transpose(s.Ints[0], s.Ints[1]), nil
	case "permute":
		return x.Permute(s.Ints...), nil
	case "slice":
		return x.Slice(s.Ints[0], s.Ints[1], s.Ints[2], s.Ints[3]), nil
	case "narrow":
		return x.Narrow(s.Ints[0], s.Ints[1], s.Ints[2]), nil
	case "expand":
		return x.Expand(s.Ints...), nil
	case "reshape":
		return x.Reshape(s.Ints...), nil
	case "unsqueeze":
		return x.Unsqueeze(s.Ints[0]), nil
	case "squeeze":
		return x.Squeeze(s.Ints...), nil
	case "flatten":
		return x.Flatten(s.Ints[0], s.Ints[1]), nil
	case "contiguous":
		return x.Contiguous(), nil
	case "sum":
		if s.Keep {
			return x.SumKeepDim(s.Ints...), nil
		}
		return x.Sum(s.Ints...), nil
	case "mean":
		if s.Keep {
			return x.MeanKeepDim(s.Ints...), nil
		}
		return x.Mean(s.Ints...), nil
	case "max":
		if s.Keep {
			return x.MaxKeepDim(s.Ints...), nil
		}
		return x.Max(s.Ints...), nil
	case "min":
		if s.Keep {
			return x.MinKeepDim(s.Ints...), nil
		}
		return x.Min(s.Ints...), nil
	case "var":
		if s.Keep {
			return x.VarKeepDim(int(f(0)), s.Ints...), nil
		}
		return x.Var(int(f(0)), s.Ints...), nil
	case "softmax":
		return x.Softmax(s.Ints[0]), nil
	case "logsoftmax":
		return x.LogSoftmax(s.Ints[0]), nil
	case "matmul":
		return x.MatMul(y), nil
	}
	return applyMore(s, x, y)
}

// fromFloat32s is tensor.FromFloat32s, with an empty shape meaning a 0-d
// tensor rather than a 1-D one.
func fromFloat32s(dev *tensor.Device, data []float32, shape []int) *tensor.Tensor {
	if len(shape) > 0 {
		return tensor.FromFloat32s(dev, data, shape...)
	}
	return tensor.FromFloat32s(dev, data, 1).Reshape().Detach()
}

// widen converts float32s to float64s.
func widen(xs []float32) []float64 {
	out := make([]float64, len(xs))
	for i, v := range xs {
		out[i] = float64(v)
	}
	return out
}

// encodeFloat32s is xs as little-endian bytes in base64, which carries NaN
// and infinities exactly where JSON numbers cannot.
func encodeFloat32s(xs []float32) string {
	b := make([]byte, 4*len(xs))
	for i, v := range xs {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(v))
	}
	return base64.StdEncoding.EncodeToString(b)
}

// decodeFloats decodes base64 little-endian float32s (size 4) or float64s
// (size 8).
func decodeFloats(s string, size int) ([]float64, error) {
	b, err := base64.StdEncoding.DecodeString(s)
	if err != nil {
		return nil, err
	}
	if len(b)%size != 0 {
		return nil, fmt.Errorf("%d bytes are not a whole number of %d-byte floats", len(b), size)
	}
	out := make([]float64, len(b)/size)
	for i := range out {
		if size == 4 {
			out[i] = float64(math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:])))
		} else {
			out[i] = math.Float64frombits(binary.LittleEndian.Uint64(b[8*i:]))
		}
	}
	return out, nil
}
