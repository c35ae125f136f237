package tensor_test

import (
	"testing"

	"github.com/shaderflow/shaderflow/tensor"
	"github.com/stretchr/testify/require"
)

// TestDeepChainsRealize builds chains of AddScalar far deeper than a
// recursive realization survives and reads them.
func TestDeepChainsRealize(t *testing.T) {
	dev := openCPU(t)
	for _, depth := range []int{400_000, 1_000_000} {
		x := tensor.Zeros(dev, 2)
		for range depth {
			x = x.AddScalar(1)
		}
		got, err := x.Float32s()
		require.NoError(t, err)
		require.Equal(t, []float32{float32(depth), float32(depth)}, got)
	}
}

// TestDeepChainReleasedUnrealized releases a deep chain that was never
// computed: freeing it must not recurse through every node.
func TestDeepChainReleasedUnrealized(t *testing.T) {
	dev := openCPU(t)
	dev.Scope(func() {
		x := tensor.Zeros(dev, 2)
		for range 400_000 {
			x = x.AddScalar(1)
		}
	})
	require.Zero(t, dev.PoolStats().BytesInUse)
}

// TestDeepChainReduces reads a deep chain through a reduction and a view.
func TestDeepChainReduces(t *testing.T) {
	dev := openCPU(t)
	x := tensor.Zeros(dev, 2, 3)
	for range 400_000 {
		x = x.AddScalar(1)
	}
	got, err := x.T().Sum(1).Float32s()
	require.NoError(t, err)
	require.Equal(t, []float32{800_000, 800_000, 800_000}, got)
}
