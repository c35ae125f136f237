package main

import (
	"testing"

	"github.com/shaderflow/shaderflow/nn"
	"github.com/shaderflow/shaderflow/tensor"
	"github.com/shaderflow/shaderflow/tensor/device"
	"github.com/stretchr/testify/require"
)

func TestTorchDeviceFor(t *testing.T) {
	h100 := device.Info{Name: "NVIDIA H100 80GB HBM3", Kind: device.KindDiscreteGPU}
	cases := []struct {
		choice string
		info   device.Info
		want   string
	}{
		{"auto", h100, "cuda"},
		{"auto", device.Info{Name: "llvmpipe (LLVM 15.0.6, 256 bits)", Kind: device.KindSoftwareGPU}, "cpu"},
		{"auto", device.Info{Name: "AMD Radeon RX 7900", Kind: device.KindDiscreteGPU}, "cpu"},
		{"auto", device.Info{Name: "Intel(R) Xeon(R) Processor", Kind: device.KindCPU}, "cpu"},
		{"cpu", h100, "cpu"},
		{"cuda", device.Info{Kind: device.KindCPU}, "cuda"},
	}
	for _, c := range cases {
		require.Equal(t, c.want, torchDeviceFor(c.choice, c.info), "%s on %s", c.choice, c.info.Name)
	}
}

func TestPythonPathFromEnvironment(t *testing.T) {
	t.Setenv(pythonEnv, "")
	require.Equal(t, defaultPython, pythonPath())
	t.Setenv(pythonEnv, "/opt/torch/bin/python3")
	require.Equal(t, "/opt/torch/bin/python3", pythonPath())
}

// TestEpochFLOPsMatchModels recounts an epoch's arithmetic from the
// reference models' weights: each weight element is one multiply-add per
// output pixel in the forward pass, the weight gradient and (after the
// first layer) the input gradient.
func TestEpochFLOPsMatchModels(t *testing.T) {
	dev, err := tensor.Open("cpu")
	require.NoError(t, err)
	for model, pixels := range map[string][]int{"mlp": {1, 1}, "cnn": {28 * 28, 14 * 14, 1, 1}} {
		m, _, err := newModel(dev, model, 1)
		require.NoError(t, err)
		var flops float64
		layer := 0
		for _, p := range nn.Parameters(m) {
			if p.Dim() < 2 { // a bias
				continue
			}
			passes := 6.0
			if layer == 0 {
				passes = 4
			}
			flops += passes * float64(p.NumElements()*pixels[layer])
			layer++
		}
		require.Len(t, pixels, layer, model)
		require.Equal(t, flops*fashionTrain, epochFLOPs(model), model)
	}
	require.InDelta(t, 1.5e12, epochFLOPs("cnn"), 0.01e12)
}
