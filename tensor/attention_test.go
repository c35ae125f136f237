package tensor_test

import (
	"encoding/json"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"slices"
	"testing"

	"github.com/shaderflow/shaderflow/tensor"
	"github.com/stretchr/testify/require"
)

// attentionTorch computes, in torch 1.13 by hand (it has no
// F.scaled_dot_product_attention), PyTorch 2's math-path attention and the
// gradients of sum(out * w) with respect to q, k, v and a float mask.
const attentionTorch = `
import json, sys, math, torch
def case(c):
  def t(name):
      v = c.get(name)
      return None if v is None else torch.tensor(v['data'], dtype=torch.float32).reshape(v['shape'])
  q, k, v, w = t('q'), t('k'), t('v'), t('w')
  for x in (q, k, v):
      x.requires_grad_(True)
  fmask = t('fmask')
  if fmask is not None:
      fmask.requires_grad_(True)
  scale = c['scale'] or 1 / math.sqrt(q.shape[-1])
  s = q @ k.transpose(-2, -1) * scale
  L, S = s.shape[-2], s.shape[-1]
  keep = None
  if c.get('bmask') is not None:
      keep = t('bmask') != 0
  if c['causal']:
      tri = torch.ones(L, S, dtype=torch.bool).tril()
      keep = tri if keep is None else keep & tri
  if fmask is not None:
      s = s + fmask
  if keep is not None:
      s = s.masked_fill(~keep, float('-inf'))
  out = torch.softmax(s, -1) @ v
  (out * w).sum().backward()
  r = {'out': out.detach().flatten().tolist()}
  for n, x in (('q', q), ('k', k), ('v', v), ('fmask', fmask)):
      if x is not None:
          r['d' + n] = x.grad.flatten().tolist()
  return r
print(json.dumps([case(c) for c in json.load(sys.stdin)]))
`

// runTorchJSON runs script under /usr/bin/python3 with in as JSON on stdin
// and decodes its JSON output, skipping the test when torch is missing
// (unless SHADERFLOW_REQUIRE_TORCH=1).
func runTorchJSON(t *testing.T, script string, in, out any) {
	t.Helper()
	if _, err := os.Stat("/usr/bin/python3"); err != nil || exec.Command("/usr/bin/python3", "-c", "import torch").Run() != nil {
		if os.Getenv("SHADERFLOW_REQUIRE_TORCH") == "1" {
			t.Fatal("SHADERFLOW_REQUIRE_TORCH=1 but /usr/bin/python3 cannot import torch")
		}
		t.Skip("/usr/bin/python3 with torch not installed")
	}
	b, err := json.Marshal(in)
	require.NoError(t, err)
	cmd := exec.Command("/usr/bin/python3", "-c", script)
	stdin, err := cmd.StdinPipe()
	require.NoError(t, err)
	go func() { _, _ = stdin.Write(b); _ = stdin.Close() }()
	text, err := cmd.Output()
	require.NoError(t, err, "torch: %s", text)
	require.NoError(t, json.Unmarshal(text, out))
}

// jsonTensor is a tensor's values and shape as the torch scripts read them.
type jsonTensor struct {
	Data  []float32 `json:"data"`
	Shape []int     `json:"shape"`
}

// randomValues returns standard normal values of the given shape.
func randomValues(r *rand.Rand, shape ...int) jsonTensor {
	n := 1
	for _, s := range shape {
		n *= s
	}
	d := make([]float32, n)
	for i := range d {
		d[i] = float32(r.NormFloat64())
	}
	return jsonTensor{d, shape}
}

func requireAllClose(t *testing.T, what string, want []float64, got []float32, tol float64) {
	t.Helper()
	require.Len(t, got, len(want), what)
	for i := range want {
		require.InDelta(t, want[i], got[i], tol*(1+math.Abs(want[i])), "%s[%d]", what, i)
	}
}

func TestScaledDotProductAttentionMatchesTorch(t *testing.T) {
	type tc struct {
		name          string
		q, k, v       []int
		mask          []int
		boolMask      bool
		causal        bool
		scale         float64
		broadcastKeys bool
	}
	cases := []tc{
		{name: "plain", q: []int{2, 3, 4, 5}, k: []int{2, 3, 6, 5}, v: []int{2, 3, 6, 7}},
		{name: "causal", q: []int{2, 5, 4}, k: []int{2, 5, 4}, v: []int{2, 5, 3}, causal: true},
		{name: "causal_rectangular_bool_mask", q: []int{2, 4, 5}, k: []int{2, 6, 5}, v: []int{2, 6, 3}, mask: []int{4, 6}, boolMask: true, causal: true},
		{name: "float_mask_scale", q: []int{3, 2, 4, 5}, k: []int{3, 2, 6, 5}, v: []int{3, 2, 6, 2}, mask: []int{3, 1, 4, 6}, scale: 0.3},
		{name: "broadcast_batch", q: []int{2, 3, 4, 5}, k: []int{1, 3, 6, 5}, v: []int{3, 6, 2}, mask: []int{2, 1, 1, 6}, boolMask: true},
	}
	dev := openCPU(t)
	type run struct {
		out   *tensor.Tensor
		w     jsonTensor
		grads map[string]*tensor.Tensor
	}
	var ins []map[string]any
	var runs []run
	for i, c := range cases {
		r := rand.New(rand.NewPCG(uint64(i), 17))
		in := map[string]any{"causal": c.causal, "scale": c.scale}
		qv, kv, vv := randomValues(r, c.q...), randomValues(r, c.k...), randomValues(r, c.v...)
		in["q"], in["k"], in["v"] = qv, kv, vv
		q := tensor.FromFloat32s(dev, qv.Data, c.q...).SetRequiresGrad(true)
		k := tensor.FromFloat32s(dev, kv.Data, c.k...).SetRequiresGrad(true)
		v := tensor.FromFloat32s(dev, vv.Data, c.v...).SetRequiresGrad(true)
		opts := tensor.AttentionOptions{Causal: c.causal, Scale: c.scale}
		grads := map[string]*tensor.Tensor{"dq": q, "dk": k, "dv": v}
		if c.mask != nil {
			mv := randomValues(r, c.mask...)
			if c.boolMask {
				bs := make([]bool, len(mv.Data))
				for j, x := range mv.Data {
					bs[j] = x > -0.5 || j%5 == 0 // mostly attend; no row fully masked
					mv.Data[j] = 0
					if bs[j] {
						mv.Data[j] = 1
					}
				}
				in["bmask"] = mv
				opts.Mask = tensor.FromBools(dev, bs, c.mask...)
			} else {
				in["fmask"] = mv
				opts.Mask = tensor.FromFloat32s(dev, mv.Data, c.mask...).SetRequiresGrad(true)
				grads["dfmask"] = opts.Mask
			}
		}
		out := tensor.ScaledDotProductAttention(q, k, v, opts)
		wv := randomValues(r, out.Shape()...)
		in["w"] = wv
		ins = append(ins, in)
		runs = append(runs, run{out, wv, grads})
	}
	var want []map[string][]float64
	runTorchJSON(t, attentionTorch, ins, &want)
	require.Len(t, want, len(cases))
	for i, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ru := runs[i]
			got, err := ru.out.Float32s()
			require.NoError(t, err)
			requireAllClose(t, "out", want[i]["out"], got, 1e-5)
			require.NoError(t, ru.out.Mul(tensor.FromFloat32s(dev, ru.w.Data, ru.w.Shape...)).Sum().Backward())
			for name, x := range ru.grads {
				g, err := x.Grad().Float32s()
				require.NoError(t, err, name)
				requireAllClose(t, name, want[i][name], g, 1e-4)
			}
		})
	}
}

func TestScaledDotProductAttentionFullyMaskedRowIsNaN(t *testing.T) {
	dev := openCPU(t)
	q := tensor.Randn(dev, 1, 3, 4)
	k := tensor.Randn(dev, 1, 5, 4)
	v := tensor.Randn(dev, 1, 5, 2)
	keep := make([]bool, 15)
	for j := range keep {
		keep[j] = j/5 != 1 // row 1 attends nothing
	}
	out, err := tensor.ScaledDotProductAttention(q, k, v, tensor.AttentionOptions{Mask: tensor.FromBools(dev, keep, 3, 5)}).Float32s()
	require.NoError(t, err)
	for j, x := range out {
		require.Equal(t, j/2 == 1, math.IsNaN(float64(x)), "out[%d] = %g", j, x)
	}
}

func TestScaledDotProductAttentionStoresNoInfMask(t *testing.T) {
	dev := openCPU(t)
	q := tensor.Randn(dev, 2, 64, 8)
	k := tensor.Randn(dev, 2, 64, 8)
	v := tensor.Randn(dev, 2, 64, 8)
	require.NoError(t, tensor.Realize(q, k, v))
	dev.SetFusionReport(true)
	defer dev.SetFusionReport(false)
	// The composed path (the CPU's fused kernel would take
	// ScaledDotProductAttention itself: TestFusedAttentionIsOneKernel).
	out := tensor.AttentionWeights(q, k, tensor.AttentionOptions{Causal: true}).MatMul(v)
	require.NoError(t, out.Realize())
	// Two index vectors, the [L, S] Bool triangle they compare to, q@kᵀ
	// masked in its epilogue, the row maximum, the row sum, the normalized
	// weights and the product with v: the triangle is stored as Bool (no
	// -Inf mask, nothing per batch or head) and applied where the scores
	// are computed.
	report := dev.FusionReport()
	require.LessOrEqual(t, len(report), 8)
	triangles := 0
	for _, kr := range report {
		if slices.Contains(kr.Ops, "ge") {
			triangles++
			require.Equal(t, "elementwise", kr.Kind, "the triangle alone: %v", kr)
			require.NotContains(t, kr.Ops, "where", "the triangle alone: %v", kr)
			require.NotContains(t, kr.Ops, "matmul", "the triangle alone: %v", kr)
		}
		if slices.Contains(kr.Ops, "where") {
			require.Equal(t, "matmul", kr.Kind, "masked in the product's epilogue: %v", kr)
		}
	}
	require.Equal(t, 1, triangles)
}

// TestLongCausalTriangleIsNotStored checks that a triangle of more than
// 2^22 elements is computed inside the kernel that applies it, so memory
// stays bounded for long sequences.
func TestLongCausalTriangleIsNotStored(t *testing.T) {
	dev := openCPU(t)
	const n = 2049 // 2049² > 2^22
	q := tensor.Randn(dev, 1, n, 2)
	k := tensor.Randn(dev, 1, n, 2)
	require.NoError(t, tensor.Realize(q, k))
	dev.SetFusionReport(true)
	defer dev.SetFusionReport(false)
	w := tensor.AttentionWeights(q, k, tensor.AttentionOptions{Causal: true})
	require.NoError(t, w.Realize())
	for _, kr := range dev.FusionReport() {
		if slices.Contains(kr.Ops, "ge") {
			require.Contains(t, kr.Ops, "where", "%v", kr)
		}
	}
	row, err := w.Select(1, 1).Float32s()
	require.NoError(t, err)
	require.Zero(t, row[2], "query 1 does not attend key 2")
	require.Positive(t, row[1])
}

func TestScaledDotProductAttentionMisuse(t *testing.T) {
	dev := openCPU(t)
	q := tensor.Randn(dev, 2, 4, 5)
	k := tensor.Randn(dev, 2, 6, 5)
	v := tensor.Randn(dev, 2, 6, 3)
	for name, fn := range map[string]func(){
		"inner": func() { tensor.ScaledDotProductAttention(q, tensor.Randn(dev, 2, 6, 4), v, tensor.AttentionOptions{}) },
		"keys":  func() { tensor.ScaledDotProductAttention(q, k, tensor.Randn(dev, 2, 5, 3), tensor.AttentionOptions{}) },
		"rank":  func() { tensor.ScaledDotProductAttention(tensor.Randn(dev, 5), k, v, tensor.AttentionOptions{}) },
		"int":   func() { tensor.ScaledDotProductAttention(q.Cast(tensor.Int32), k, v, tensor.AttentionOptions{}) },
		"mask": func() {
			tensor.ScaledDotProductAttention(q, k, v, tensor.AttentionOptions{Mask: tensor.Randn(dev, 4, 5)})
		},
		"maskbatch": func() {
			tensor.ScaledDotProductAttention(q, k, v, tensor.AttentionOptions{Mask: tensor.Randn(dev, 3, 4, 6)})
		},
		"maskint": func() {
			tensor.ScaledDotProductAttention(q, k, v, tensor.AttentionOptions{Mask: tensor.Zeros(dev, 4, 6).Cast(tensor.Int32)})
		},
		"scale": func() { tensor.ScaledDotProductAttention(q, k, v, tensor.AttentionOptions{Scale: math.NaN()}) },
		"batch": func() { tensor.ScaledDotProductAttention(q, tensor.Randn(dev, 3, 6, 5), v, tensor.AttentionOptions{}) },
	} {
		err := tensor.Catch(fn)
		require.Error(t, err, name)
		var ue *tensor.UsageError
		require.ErrorAs(t, err, &ue, name)
		require.Equal(t, "ScaledDotProductAttention", ue.Op, name)
	}
	err := tensor.Catch(func() { tensor.AttentionWeights(q, tensor.Randn(dev, 2, 6, 4), tensor.AttentionOptions{}) })
	require.ErrorContains(t, err, "tensor.AttentionWeights: ")
}
