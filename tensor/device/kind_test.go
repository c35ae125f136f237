package device

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestKindRank checks the preference order every backend sorts adapters by.
func TestKindRank(t *testing.T) {
	order := []Kind{KindDiscreteGPU, KindIntegratedGPU, KindVirtualGPU, KindCPU, KindSoftwareGPU}
	for i := 1; i < len(order); i++ {
		assert.Less(t, order[i-1].Rank(), order[i].Rank(), "%s before %s", order[i-1], order[i])
	}
	assert.Equal(t, KindSoftwareGPU.Rank(), Kind(200).Rank(), "unknown kinds come last")
}
