//go:build cgo

package vulkan_test

import (
	"testing"

	_ "github.com/shaderflow/shaderflow/gpu/vulkan"
	"github.com/shaderflow/shaderflow/tensor/conformance"
)

// TestConformance runs the cross-backend conformance suite (every op and
// kernel kind against float64 references, fusion on and off) on adapter 0.
func TestConformance(t *testing.T) { conformance.Run(t, "vulkan") }
