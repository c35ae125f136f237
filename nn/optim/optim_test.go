package optim_test

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/shaderflow/shaderflow/nn/internal/nntest"
	"github.com/shaderflow/shaderflow/nn/optim"
	"github.com/shaderflow/shaderflow/tensor"
	"github.com/stretchr/testify/require"
)

// refOptimizer is a float64 model of an update rule: step returns the new
// parameter values given the gradient.
type refOptimizer interface {
	step(p, g []float64) []float64
}

// refSGD is torch.optim.SGD in float64.
type refSGD struct {
	cfg optim.SGDConfig
	buf []float64
}

func (o *refSGD) step(p, g []float64) []float64 {
	c := o.cfg
	out := make([]float64, len(p))
	first := o.buf == nil
	if first && c.Momentum != 0 {
		o.buf = make([]float64, len(p))
	}
	for i := range p {
		d := g[i] + c.WeightDecay*p[i]
		if c.Momentum != 0 {
			if first {
				o.buf[i] = d
			} else {
				o.buf[i] = c.Momentum*o.buf[i] + (1-c.Dampening)*d
			}
			if c.Nesterov {
				d += c.Momentum * o.buf[i]
			} else {
				d = o.buf[i]
			}
		}
		out[i] = p[i] - c.LR*d
	}
	return out
}

// refAdam is torch.optim.Adam / AdamW in float64.
type refAdam struct {
	cfg       optim.AdamConfig
	decoupled bool
	m, v      []float64
	t         int
}

func (o *refAdam) step(p, g []float64) []float64 {
	c := o.cfg
	if o.m == nil {
		o.m, o.v = make([]float64, len(p)), make([]float64, len(p))
	}
	o.t++
	b1, b2, eps := 0.9, 0.999, 1e-8
	if c.Beta1 != 0 || c.Beta2 != 0 {
		b1, b2 = c.Beta1, c.Beta2
	}
	if c.Eps != 0 {
		eps = c.Eps
	}
	out := make([]float64, len(p))
	for i := range p {
		pi, gi := p[i], g[i]
		if o.decoupled {
			pi *= 1 - c.LR*c.WeightDecay
		} else {
			gi += c.WeightDecay * pi
		}
		o.m[i] = b1*o.m[i] + (1-b1)*gi
		o.v[i] = b2*o.v[i] + (1-b2)*gi*gi
		bc1 := 1 - math.Pow(b1, float64(o.t))
		bc2 := 1 - math.Pow(b2, float64(o.t))
		out[i] = pi - c.LR/bc1*o.m[i]/(math.Sqrt(o.v[i])/math.Sqrt(bc2)+eps)
	}
	return out
}

// runSteps applies steps updates with random gradients to two parameters on
// the device and in the reference, inside a scope per step, and compares.
func runSteps(t *testing.T, dev *tensor.Device, r *rand.Rand, name string,
	mk func([]*tensor.Tensor) optim.Optimizer, refs func() []refOptimizer) {
	t.Helper()
	shapes := [][]int{{5, 3}, {7}}
	ps := make([]*tensor.Tensor, len(shapes))
	vals := make([][]float64, len(shapes))
	for i, s := range shapes {
		v := nntest.Normal(r, s[0]*max(1, len(s)-1)*lastOr1(s))
		ps[i] = tensor.FromFloat32s(dev, v, s...).SetRequiresGrad(true)
		vals[i] = f64(v)
	}
	opt := mk(ps)
	rs := refs()
	for step := 0; step < 5; step++ {
		dev.Scope(func() {
			loss := tensor.Zeros(dev)
			grads := make([][]float64, len(ps))
			for i, p := range ps {
				g := nntest.Normal(r, p.NumElements())
				grads[i] = f64(g)
				loss = loss.Add(p.Mul(tensor.FromFloat32s(dev, g, p.Shape()...)).Sum())
			}
			require.NoError(t, loss.Backward())
			require.NoError(t, opt.Step())
			opt.ZeroGrad()
			for i := range ps {
				vals[i] = rs[i].step(vals[i], grads[i])
			}
		})
		for i, p := range ps {
			require.Nil(t, p.Grad())
			require.InDeltaSlice(t, vals[i], f64(nntest.Values(t, p)), 2e-5, "%s: step %d parameter %d", name, step, i)
		}
	}
}

func lastOr1(s []int) int {
	if len(s) < 2 {
		return 1
	}
	return s[len(s)-1]
}

func f64(v []float32) []float64 {
	out := make([]float64, len(v))
	for i, x := range v {
		out[i] = float64(x)
	}
	return out
}

func TestSGDMatchesReference(t *testing.T) {
	nntest.ForEachBackend(t, func(t *testing.T, dev *tensor.Device) {
		r := nntest.Rand(t)
		for _, cfg := range []optim.SGDConfig{
			{LR: 0.1},
			{LR: 0.05, Momentum: 0.9},
			{LR: 0.05, Momentum: 0.9, Dampening: 0.3},
			{LR: 0.05, Momentum: 0.8, Nesterov: true},
			{LR: 0.1, Momentum: 0.9, WeightDecay: 0.01},
			{LR: 0.1, WeightDecay: 0.1},
		} {
			runSteps(t, dev, r, "SGD", func(ps []*tensor.Tensor) optim.Optimizer { return optim.NewSGD(ps, cfg) },
				func() []refOptimizer { return []refOptimizer{&refSGD{cfg: cfg}, &refSGD{cfg: cfg}} })
		}
	})
}

func TestAdamMatchesReference(t *testing.T) {
	nntest.ForEachBackend(t, func(t *testing.T, dev *tensor.Device) {
		r := nntest.Rand(t)
		for _, c := range []struct {
			cfg       optim.AdamConfig
			decoupled bool
		}{
			{optim.AdamConfig{LR: 1e-2}, false},
			{optim.AdamConfig{LR: 1e-2, Beta1: 0.5, Beta2: 0.9, Eps: 1e-6, WeightDecay: 0.1}, false},
			{optim.AdamConfig{LR: 1e-2, WeightDecay: 0.1}, true},
		} {
			mk := optim.NewAdam
			if c.decoupled {
				mk = optim.NewAdamW
			}
			runSteps(t, dev, r, "Adam", func(ps []*tensor.Tensor) optim.Optimizer { return mk(ps, c.cfg) },
				func() []refOptimizer {
					return []refOptimizer{&refAdam{cfg: c.cfg, decoupled: c.decoupled}, &refAdam{cfg: c.cfg, decoupled: c.decoupled}}
				})
		}
	})
}

// TestUpdateKernelCounts measures the kernels one Step launches once the
// gradients are computed: one per parameter, however many state tensors the
// rule writes (tensor.Realize computes same-shape results in one kernel).
func TestUpdateKernelCounts(t *testing.T) {
	dev := nntest.CPU(t)
	for _, c := range []struct {
		name string
		mk   func([]*tensor.Tensor) optim.Optimizer
		want int
	}{
		{"SGD", func(ps []*tensor.Tensor) optim.Optimizer { return optim.NewSGD(ps, optim.SGDConfig{LR: 0.1}) }, 1},
		{"SGD weight decay", func(ps []*tensor.Tensor) optim.Optimizer {
			return optim.NewSGD(ps, optim.SGDConfig{LR: 0.1, WeightDecay: 1e-4})
		}, 1},
		{"SGD momentum", func(ps []*tensor.Tensor) optim.Optimizer {
			return optim.NewSGD(ps, optim.SGDConfig{LR: 0.1, Momentum: 0.9})
		}, 1},
		{"SGD Nesterov", func(ps []*tensor.Tensor) optim.Optimizer {
			return optim.NewSGD(ps, optim.SGDConfig{LR: 0.1, Momentum: 0.9, Nesterov: true})
		}, 1},
		{"Adam", func(ps []*tensor.Tensor) optim.Optimizer { return optim.NewAdam(ps, optim.AdamConfig{LR: 1e-3}) }, 1},
		{"AdamW", func(ps []*tensor.Tensor) optim.Optimizer {
			return optim.NewAdamW(ps, optim.AdamConfig{LR: 1e-3, WeightDecay: 0.01})
		}, 1},
	} {
		ps := []*tensor.Tensor{
			tensor.Ones(dev, 64, 32).AddScalar(0).SetRequiresGrad(true),
			tensor.Ones(dev, 32).AddScalar(0).SetRequiresGrad(true),
		}
		require.NoError(t, tensor.Realize(ps...))
		opt := c.mk(ps)
		for step := 0; step < 3; step++ {
			dev.Scope(func() {
				x := tensor.Ones(dev, 8, 64)
				require.NoError(t, x.MatMul(ps[0]).Add(ps[1]).Sum().Backward())
				for _, p := range ps {
					require.NoError(t, p.Grad().Realize())
				}
				dev.ResetFusionStats()
				require.NoError(t, opt.Step())
				k := dev.FusionStats().Kernels
				opt.ZeroGrad()
				t.Logf("%s step %d: %d kernels for %d parameters", c.name, step, k, len(ps))
				require.Equal(t, c.want*len(ps), k, c.name)
			})
		}
	}
}

func TestOptimizerConfigErrors(t *testing.T) {
	dev := nntest.CPU(t)
	p := []*tensor.Tensor{tensor.Ones(dev, 2).AddScalar(0).SetRequiresGrad(true)}
	for name, f := range map[string]func(){
		"negative lr":          func() { optim.NewSGD(p, optim.SGDConfig{LR: -1}) },
		"nesterov no momentum": func() { optim.NewSGD(p, optim.SGDConfig{LR: 1, Nesterov: true}) },
		"no grad parameter":    func() { optim.NewSGD([]*tensor.Tensor{tensor.Ones(dev, 2)}, optim.SGDConfig{LR: 1}) },
		"beta out of range":    func() { optim.NewAdam(p, optim.AdamConfig{LR: 1, Beta1: 1, Beta2: 0.9}) },
		"bad step size":        func() { optim.NewStepLR(optim.NewSGD(p, optim.SGDConfig{LR: 1}), 0, 0.1) },
	} {
		err := tensor.Catch(f)
		require.Error(t, err, name)
		require.Contains(t, err.Error(), "optim.", name)
	}
}

func TestSchedules(t *testing.T) {
	dev := nntest.CPU(t)
	p := []*tensor.Tensor{tensor.Ones(dev, 2).AddScalar(0).SetRequiresGrad(true)}
	sgd := optim.NewSGD(p, optim.SGDConfig{LR: 0.1})
	s := optim.NewStepLR(sgd, 3, 0.5)
	var got []float64
	for range 7 {
		s.Step()
		got = append(got, sgd.LR())
	}
	require.InDeltaSlice(t, []float64{0.1, 0.1, 0.05, 0.05, 0.05, 0.025, 0.025}, got, 1e-12)

	adam := optim.NewAdam(p, optim.AdamConfig{LR: 1})
	c := optim.NewCosineLR(adam, 4, 0.2)
	require.Equal(t, 1.0, c.LR())
	want := []float64{0.2 + 0.8*(1+math.Cos(math.Pi/4))/2, 0.6, 0.2 + 0.8*(1+math.Cos(3*math.Pi/4))/2, 0.2, 0.2 + 0.8*(1+math.Cos(5*math.Pi/4))/2}
	for i, w := range want {
		c.Step()
		require.InDelta(t, w, adam.LR(), 1e-12, "step %d", i+1)
		require.InDelta(t, w, c.LR(), 1e-12)
	}
}
