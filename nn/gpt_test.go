package nn_test

import (
	"math"
	"testing"

	"github.com/shaderflow/shaderflow/nn"
	"github.com/shaderflow/shaderflow/nn/internal/nntest"
	"github.com/shaderflow/shaderflow/nn/optim"
	"github.com/shaderflow/shaderflow/tensor"
	"github.com/stretchr/testify/require"
)

// tinyGPT is the smallest GPT with every part: two blocks of two heads.
var tinyGPT = nn.GPTConfig{Vocab: 7, Context: 6, Layers: 2, Heads: 2, Model: 8}

func TestGPTShapesAndState(t *testing.T) {
	dev := nntest.CPU(t)
	m := nn.NewGPT(dev, tinyGPT, nn.WithGenerator(tensor.NewGenerator(1)))
	ids := tensor.FromInt32s(dev, []int32{0, 1, 2, 3, 4, 5, 6, 0, 1, 2}, 2, 5)
	require.Equal(t, []int{2, 5, 7}, m.Forward(ids).Shape())
	loss, err := m.Loss(ids, ids).Item()
	require.NoError(t, err)
	require.InDelta(t, math.Log(7), loss, 0.1, "small initial weights give nearly uniform predictions")

	names := []string{}
	for _, p := range m.NamedParameters() {
		names = append(names, p.Name)
	}
	require.Equal(t, []string{"wte.weight", "wpe.weight"}, names[:2])
	require.Contains(t, names, "h.1.self_attn.in_proj_weight")
	require.Contains(t, names, "h.0.linear2.bias")
	require.Equal(t, []string{"ln_f.weight", "ln_f.bias", "lm_head.weight"}, names[len(names)-3:])
	d, v, c := 8, 7, 6
	perBlock := 3*d*d + 3*d + d*d + d + 4*d*d + 4*d + 4*d*d + d + 4*d
	require.Equal(t, v*d+c*d+2*perBlock+2*d+v*d, nn.NumParameters(m))

	// GPT-2's initialization: N(0, 0.02) weights, a smaller one for the
	// projections that end a residual branch, zero biases.
	std := func(x *tensor.Tensor) float64 {
		s, err := x.Std(1).Item()
		require.NoError(t, err)
		return s
	}
	big := nn.NewGPT(dev, nn.GPTConfig{Vocab: 50, Context: 64, Layers: 2, Heads: 4, Model: 64})
	require.InDelta(t, 0.02, std(big.Tok.Weight), 0.002)
	require.InDelta(t, 0.02, std(big.Blocks[0].Linear1.Weight), 0.002)
	require.InDelta(t, 0.01, std(big.Blocks[1].Linear2.Weight), 0.001)
	require.InDelta(t, 0.01, std(big.Blocks[1].SelfAttn.OutProj.Weight), 0.001)
	b, err := big.Blocks[0].Linear1.Bias.Abs().Sum().Item()
	require.NoError(t, err)
	require.Zero(t, b)

	require.Panics(t, func() { m.Forward(tensor.FromInt32s(dev, make([]int32, 7), 1, 7)) }, "longer than the context")
	require.Panics(t, func() { m.Forward(tensor.Zeros(dev, 1, 3)) }, "float ids")
	require.Panics(t, func() { m.Loss(ids, ids.Narrow(1, 0, 4)) }, "targets of another shape")
	require.Panics(t, func() { nn.NewGPT(dev, nn.GPTConfig{Vocab: 7, Context: 6, Layers: 1, Heads: 3, Model: 8}) })
}

// TestGPTCausal changes the tokens after position k and checks that the
// logits up to k do not move while those after do. (The causal attention
// underneath is checked on every backend by the conformance suite.)
func TestGPTCausal(t *testing.T) {
	func(t *testing.T, dev *tensor.Device) {
		m := nn.NewGPT(dev, tinyGPT, nn.WithGenerator(tensor.NewGenerator(2)))
		a := []int32{1, 2, 3, 4, 5, 6}
		for k := range 5 {
			b := append([]int32{}, a...)
			for j := k + 1; j < len(b); j++ {
				b[j] = (b[j] + 3) % 7
			}
			la := nntest.Values(t, m.Forward(tensor.FromInt32s(dev, a, 1, 6)))
			lb := nntest.Values(t, m.Forward(tensor.FromInt32s(dev, b, 1, 6)))
			v := tinyGPT.Vocab
			for i := 0; i < (k+1)*v; i++ {
				require.InDelta(t, la[i], lb[i], 1e-5, "k %d: logit %d of position %d moved", k, i%v, i/v)
			}
			moved := 0.0
			for i := (k + 1) * v; i < len(la); i++ {
				moved = max(moved, math.Abs(float64(la[i]-lb[i])))
			}
			require.Greater(t, moved, 1e-4, "k %d: later positions must see the changed tokens", k)
		}
	}(t, nntest.CPU(t))
}

func TestGPTGradients(t *testing.T) {
	dev := nntest.CPU(t)
	r := nntest.Rand(t)
	cfg := nn.GPTConfig{Vocab: 5, Context: 4, Layers: 1, Heads: 2, Model: 4}
	m := nn.NewGPT(dev, cfg, nn.WithGenerator(tensor.NewGenerator(3)))
	// Weights of N(0, 0.02) give gradients too small for float32 central
	// differences, and embeddings that small make LayerNorm's input so
	// narrow that a step of h is not small: embeddings get N(0, 1), the
	// other parameters 5 times their value plus N(0, 0.1²) noise (so biases
	// and LayerNorm shifts are not zero).
	for _, p := range m.NamedParameters() {
		noise := tensor.FromFloat32s(dev, nntest.Normal(r, p.Tensor.NumElements()), p.Tensor.Shape()...)
		if p.Name == "wte.weight" || p.Name == "wpe.weight" {
			p.Tensor.Assign(noise)
		} else {
			p.Tensor.Assign(p.Tensor.Detach().MulScalar(5).Add(noise.MulScalar(0.1)))
		}
	}
	ids := tensor.FromInt32s(dev, []int32{0, 3, 1, 4, 2, 2, 0, 1}, 2, 4)
	gradCheck(t, r, "GPT", nn.Parameters(m), func() *tensor.Tensor { return m.Forward(ids) })
}

// TestGPTTrains is the GPT's training smoke test on every backend (the CPU,
// Vulkan and WebGPU on lavapipe in CI): a tiny model learns a periodic
// text with the demo's pieces (AdamW parameter groups with decay on the
// 2-D weights only, global-norm clipping, warm-up and cosine), and its loss
// must fall well below the uniform guess.
func TestGPTTrains(t *testing.T) {
	nntest.ForEachBackend(t, func(t *testing.T, dev *tensor.Device) {
		cfg := nn.GPTConfig{Vocab: 5, Context: 8, Layers: 1, Heads: 2, Model: 16}
		m := nn.NewGPT(dev, cfg, nn.WithGenerator(tensor.NewGenerator(4)))
		decay, plain := optim.SplitDecay(nn.Parameters(m))
		acfg := optim.AdamConfig{LR: 3e-2}
		noDecay := optim.NewAdamW(plain, acfg)
		acfg.WeightDecay = 0.1
		opt := optim.NewGroup(optim.NewAdamW(decay, acfg), noDecay)
		const steps = 20
		sched := optim.NewWarmupCosineLR(opt, 2, steps, 1e-3)
		text := []int32{0, 1, 2, 3, 4, 3, 2, 1} // period 8: each next token follows from the last two
		var xs, ys []int32
		for i := range 4 {
			for j := range 8 {
				xs = append(xs, text[(i+j)%8])
				ys = append(ys, text[(i+j+1)%8])
			}
		}
		x, y := tensor.FromInt32s(dev, xs, 4, 8), tensor.FromInt32s(dev, ys, 4, 8)
		var first, last float64
		for step := range steps {
			require.NoError(t, dev.ScopeErr(func() error {
				loss := m.Loss(x, y)
				require.NoError(t, loss.Backward())
				_, err := optim.ClipGradNorm(nn.Parameters(m), 1)
				require.NoError(t, err)
				require.NoError(t, opt.Step())
				opt.ZeroGrad()
				sched.Step()
				l, err := loss.Item()
				if step == 0 {
					first = l
				}
				last = l
				return err
			}))
		}
		t.Logf("loss %.3f -> %.3f", first, last)
		require.InDelta(t, math.Log(5), first, 0.1)
		require.Less(t, last, 0.5*first)
	})
}

// TestNewGPTHoldsOnlyItsParameters checks that the weights NewGPT replaces
// with GPT-2's initialization are released at once, not left to the
// garbage collector: releasing the parameters returns every byte.
func TestNewGPTHoldsOnlyItsParameters(t *testing.T) {
	dev := nntest.CPU(t)
	before := dev.PoolStats().BytesInUse
	m := nn.NewGPT(dev, tinyGPT, nn.WithGenerator(tensor.NewGenerator(1)))
	for _, p := range nn.Parameters(m) {
		p.Release()
	}
	require.Equal(t, before, dev.PoolStats().BytesInUse)
}
