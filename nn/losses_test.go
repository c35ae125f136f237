package nn_test

import (
	"math"
	"testing"

	"github.com/shaderflow/shaderflow/nn"
	"github.com/shaderflow/shaderflow/nn/internal/nntest"
	"github.com/shaderflow/shaderflow/tensor"
	"github.com/shaderflow/shaderflow/tensor/conformance/ref"
	"github.com/stretchr/testify/require"
)

// lossFn is a loss with a reduction, as its struct's Loss method.
type lossFn func(r nn.Reduction) func(x, y *tensor.Tensor) *tensor.Tensor

// checkReductions compares a loss's None, Sum and Mean reductions with the
// float64 per-element losses per.
func checkReductions(t *testing.T, name string, f lossFn, x, y *tensor.Tensor, per *ref.Array) {
	t.Helper()
	requireClose(t, name+" none", f(nn.None)(x, y), per, 1e-5, 1e-6)
	requireClose(t, name+" sum", f(nn.Sum)(x, y), ref.Sum(per, false), 1e-5, 1e-5)
	requireClose(t, name+" mean", f(nn.Mean)(x, y), ref.Mean(per, false), 1e-5, 1e-6)
}

func TestElementwiseLosses(t *testing.T) {
	nntest.ForEachBackend(t, func(t *testing.T, dev *tensor.Device) {
		r := nntest.Rand(t)
		x, y := randn(dev, r, 4, 5), randn(dev, r, 4, 5)
		x2 := pair{x.T.MulScalar(2), ref.Map(x.R, func(v float64) float64 { return 2 * v })}
		abs := ref.Map2("L1", x2.R, y.R, func(a, b float64) float64 { return math.Abs(a - b) })
		checkReductions(t, "L1", func(r nn.Reduction) func(x, y *tensor.Tensor) *tensor.Tensor { return nn.L1Loss{Reduction: r}.Loss }, x2.T, y.T, abs)
		for _, beta := range []float64{0, 0.5, 1, 2} {
			per := ref.Map(abs, func(d float64) float64 {
				if d < beta {
					return 0.5 * d * d / beta
				}
				return d - 0.5*beta
			})
			checkReductions(t, "SmoothL1", func(r nn.Reduction) func(x, y *tensor.Tensor) *tensor.Tensor {
				return nn.SmoothL1Loss{Beta: beta, Reduction: r}.Loss
			}, x2.T, y.T, per)
		}
		for _, delta := range []float64{0.3, 1, 2} {
			per := ref.Map(abs, func(d float64) float64 {
				if d < delta {
					return 0.5 * d * d
				}
				return delta * (d - 0.5*delta)
			})
			checkReductions(t, "Huber", func(r nn.Reduction) func(x, y *tensor.Tensor) *tensor.Tensor {
				return nn.HuberLoss{Delta: delta, Reduction: r}.Loss
			}, x2.T, y.T, per)
		}
		requireClose(t, "SmoothL1 default beta 1", nn.SmoothL1(x2.T, y.T),
			ref.Mean(ref.Map(abs, func(d float64) float64 {
				if d < 1 {
					return 0.5 * d * d
				}
				return d - 0.5
			}), false), 1e-5, 1e-6)
	})
}

func TestBCELoss(t *testing.T) {
	nntest.ForEachBackend(t, func(t *testing.T, dev *tensor.Device) {
		// Probabilities at 0 and 1 hit the -100 clamp, as in PyTorch.
		p := fromValues(dev, []float32{0, 1, 0.5, 0.01, 0.99, 0.3, 1, 0}, 2, 4)
		y := fromValues(dev, []float32{1, 0, 0.5, 0, 1, 0.7, 1, 0}, 2, 4)
		w := fromValues(dev, []float32{0.5, 1, 2, 3}, 4)
		clog := func(v float64) float64 { return math.Max(math.Log(v), -100) }
		per := ref.Map2("BCE", p.R, y.R, func(x, y float64) float64 { return -(y*clog(x) + (1-y)*clog(1-x)) })
		checkReductions(t, "BCE", func(r nn.Reduction) func(x, y *tensor.Tensor) *tensor.Tensor { return nn.BCELoss{Reduction: r}.Loss }, p.T, y.T, per)
		requireClose(t, "BCE of 0 against 1 is 100", nn.BCELoss{Reduction: nn.None}.Loss(p.T, y.T).Narrow(1, 0, 1),
			ref.New([]float64{100, 0.01005033585350145}, 2, 1), 1e-5, 1e-6)
		requireClose(t, "BCE weighted", nn.BCELoss{Weight: w.T, Reduction: nn.None}.Loss(p.T, y.T),
			ref.Map2("w", per, w.R, func(a, b float64) float64 { return a * b }), 1e-5, 1e-6)
	})
}

func TestBCEWithLogitsWeights(t *testing.T) {
	nntest.ForEachBackend(t, func(t *testing.T, dev *tensor.Device) {
		x := fromValues(dev, []float32{-200, -3, -0.5, 0, 0.5, 3, 200, 40}, 2, 4)
		y := fromValues(dev, []float32{0, 1, 0.5, 1, 0, 0.2, 1, 0}, 2, 4)
		pw := fromValues(dev, []float32{3, 0.5, 1, 2}, 4)
		w := fromValues(dev, []float32{2, 0.25}, 2, 1)
		// torch: (1-y)·x + (1 + (pw-1)·y)·softplus(-x).
		per := ref.MapN("BCEWithLogits", func(v []float64) float64 {
			x, y, pw, w := v[0], v[1], v[2], v[3]
			sp := math.Max(-x, 0) + math.Log1p(math.Exp(-math.Abs(x)))
			return w * ((1-y)*x + (1+(pw-1)*y)*sp)
		}, x.R, y.R, pw.R, w.R)
		checkReductions(t, "BCEWithLogits pos_weight", func(r nn.Reduction) func(x, y *tensor.Tensor) *tensor.Tensor {
			return nn.BCEWithLogitsLoss{PosWeight: pw.T, Weight: w.T, Reduction: r}.Loss
		}, x.T, y.T, per)
	})
}

func TestKLDivLoss(t *testing.T) {
	nntest.ForEachBackend(t, func(t *testing.T, dev *tensor.Device) {
		r := nntest.Rand(t)
		logits := randn(dev, r, 3, 5)
		in := pair{logits.T.LogSoftmax(1), ref.LogSoftmax(logits.R, 1)}
		tgt := fromValues(dev, []float32{0, 0.2, 0.3, 0.5, 0, 0.1, 0.1, 0.1, 0.1, 0.6, 1, 0, 0, 0, 0}, 3, 5)
		per := ref.Map2("KLDiv", in.R, tgt.R, func(x, t float64) float64 {
			if t == 0 {
				return 0
			}
			return t * (math.Log(t) - x)
		})
		checkReductions(t, "KLDiv", func(r nn.Reduction) func(x, y *tensor.Tensor) *tensor.Tensor {
			return nn.KLDivLoss{Reduction: r}.Loss
		}, in.T, tgt.T, per)
		requireClose(t, "KLDiv batchmean", nn.KLDivLoss{BatchMean: true}.Loss(in.T, tgt.T),
			ref.Scalar(ref.Sum(per, false).Item()/3), 1e-5, 1e-6)
		lt := randn(dev, r, 3, 5)
		perLog := ref.Map2("KLDiv log", in.R, lt.R, func(x, t float64) float64 { return math.Exp(t) * (t - x) })
		checkReductions(t, "KLDiv log_target", func(r nn.Reduction) func(x, y *tensor.Tensor) *tensor.Tensor {
			return nn.KLDivLoss{LogTarget: true, Reduction: r}.Loss
		}, in.T, lt.T, perLog)
		v, err := nn.KLDivLoss{Reduction: nn.Sum}.Loss(in.T, tgt.T.SubScalar(0.05)).Item()
		require.NoError(t, err)
		require.True(t, math.IsNaN(v), "a negative target gives NaN, as in PyTorch")
	})
}

func TestNLLWeightsAndIgnoreIndex(t *testing.T) {
	nntest.ForEachBackend(t, func(t *testing.T, dev *tensor.Device) {
		r := nntest.Rand(t)
		logits := randn(dev, r, 6, 4)
		lp := ref.LogSoftmax(logits.R, 1)
		// -100 is the ignored class; class 0's log-probability is -Inf in
		// row 1, whose target is ignored.
		target := []int32{2, -100, 3, 0, -100, 1}
		weight := []float64{0.5, 2, 1, 3}
		wt := tensor.FromFloat32s(dev, []float32{0.5, 2, 1, 3}, 4)
		in := logits.T.LogSoftmax(1)
		mask := tensor.FromFloat32s(dev, []float32{0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}, 6, 4)
		in = tensor.Where(mask.GtScalar(0), tensor.FullOf(dev, tensor.Float32, math.Inf(-1), 6, 4), in)
		tt := tensor.FromInt32s(dev, target)
		for _, useWeight := range []bool{false, true} {
			per := make([]float64, len(target))
			sum, wsum := 0.0, 0.0
			for n, k := range target {
				if k == -100 {
					continue
				}
				w := 1.0
				if useWeight {
					w = weight[k]
				}
				per[n] = -w * lp.At(n, int(k))
				sum += per[n]
				wsum += w
			}
			l := nn.NLLLoss{IgnoreIndex: -100, Ignore: true}
			if useWeight {
				l.Weight = wt
			}
			l.Reduction = nn.None
			requireClose(t, "NLL none", l.Loss(in, tt), ref.New(per, len(per)), 1e-5, 1e-6)
			l.Reduction = nn.Sum
			requireClose(t, "NLL sum", l.Loss(in, tt), ref.Scalar(sum), 1e-5, 1e-6)
			l.Reduction = nn.Mean
			requireClose(t, "NLL mean", l.Loss(in, tt), ref.Scalar(sum/wsum), 1e-5, 1e-6)
		}
		v, err := nn.NLLLoss{Ignore: true, IgnoreIndex: 1}.Loss(in.Narrow(0, 5, 1), tt.Narrow(0, 5, 1)).Item()
		require.NoError(t, err)
		require.True(t, math.IsNaN(v), "the mean over no counted target is NaN, as in PyTorch")
	})
}

func TestNewLossGradients(t *testing.T) {
	nntest.ForEachBackend(t, func(t *testing.T, dev *tensor.Device) {
		r := nntest.Rand(t)
		pred, y := leaf(awayFromZero(dev, r, 3, 4)), randn(dev, r, 3, 4)
		yOff := pair{T: pred.T.Detach().Sub(awayFromZero(dev, r, 3, 4).T)}
		probs := leaf(fromValues(dev, []float32{0.1, 0.9, 0.5, 0.3, 0.7, 0.2, 0.8, 0.4, 0.6, 0.35, 0.65, 0.15}, 3, 4))
		bits := tensor.FromFloat32s(dev, []float32{0, 1, 1, 0, 0.3, 1, 0, 1, 0.5, 0, 1, 1}, 3, 4)
		pw := tensor.FromFloat32s(dev, []float32{2, 0.5, 1, 3}, 4)
		logits := leaf(randn(dev, r, 5, 4))
		target := tensor.FromInt32s(dev, []int32{0, 3, -1, 1, 2})
		wt := tensor.FromFloat32s(dev, []float32{0.5, 2, 1, 3}, 4)
		q := tensor.FromFloat32s(dev, []float32{0, 0.2, 0.3, 0.5, 0.1, 0.1, 0.1, 0.7, 0.25, 0.25, 0.25, 0.25}, 3, 4)
		for _, c := range []struct {
			name string
			x    *tensor.Tensor
			f    func() *tensor.Tensor
		}{
			{"L1", pred.T, func() *tensor.Tensor { return nn.L1(pred.T, yOff.T) }},
			{"SmoothL1", pred.T, func() *tensor.Tensor { return nn.SmoothL1Loss{Beta: 0.7, Reduction: nn.Sum}.Loss(pred.T, y.T) }},
			{"Huber", pred.T, func() *tensor.Tensor { return nn.HuberLoss{Delta: 0.6, Reduction: nn.None}.Loss(pred.T, y.T) }},
			{"BCE", probs.T, func() *tensor.Tensor { return nn.BCE(probs.T, bits) }},
			{"BCEWithLogits pos_weight", pred.T, func() *tensor.Tensor {
				return nn.BCEWithLogitsLoss{PosWeight: pw, Reduction: nn.Sum}.Loss(pred.T, bits)
			}},
			{"KLDiv", pred.T, func() *tensor.Tensor { return nn.KLDivLoss{BatchMean: true}.Loss(pred.T.LogSoftmax(1), q) }},
			{"KLDiv log_target", pred.T, func() *tensor.Tensor {
				return nn.KLDivLoss{LogTarget: true, Reduction: nn.Sum}.Loss(pred.T, y.T.LogSoftmax(1))
			}},
			{"NLL weighted ignore", logits.T, func() *tensor.Tensor {
				return nn.NLLLoss{Weight: wt, Ignore: true, IgnoreIndex: -1}.Loss(logits.T.LogSoftmax(1), target)
			}},
		} {
			gradCheck(t, r, c.name, []*tensor.Tensor{c.x}, c.f)
		}
	})
}

func TestNewLossArgumentsPanic(t *testing.T) {
	dev := nntest.CPU(t)
	x := tensor.Zeros(dev, 4, 3)
	for name, f := range map[string]func(){
		"negative beta":  func() { nn.SmoothL1Loss{Beta: -1}.Loss(x, x) },
		"zero delta":     func() { nn.HuberLoss{}.Loss(x, x) },
		"BCE shapes":     func() { nn.BCE(x, tensor.Zeros(dev, 3, 4)) },
		"NLL weight [2]": func() { nn.NLLLoss{Weight: tensor.Ones(dev, 2)}.Loss(x, tensor.FromInt32s(dev, []int32{0, 1, 2, 0})) },
	} {
		err := tensor.Catch(f)
		require.Error(t, err, name)
		require.Contains(t, err.Error(), "nn.", name)
	}
}

// PyTorch's cross-entropy with class weights, ignore_index and label
// smoothing (formula checked against torch 1.13): per sample
// (1-ε)·w[t]·(-logp[t]) + ε/C·Σ_c w[c]·(-logp[c]), 0 when ignored, and the
// mean divides by Σ w[t] over the counted samples.
func TestCrossEntropyWeightsIgnoreSmoothing(t *testing.T) {
	nntest.ForEachBackend(t, func(t *testing.T, dev *tensor.Device) {
		r := nntest.Rand(t)
		logits := randn(dev, r, 5, 4)
		lp := ref.LogSoftmax(logits.R, 1)
		target := []int32{0, 3, -100, 1, 2}
		weight := []float64{0.5, 2, 1, 3}
		wt := tensor.FromFloat32s(dev, []float32{0.5, 2, 1, 3}, 4)
		tt := tensor.FromInt32s(dev, target)
		for _, eps := range []float64{0, 0.2} {
			for _, useWeight := range []bool{false, true} {
				w := func(c int) float64 {
					if useWeight {
						return weight[c]
					}
					return 1
				}
				per := make([]float64, len(target))
				sum, wsum := 0.0, 0.0
				for n, k := range target {
					if k == -100 {
						continue
					}
					smooth := 0.0
					for c := range 4 {
						smooth -= w(c) * lp.At(n, c)
					}
					per[n] = -(1-eps)*w(int(k))*lp.At(n, int(k)) + eps/4*smooth
					sum += per[n]
					wsum += w(int(k))
				}
				l := nn.CrossEntropyLoss{LabelSmoothing: eps, Ignore: true, IgnoreIndex: -100}
				if useWeight {
					l.Weight = wt
				}
				l.Reduction = nn.None
				requireClose(t, "CrossEntropy none", l.Loss(logits.T, tt), ref.New(per, len(per)), 1e-5, 1e-6)
				l.Reduction = nn.Sum
				requireClose(t, "CrossEntropy sum", l.Loss(logits.T, tt), ref.Scalar(sum), 1e-5, 1e-5)
				l.Reduction = nn.Mean
				requireClose(t, "CrossEntropy mean", l.Loss(logits.T, tt), ref.Scalar(sum/wsum), 1e-5, 1e-6)
			}
		}
		// Probability targets: each class's term weighed, the mean over samples.
		probs := fromValues(dev, []float32{0.1, 0.2, 0.3, 0.4, 1, 0, 0, 0, 0.25, 0.25, 0.25, 0.25, 0, 0.5, 0.5, 0, 0.7, 0.1, 0.1, 0.1}, 5, 4)
		per := make([]float64, 5)
		for n := range 5 {
			for c := range 4 {
				p := probs.R.At(n, c)*(1-0.2) + 0.2/4
				per[n] -= weight[c] * p * lp.At(n, c)
			}
		}
		requireClose(t, "CrossEntropy weighted probabilities", nn.CrossEntropyLoss{LabelSmoothing: 0.2, Weight: wt, Reduction: nn.None}.Loss(logits.T, probs.T),
			ref.New(per, 5), 1e-5, 1e-6)
		require.Error(t, tensor.Catch(func() { nn.CrossEntropyLoss{Ignore: true}.Loss(logits.T, probs.T) }))
	})
}

func TestCrossEntropyWeightedGradient(t *testing.T) {
	nntest.ForEachBackend(t, func(t *testing.T, dev *tensor.Device) {
		r := nntest.Rand(t)
		logits := leaf(randn(dev, r, 2, 4, 3))
		target := tensor.FromInt32s(dev, []int32{0, 3, -1, 1, 2, 2}, 2, 3)
		wt := tensor.FromFloat32s(dev, []float32{0.5, 2, 1, 3}, 4)
		gradCheck(t, r, "CrossEntropy weighted, ignoring, smoothed", []*tensor.Tensor{logits.T}, func() *tensor.Tensor {
			return nn.CrossEntropyLoss{LabelSmoothing: 0.1, Weight: wt, Ignore: true, IgnoreIndex: -1}.Loss(logits.T, target)
		})
	})
}
