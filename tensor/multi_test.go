package tensor_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/shaderflow/shaderflow/tensor"
)

// TestRealizeManyFreesWhatItSplits realizes many same-shape results whose
// programs together exceed a kernel's buffers and instructions (an
// optimizer's update of many small parameters: the kernel is split, and
// building it computes some results on their own), assigned to persistent
// tensors step after step inside scopes: no block may outlive its step, and
// the values must be those of one result at a time.
func TestRealizeManyFreesWhatItSplits(t *testing.T) {
	dev := openCPU(t)
	const params = 24
	ps := make([]*tensor.Tensor, params)
	ms := make([]*tensor.Tensor, params)
	for i := range ps {
		ps[i] = tensor.Randn(dev, 16)
		ms[i] = tensor.Randn(dev, 16)
	}
	update := func(p, m *tensor.Tensor) (*tensor.Tensor, *tensor.Tensor) {
		nm := m.MulScalar(0.9).Add(p.MulScalar(0.1))
		return p.Sub(nm.Div(nm.Mul(nm).Sqrt().AddScalar(1e-3)).MulScalar(0.01)), nm
	}
	require.NoError(t, tensor.Realize(append(append([]*tensor.Tensor{}, ps...), ms...)...))
	var live []int
	for step := range 4 {
		want := make([][]float32, params)
		dev.Scope(func() {
			for i := range ps {
				np, _ := update(ps[i], ms[i])
				var err error
				want[i], err = np.Float32s()
				require.NoError(t, err)
			}
		})
		dev.Scope(func() {
			var out []*tensor.Tensor
			for i := range ps {
				np, nm := update(ps[i].Detach(), ms[i])
				ms[i].Assign(nm)
				ps[i].Assign(np)
				out = append(out, ps[i], ms[i])
			}
			require.NoError(t, tensor.Realize(out...))
		})
		for i := range ps {
			got, err := ps[i].Float32s()
			require.NoError(t, err)
			require.InDeltaSlice(t, want[i], got, 1e-6, "step %d parameter %d", step, i)
		}
		live = append(live, dev.PoolStats().LiveBlocks)
	}
	require.Equal(t, live[1], live[len(live)-1], "blocks in use after each step: %v", live)
}
