package webgpu_test

import (
	"testing"

	_ "github.com/shaderflow/shaderflow/gpu/webgpu" // registers the backend
	"github.com/shaderflow/shaderflow/tensor/conformance"
)

// TestConformance runs the cross-backend conformance suite on the WebGPU
// backend (adapter 0), with fusion on and off.
func TestConformance(t *testing.T) { conformance.Run(t, "webgpu") }
