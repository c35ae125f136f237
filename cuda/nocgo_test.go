//go:build !cgo || !linux

package cuda

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/shaderflow/shaderflow/tensor/device"
)

func TestUnavailableWithoutCgo(t *testing.T) {
	_, err := Backend{}.Adapters()
	require.ErrorIs(t, err, device.ErrUnavailable)
	_, err = Backend{}.Open(0)
	require.ErrorIs(t, err, device.ErrUnavailable)
	assert.Contains(t, unavailableReason("linux").Error(), "CGO_ENABLED=0")
	assert.Contains(t, unavailableReason("windows").Error(), "only Linux")
}
