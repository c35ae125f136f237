package train_test

import (
	"os"
	"testing"
	"time"

	"github.com/shaderflow/shaderflow/nn"
	"github.com/shaderflow/shaderflow/nn/internal/nntest"
	"github.com/shaderflow/shaderflow/nn/optim"
	"github.com/shaderflow/shaderflow/nn/train"
	"github.com/shaderflow/shaderflow/tensor"
)

func TestScratchKernels(t *testing.T) {
	dev := nntest.CPU(t)
	m := train.MLP(dev, tensor.NewGenerator(1))
	opt := optim.NewSGD(nn.Parameters(m), optim.SGDConfig{LR: 0.1})
	trn := train.NewTrainer(dev, m, opt)
	x := make([]float32, 64*784)
	y := make([]int32, 64)
	for i := range x { x[i] = float32(i%7) * 0.1 }
	for i := 0; i < 5; i++ { trn.Step(x, []int{64, 1, 28, 28}, y) }
	dev.ResetFusionStats()
	dev.SetFusionReport(true)
	trn.Step(x, []int{64, 1, 28, 28}, y)
	t.Log(dev.FusionStats())
	dev.WriteFusionReport(os.Stdout)
	dev.Profiler().SetEnabled(true)
	st := time.Now()
	for i := 0; i < 200; i++ { trn.Step(x, []int{64, 1, 28, 28}, y) }
	t.Log(time.Since(st) / 200)
	dev.Profiler().WriteSummary(os.Stdout)
}
