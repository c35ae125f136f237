package tensor_test

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/shaderflow/shaderflow/tensor"
	"github.com/shaderflow/shaderflow/tensor/conformance/ref"
)

// TestPadMatchesReferenceOnRandomShapes pads random tensors of rank 1 to 5
// (empty dimensions included) in every mode, with crops, pads at the
// reflect limit and more padded dimensions than one assembly takes, and
// compares them with the reference's Pad.
func TestPadMatchesReferenceOnRandomShapes(t *testing.T) {
	d := openCPU(t)
	r := rand.New(rand.NewPCG(1, 2))
	for it := range 3000 {
		shape := make([]int, 1+r.IntN(5))
		for i := range shape {
			shape[i] = r.IntN(5)
		}
		mode := tensor.PadMode(r.IntN(3))
		pads, ok := randomPads(r, shape, mode)
		if !ok {
			continue
		}
		n := 1
		for _, s := range shape {
			n *= s
		}
		vals := make([]float64, n)
		for i := range vals {
			vals[i] = float64(r.IntN(100))
		}
		y := tensor.FromFloat64s(d, vals, shape...).Pad(pads, mode, 7)
		got, err := y.Float64s()
		require.NoError(t, err)
		want := ref.Pad(ref.New(vals, shape...), pads, ref.PadMode(mode.String()), 7)
		require.Equal(t, want.Shape(), y.Shape(), "case %d: %v padded by %v (%v)", it, shape, pads, mode)
		require.Equal(t, want.Values(), got, "case %d: %v padded by %v (%v)", it, shape, pads, mode)
	}
}

// randomPads draws pads for some trailing dimensions of shape that mode
// accepts, or reports false when a drawn dimension cannot be padded so.
func randomPads(r *rand.Rand, shape []int, mode tensor.PadMode) ([]int, bool) {
	rank := len(shape)
	pads := make([]int, 2*(1+r.IntN(rank)))
	for i := 0; i < len(pads); i += 2 {
		n := shape[rank-1-i/2]
		for j := i; j < i+2; j++ {
			switch {
			case mode == tensor.PadConstant:
				pads[j] = r.IntN(4) - 1 // -1 crops
			case mode == tensor.PadReflect && n > 1:
				pads[j] = r.IntN(n)
			case mode == tensor.PadReplicate && n > 0:
				pads[j] = r.IntN(4)
			default:
				return nil, false
			}
		}
		if max(-pads[i], 0)+max(-pads[i+1], 0) > n {
			return nil, false
		}
	}
	return pads, true
}
