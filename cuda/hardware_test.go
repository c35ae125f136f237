//go:build cgo && linux

package cuda_test

import (
	"testing"

	_ "github.com/shaderflow/shaderflow/cuda"
	"github.com/shaderflow/shaderflow/gpu/gputest"
	"github.com/shaderflow/shaderflow/tensor/conformance"
)

// TestHardwareKernels runs the shared GPU kernel tests of every kind on CUDA
// device 0 of the machine's real driver. It skips with the reason where no
// driver is installed unless SHADERFLOW_REQUIRE_BACKENDS names cuda.
func TestHardwareKernels(t *testing.T) {
	gputest.RunKernels(t, gputest.Open(t, "cuda"))
}

// TestConformance runs the cross-backend conformance suite on CUDA device 0
// of the machine's real driver, skipping as TestHardwareKernels does.
func TestConformance(t *testing.T) { conformance.Run(t, "cuda") }
