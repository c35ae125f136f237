package main

import (
	"testing"

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
