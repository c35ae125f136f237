package train_test

import (
	"math/rand/v2"
	"testing"

	"github.com/shaderflow/shaderflow/nn"
	"github.com/shaderflow/shaderflow/nn/optim"
	"github.com/shaderflow/shaderflow/nn/train"
	"github.com/shaderflow/shaderflow/tensor"
)

// benchStep times one training step of the reference models on the cpu
// backend with batch 64 of synthetic images, and reports the kernels each
// step launches. The epoch time of the reference protocol is about 938
// times the step time plus batch gathering (see cmd/demo --train --bench).
func benchStep(b *testing.B, build func(*tensor.Device, *tensor.Generator) *nn.Sequential, cfg optim.SGDConfig) {
	dev, err := tensor.Open("cpu")
	if err != nil {
		b.Fatal(err)
	}
	defer dev.Close()
	m := build(dev, tensor.NewGenerator(1))
	tr := train.NewTrainer(dev, m, optim.NewSGD(nn.Parameters(m), cfg))
	r := rand.New(rand.NewPCG(1, 2))
	x := make([]float32, 64*28*28)
	y := make([]int32, 64)
	for i := range x {
		x[i] = float32(r.NormFloat64())
	}
	for i := range y {
		y[i] = int32(r.IntN(10))
	}
	shape := []int{64, 1, 28, 28}
	for range 3 { // warm the pool
		if err := tr.Step(x, shape, y); err != nil {
			b.Fatal(err)
		}
	}
	if err := dev.Sync(); err != nil { // the warm-up's kernels finish untimed
		b.Fatal(err)
	}
	dev.ResetFusionStats()
	b.ResetTimer()
	for range b.N {
		if err := tr.Step(x, shape, y); err != nil {
			b.Fatal(err)
		}
	}
	if err := dev.Sync(); err != nil {
		b.Fatal(err)
	}
	b.StopTimer()
	b.ReportMetric(float64(dev.FusionStats().Kernels)/float64(b.N), "kernels/step")
}

func BenchmarkMLPStep(b *testing.B) {
	benchStep(b, train.MLP, optim.SGDConfig{LR: 0.1})
}

func BenchmarkCNNStep(b *testing.B) {
	benchStep(b, train.CNN, optim.SGDConfig{LR: 0.05, Momentum: 0.9})
}
