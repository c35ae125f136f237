package optim_test

import (
	"math"
	"testing"

	"github.com/shaderflow/shaderflow/nn/optim"
	"github.com/shaderflow/shaderflow/tensor"
	"github.com/stretchr/testify/require"
)

// gradsOf returns parameters of the given shapes whose gradients are vals.
func gradsOf(t *testing.T, dev *tensor.Device, vals [][]float32, shapes ...[]int) []*tensor.Tensor {
	var ps []*tensor.Tensor
	for i, s := range shapes {
		p := tensor.Zeros(dev, s...).SetRequiresGrad(true)
		require.NoError(t, p.Mul(tensor.FromFloat32s(dev, vals[i], s...)).Sum().Backward())
		ps = append(ps, p)
	}
	return ps
}

func TestClipGradNormMatchesTorch(t *testing.T) {
	dev := tensor.MustOpen("cpu")
	defer dev.Close()
	g0 := []float32{-1, -0.5, 0, 0.5, 1, 1.5}
	g1 := []float32{3, -2, 0.25, 1}
	ps := gradsOf(t, dev, [][]float32{g0, g1}, []int{2, 3}, []int{4})
	free := tensor.Zeros(dev, 3).SetRequiresGrad(true) // no gradient: skipped
	total, err := optim.ClipGradNorm(append(ps, free), 2)
	require.NoError(t, err)
	// torch 1.13: torch.nn.utils.clip_grad_norm_(ps, 2.0) on the same gradients.
	require.InDelta(t, 4.337337970733643, total, 1e-6)
	want := [][]float64{{-0.46111223101615906, -0.23055611550807953, 0.0, 0.23055611550807953, 0.46111223101615906, 0.6916683316230774},
		{1.3833366632461548, -0.9222244620323181, 0.11527805775403976, 0.46111223101615906}}
	for i, p := range ps {
		got, err := p.Grad().Float32s()
		require.NoError(t, err)
		for j := range got {
			require.InDelta(t, want[i][j], got[j], 1e-6)
		}
	}
	total, err = optim.ClipGradNorm(ps, 10) // below the bound: unchanged
	require.NoError(t, err)
	require.InDelta(t, 2, total, 1e-5)
	got, err := ps[1].Grad().Float32s()
	require.NoError(t, err)
	require.InDelta(t, 1.3833366632461548, got[0], 1e-6)
	bad := gradsOf(t, dev, [][]float32{{1, float32(math.Inf(1))}}, []int{2})
	_, err = optim.ClipGradNorm(bad, 1)
	require.ErrorContains(t, err, "not clipped")
	require.ErrorContains(t, tensor.Catch(func() { optim.ClipGradNorm(ps, 0) }), "optim.ClipGradNorm")
}

func TestWarmupCosineLRMatchesTorch(t *testing.T) {
	dev := tensor.MustOpen("cpu")
	defer dev.Close()
	opt := optim.NewSGD([]*tensor.Tensor{tensor.Zeros(dev, 1).SetRequiresGrad(true)}, optim.SGDConfig{LR: 0.1})
	s := optim.NewWarmupCosineLR(opt, 5, 20, 0.01)
	// torch 1.13: SequentialLR([LinearLR(start_factor=1/5, total_iters=4),
	// CosineAnnealingLR(T_max=15, eta_min=0.01)], milestones=[5]), lr 0.1.
	want := []float64{0.02, 0.04, 0.06, 0.08, 0.1, 0.1, 0.09901664203302127, 0.09610954559391705, 0.09140576474687265,
		0.08511087728614863, 0.07750000000000001, 0.06890576474687266, 0.059703780847044426, 0.05029621915295562,
		0.04109423525312738, 0.032500000000000015, 0.024889122713851394, 0.018594235253127367, 0.013890454406082955,
		0.010983357966978744, 0.01}
	for n, w := range want {
		require.InDelta(t, w, opt.LR(), 1e-12, "step %d", n)
		require.InDelta(t, w, s.LR(), 1e-12, "step %d", n)
		s.Step()
	}
	for range 10 {
		require.InDelta(t, 0.01, opt.LR(), 1e-12, "after total the rate stays at minLR")
		s.Step()
	}
	require.ErrorContains(t, tensor.Catch(func() { optim.NewWarmupCosineLR(opt, 5, 5, 0) }), "optim.WarmupCosineLR")
}

func TestSplitDecayAndGroup(t *testing.T) {
	dev := tensor.MustOpen("cpu")
	defer dev.Close()
	w := tensor.Ones(dev, 2, 2).SetRequiresGrad(true)
	b := tensor.Ones(dev, 2).SetRequiresGrad(true)
	decay, noDecay := optim.SplitDecay([]*tensor.Tensor{w, b})
	require.Equal(t, []*tensor.Tensor{w}, decay)
	require.Equal(t, []*tensor.Tensor{b}, noDecay)
	g := optim.NewGroup(optim.NewAdamW(decay, optim.AdamConfig{LR: 0.1, WeightDecay: 0.5}), optim.NewAdamW(noDecay, optim.AdamConfig{LR: 0.1}))
	g.SetLR(0.2)
	require.Equal(t, 0.2, g.LR())
	require.NoError(t, w.Sum().Add(b.Sum()).MulScalar(0).Backward()) // zero gradients: only decay moves
	require.NoError(t, g.Step())
	g.ZeroGrad()
	require.Nil(t, w.Grad())
	wv, err := w.Float32s()
	require.NoError(t, err)
	bv, err := b.Float32s()
	require.NoError(t, err)
	require.InDelta(t, 1-0.2*0.5, wv[0], 1e-6, "the 2-D weight decays")
	require.InDelta(t, 1, bv[0], 1e-6, "the bias does not")
}
