package torchdiff

import (
	"fmt"
	"math"

	"github.com/shaderflow/shaderflow/tensor"
)

// applyMore builds the steps of the parity op set in Shaderflow: the
// elementwise functions and activations, the binary functions with a
// positive divisor, the reductions with their own gradients and the axis
// operations of program_axis.go.
func applyMore(s Step, x, y *tensor.Tensor) (*tensor.Tensor, error) {
	f := func(i int) float64 { return s.Floats[i] }
	switch s.Op {
	case "sinh":
		return x.Sinh(), nil
	case "cosh":
		return x.Cosh(), nil
	case "tan":
		return x.Tan(), nil
	case "asin":
		return x.Tanh().MulScalar(0.875).Asin(), nil
	case "acos":
		return x.Tanh().MulScalar(0.875).Acos(), nil
	case "log2abs":
		return x.Abs().AddScalar(0.25).Log2(), nil
	case "log10abs":
		return x.Abs().AddScalar(0.25).Log10(), nil
	case "round":
		return x.Round(), nil
	case "trunc":
		return x.Trunc(), nil
	case "floor":
		return x.Floor(), nil
	case "ceil":
		return x.Ceil(), nil
	case "sign":
		return x.Sign(), nil
	case "softplus":
		return x.Softplus(), nil
	case "elu":
		return x.Elu(1), nil
	case "selu":
		return x.Selu(), nil
	case "hardswish":
		return x.Hardswish(), nil
	case "hardsigmoid":
		return x.Hardsigmoid(), nil
	case "mish":
		return x.Mish(), nil
	case "clampmin":
		return x.ClampMin(f(0)), nil
	case "clampmax":
		return x.ClampMax(f(0)), nil
	case "atan2":
		return x.Atan2(y), nil
	case "remainder":
		return x.Remainder(y.Abs().AddScalar(0.5)), nil
	case "fmod":
		return x.Fmod(y.Abs().AddScalar(0.5)), nil
	case "lerp":
		return x.LerpScalar(y, f(0)), nil
	case "std":
		if s.Keep {
			return x.StdKeepDim(int(f(0)), s.Ints...), nil
		}
		return x.Std(int(f(0)), s.Ints...), nil
	case "logsumexp":
		if s.Keep {
			return x.LogSumExpKeepDim(s.Ints...), nil
		}
		return x.LogSumExp(s.Ints...), nil
	case "prod":
		if s.Keep {
			return x.ProdKeepDim(s.Ints...), nil
		}
		return x.Prod(s.Ints...), nil
	case "norm1", "norm2", "norminf":
		p := map[string]float64{"norm1": 1, "norm2": 2, "norminf": math.Inf(1)}[s.Op]
		if s.Keep {
			return x.NormKeepDim(p, s.Ints...), nil
		}
		return x.Norm(p, s.Ints...), nil
	}
	return applyAxis(s, x)
}

// applyAxis builds the axis operations of program_axis.go.
func applyAxis(s Step, x *tensor.Tensor) (*tensor.Tensor, error) {
	ax := 0
	if len(s.Ints) > 0 {
		ax = s.Ints[0]
	}
	switch s.Op {
	case "cumsum":
		return x.Cumsum(ax), nil
	case "cumprod":
		return x.Cumprod(ax), nil
	case "sort":
		v, _ := x.Sort(ax, s.Keep)
		return v, nil
	case "topk":
		v, _ := x.TopK(s.Ints[1], ax, s.Keep)
		return v, nil
	case "median":
		v, _ := x.Median(ax, s.Keep)
		return v, nil
	case "flip":
		return x.Flip(s.Ints...), nil
	case "roll":
		return x.Roll([]int{s.Ints[1]}, ax), nil
	case "tril":
		return x.Tril(s.Ints[0]), nil
	case "triu":
		return x.Triu(s.Ints[0]), nil
	case "pad":
		mode := []tensor.PadMode{tensor.PadConstant, tensor.PadReflect, tensor.PadReplicate}[s.Ints[2]]
		return x.Pad([]int{s.Ints[0], s.Ints[1]}, mode, s.Floats[0]), nil
	case "repeat":
		return x.Repeat(s.Ints...), nil
	case "glu":
		return x.Glu(ax), nil
	}
	return nil, fmt.Errorf("unknown operation %q", s.Op)
}
