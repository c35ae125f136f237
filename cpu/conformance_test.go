package cpu_test

import (
	"testing"

	_ "github.com/shaderflow/shaderflow/cpu" // registers the backend
	"github.com/shaderflow/shaderflow/tensor/conformance"
)

// TestConformance runs the cross-backend conformance suite on the CPU
// backend, with fusion on and off.
func TestConformance(t *testing.T) { conformance.Run(t, "cpu") }
