package nn_test

import (
	"testing"

	"github.com/shaderflow/shaderflow/internal/cputime"
	"github.com/shaderflow/shaderflow/nn"
	"github.com/shaderflow/shaderflow/nn/data"
	"github.com/shaderflow/shaderflow/nn/internal/nntest"
	"github.com/shaderflow/shaderflow/nn/optim"
	"github.com/shaderflow/shaderflow/nn/train"
	"github.com/shaderflow/shaderflow/tensor"
)

// BenchmarkGPTStep times one training step (forward, backward, AdamW) of
// the demo's character GPT (train.CharGPTConfig over the King James Bible's
// characters: 4 layers, d=128, 4 heads, context 128) at batch
// 32x128 on the CPU backend; tokens/s = 4096 / (seconds per op).
func BenchmarkGPTStep(b *testing.B) {
	dev := nntest.CPU(b)
	cfg := train.CharGPTConfig(data.KJVChars)
	gen := tensor.NewGenerator(1)
	m := nn.NewGPT(dev, cfg, nn.WithGenerator(gen))
	opt := optim.NewAdamW(nn.Parameters(m), optim.AdamConfig{LR: 1e-3, WeightDecay: 0.1})
	const batch, ctx = 32, 128
	ids := gen.RandInt(dev, 0, cfg.Vocab, batch, ctx+1)
	x, y := ids.Narrow(1, 0, ctx).Contiguous(), ids.Narrow(1, 1, ctx).Contiguous()
	if err := tensor.Realize(x, y); err != nil {
		b.Fatal(err)
	}
	step := func() {
		err := dev.ScopeErr(func() error {
			loss := m.Loss(x, y)
			if err := loss.Backward(); err != nil {
				return err
			}
			if _, err := optim.ClipGradNorm(nn.Parameters(m), 1); err != nil {
				return err
			}
			err := opt.Step()
			opt.ZeroGrad()
			return err
		})
		if err != nil {
			b.Fatal(err)
		}
	}
	step()
	if err := dev.Sync(); err != nil { // the warm-up's kernels finish untimed
		b.Fatal(err)
	}
	cpu0 := cpuSeconds()
	b.ResetTimer()
	for range b.N {
		step()
	}
	if err := dev.Sync(); err != nil {
		b.Fatal(err)
	}
	b.ReportMetric(float64(b.N*batch*ctx)/b.Elapsed().Seconds(), "tokens/s")
	// On a shared machine the process's CPU time per step is steadier than
	// the wall clock's.
	b.ReportMetric((cpuSeconds()-cpu0)/float64(b.N), "cpu-s/op")
}

// BenchmarkGPTForward times inference of the same GPT at batch 32x128: a
// forward pass in evaluation mode without gradients, realized; tokens/s =
// 4096 / (seconds per op).
func BenchmarkGPTForward(b *testing.B) {
	dev := nntest.CPU(b)
	cfg := train.CharGPTConfig(data.KJVChars)
	gen := tensor.NewGenerator(1)
	m := nn.NewGPT(dev, cfg, nn.WithGenerator(gen))
	m.Train(false)
	const batch = 32
	ids := gen.RandInt(dev, 0, cfg.Vocab, batch, cfg.Context)
	if err := ids.Realize(); err != nil {
		b.Fatal(err)
	}
	forward := func() {
		err := dev.ScopeErr(func() error {
			var err error
			dev.NoGrad(func() { err = m.Forward(ids).Realize() })
			return err
		})
		if err != nil {
			b.Fatal(err)
		}
	}
	forward()
	cpu0 := cpuSeconds()
	b.ResetTimer()
	for range b.N {
		forward()
	}
	b.ReportMetric(float64(b.N*batch*cfg.Context)/b.Elapsed().Seconds(), "tokens/s")
	b.ReportMetric((cpuSeconds()-cpu0)/float64(b.N), "cpu-s/op")
}

// cpuSeconds returns the CPU time the process has used (0 where it cannot
// be read).
func cpuSeconds() float64 {
	d, _ := cputime.Process()
	return d.Seconds()
}
