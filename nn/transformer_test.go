package nn_test

import (
	"math"
	"testing"

	"github.com/shaderflow/shaderflow/nn"
	"github.com/shaderflow/shaderflow/nn/internal/nntest"
	"github.com/shaderflow/shaderflow/nn/safetensors"
	"github.com/shaderflow/shaderflow/tensor"
	"github.com/stretchr/testify/require"
)

// The expected values come from torch 1.13 by testdata/transformer.py.
const transformerData = "testdata/transformer.safetensors"

// torchCase reads one case's tensors from transformer.safetensors.
type torchCase struct {
	t    *testing.T
	f    *safetensors.File
	dev  *tensor.Device
	name string
}

func openTorchCase(t *testing.T, dev *tensor.Device, name string) torchCase {
	f, err := safetensors.ReadFile(transformerData)
	require.NoError(t, err)
	return torchCase{t, f, dev, name}
}

// has reports whether the case stored what.
func (c torchCase) has(what string) bool {
	_, ok := c.f.Get(c.name + ":" + what)
	return ok
}

// get returns the case's tensor what (F32 or BOOL), or nil when absent.
func (c torchCase) get(what string) *tensor.Tensor {
	st, ok := c.f.Get(c.name + ":" + what)
	if !ok {
		return nil
	}
	if st.DType == safetensors.Bool {
		bs := make([]bool, len(st.Data))
		for i, b := range st.Data {
			bs[i] = b != 0
		}
		return tensor.FromBools(c.dev, bs, st.Shape...)
	}
	v, err := st.Float32()
	require.NoError(c.t, err)
	return tensor.FromFloat32s(c.dev, v, st.Shape...)
}

// load loads the case's weights into m under PyTorch's names.
func (c torchCase) load(m nn.Module) {
	require.NoError(c.t, nn.LoadTensors(transformerData, nn.Prefixed(c.name, nn.StateDict(m)), nn.AllowUnexpected()))
}

// requireMatches compares got with the case's tensor what.
func (c torchCase) requireMatches(what string, got *tensor.Tensor, tol float64) {
	c.t.Helper()
	want := c.get(what)
	require.Equal(c.t, want.Shape(), got.Shape(), what)
	w, g := nntest.Values(c.t, want), nntest.Values(c.t, got)
	for i := range w {
		require.InDelta(c.t, w[i], g[i], tol*(1+math.Abs(float64(w[i]))), "%s: %s[%d]", c.name, what, i)
	}
}

func TestMultiheadAttentionMatchesTorch(t *testing.T) {
	type tc struct {
		name         string
		embed, heads int
		batchFirst   bool
		perHead      bool
	}
	for _, k := range []tc{{"mha_cross", 8, 2, false, false}, {"mha_self_causal", 8, 4, true, true}, {"mha_unbatched", 6, 3, false, false}} {
		t.Run(k.name, func(t *testing.T) {
			dev := nntest.CPU(t)
			c := openTorchCase(t, dev, k.name)
			m := nn.NewMultiheadAttention(dev, k.embed, k.heads)
			m.BatchFirst, m.Dropout = k.batchFirst, 0.1
			c.load(m)
			nn.Eval(m)
			q := c.get("q")
			key, v := q, q
			if c.has("k") {
				key, v = c.get("k"), c.get("v")
			}
			out, w := m.Attend(q, key, v, nn.AttendOptions{KeyPaddingMask: c.get("kpm"), AttnMask: c.get("mask"), NeedWeights: true, PerHeadWeights: k.perHead})
			c.requireMatches("out", out, 1e-5)
			c.requireMatches("weights", w, 1e-5)
			require.NoError(t, out.Mul(c.get("w")).Sum().Backward())
			c.requireMatches("grad.in_proj_weight", m.InProjWeight.Grad(), 1e-4)
		})
	}
}

func TestMultiheadAttentionCausalEqualsMask(t *testing.T) {
	dev := nntest.CPU(t)
	m := nn.NewMultiheadAttention(dev, 8, 2, nn.WithGenerator(tensor.NewGenerator(3)))
	x := tensor.Randn(dev, 5, 2, 8)
	tri := make([]bool, 25)
	for i := range tri {
		tri[i] = i%5 > i/5 // true above the diagonal: may not attend
	}
	a, _ := m.Attend(x, x, x, nn.AttendOptions{Causal: true})
	b, _ := m.Attend(x, x, x, nn.AttendOptions{AttnMask: tensor.FromBools(dev, tri, 5, 5)})
	av, bv := nntest.Values(t, a), nntest.Values(t, b)
	require.InDeltaSlice(t, bv, av, 1e-6)
}

func TestMultiheadAttentionStateAndMisuse(t *testing.T) {
	dev := nntest.CPU(t)
	m := nn.NewMultiheadAttention(dev, 8, 2)
	var names []string
	for _, n := range nn.StateDict(m) {
		names = append(names, n.Name)
	}
	require.Equal(t, []string{"in_proj_weight", "in_proj_bias", "out_proj.weight", "out_proj.bias"}, names)
	require.Equal(t, []int{24, 8}, m.InProjWeight.Shape())
	bias := nntest.Values(t, m.OutProj.Bias)
	require.Equal(t, make([]float32, 8), bias, "out_proj.bias starts at zero as in PyTorch")
	require.Len(t, nn.StateDict(nn.NewMultiheadAttention(dev, 8, 2, nn.NoBias())), 2)
	x := tensor.Randn(dev, 5, 2, 8)
	for name, fn := range map[string]func(){
		"heads":   func() { nn.NewMultiheadAttention(dev, 8, 3) },
		"embed":   func() { m.Forward(tensor.Randn(dev, 5, 2, 7)) },
		"batch":   func() { m.Attend(x, tensor.Randn(dev, 4, 3, 8), tensor.Randn(dev, 4, 3, 8), nn.AttendOptions{}) },
		"kpm":     func() { m.Attend(x, x, x, nn.AttendOptions{KeyPaddingMask: tensor.Zeros(dev, 5, 2)}) },
		"mask":    func() { m.Attend(x, x, x, nn.AttendOptions{AttnMask: tensor.Zeros(dev, 5, 4)}) },
		"maskint": func() { m.Attend(x, x, x, nn.AttendOptions{AttnMask: tensor.Zeros(dev, 5, 5).Cast(tensor.Int32)}) },
		"dropout": func() { m.Dropout = 2; defer func() { m.Dropout = 0 }(); m.Forward(x) },
	} {
		err := tensor.Catch(fn)
		require.ErrorContains(t, err, "nn.MultiheadAttention: ", name)
	}
}

func TestTransformerEncoderLayerMatchesTorch(t *testing.T) {
	type tc struct {
		name                  string
		batchFirst, normFirst bool
		gelu                  bool
	}
	for _, k := range []tc{{"enc_post_relu", true, false, false}, {"enc_pre_gelu", false, true, true}} {
		t.Run(k.name, func(t *testing.T) {
			dev := nntest.CPU(t)
			c := openTorchCase(t, dev, k.name)
			l := nn.NewTransformerEncoderLayer(dev, nn.TransformerEncoderConfig{Model: 8, Heads: 2, FeedForward: 16, Dropout: 0.1,
				GELU: k.gelu, BatchFirst: k.batchFirst, NormFirst: k.normFirst})
			c.load(l)
			nn.Eval(l)
			x := c.get("x").SetRequiresGrad(true)
			out := l.Encode(x, nn.AttendOptions{KeyPaddingMask: c.get("kpm"), AttnMask: c.get("mask")})
			c.requireMatches("out", out, 1e-5)
			require.NoError(t, out.Mul(c.get("w")).Sum().Backward())
			c.requireMatches("grad.x", x.Grad(), 1e-4)
			c.requireMatches("grad.linear1.weight", l.Linear1.Weight.Grad(), 1e-4)
			c.requireMatches("grad.self_attn.in_proj_weight", l.SelfAttn.InProjWeight.Grad(), 1e-4)
		})
	}
}

func TestTransformerEncoderLayerDropoutAndNames(t *testing.T) {
	dev := nntest.CPU(t)
	l := nn.NewTransformerEncoderLayer(dev, nn.TransformerEncoderConfig{Model: 8, Heads: 2, FeedForward: 16, Dropout: 0.5, BatchFirst: true})
	var names []string
	for _, n := range nn.StateDict(l) {
		names = append(names, n.Name)
	}
	require.Equal(t, []string{"self_attn.in_proj_weight", "self_attn.in_proj_bias", "self_attn.out_proj.weight", "self_attn.out_proj.bias",
		"linear1.weight", "linear1.bias", "linear2.weight", "linear2.bias", "norm1.weight", "norm1.bias", "norm2.weight", "norm2.bias"}, names)
	x := tensor.Randn(dev, 2, 5, 8)
	a, b := nntest.Values(t, l.Forward(x)), nntest.Values(t, l.Forward(x))
	require.NotEqual(t, a, b, "training mode drops out")
	nn.Eval(l)
	a, b = nntest.Values(t, l.Forward(x)), nntest.Values(t, l.Forward(x))
	require.Equal(t, a, b, "evaluation mode is deterministic")
}

func TestPositionalEmbedding(t *testing.T) {
	dev := nntest.CPU(t)
	p := nn.NewPositionalEmbedding(dev, 6, 3)
	require.Equal(t, "weight", p.NamedParameters()[0].Name)
	x := tensor.Zeros(dev, 2, 4, 3)
	y := p.Forward(x)
	w := nntest.Values(t, p.Weight)
	got := nntest.Values(t, y)
	for i := range got {
		require.Equal(t, w[i%12], got[i], "element %d: position %d", i, i%12/3)
	}
	require.NoError(t, y.Sum().Backward())
	g := nntest.Values(t, p.Weight.Grad())
	for i, v := range g {
		want := float32(0)
		if i < 12 {
			want = 2 // two batch elements per used position
		}
		require.Equal(t, want, v, "grad[%d]", i)
	}
	require.Equal(t, w[6:9], nntest.Values(t, p.Positions(2, 1).Reshape(-1)))
	require.ErrorContains(t, tensor.Catch(func() { p.Positions(4, 3) }), "nn.PositionalEmbedding")
	require.ErrorContains(t, tensor.Catch(func() { p.Forward(tensor.Zeros(dev, 7, 3)) }), "nn.PositionalEmbedding")
}
