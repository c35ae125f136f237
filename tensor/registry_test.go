package tensor

import (
	"testing"

	"github.com/shaderflow/shaderflow/tensor/device"
	"github.com/stretchr/testify/assert"
)

// TestBestAdapter checks the default adapter follows device.Kind.Rank and
// keeps the first of equally ranked ones.
func TestBestAdapter(t *testing.T) {
	info := func(ks ...device.Kind) []device.Info {
		out := make([]device.Info, len(ks))
		for i, k := range ks {
			out[i].Kind = k
		}
		return out
	}
	assert.Equal(t, 0, bestAdapter(nil))
	assert.Equal(t, 2, bestAdapter(info(device.KindSoftwareGPU, device.KindCPU, device.KindIntegratedGPU, device.KindIntegratedGPU)))
	assert.Equal(t, 1, bestAdapter(info(device.KindSoftwareGPU, device.KindCPU)))
	assert.Equal(t, 1, bestAdapter(info(device.KindVirtualGPU, device.KindDiscreteGPU)))
}
