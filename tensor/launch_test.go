package tensor_test

import (
	"testing"

	"github.com/shaderflow/shaderflow/tensor"
	"github.com/stretchr/testify/require"
)

func TestLaunchComputesWhatRealizeComputes(t *testing.T) {
	dev := openCPU(t)
	x := tensor.Arange(dev, 0, 24, 1).Reshape(4, 6)
	launched := x.MulScalar(3).Add(x.Transpose(0, 1).Transpose(0, 1)).Sum(1)
	realized := x.MulScalar(3).Add(x).Sum(1)
	require.NoError(t, launched.Launch())
	require.NoError(t, realized.Realize())
	a, err := launched.Float32s()
	require.NoError(t, err)
	b, err := realized.Float32s()
	require.NoError(t, err)
	require.Equal(t, b, a)
	require.Equal(t, []float32{60, 204, 348, 492}, a)

	p, q := x.AddScalar(1), x.MulScalar(2)
	require.NoError(t, tensor.Launch(p, q))
	require.NoError(t, dev.Sync())
	pv, err := p.Float32s()
	require.NoError(t, err)
	require.Equal(t, float32(24), pv[23])
}

// TestLaunchedKernelFailureFailsItsGeneration checks that a kernel error
// found after Launch returned fails every value launched before the wait
// that reports it, intermediate values included, and nothing after it.
func TestLaunchedKernelFailureFailsItsGeneration(t *testing.T) {
	dev := openCPU(t)
	x := tensor.Arange(dev, 0, 12, 1).Reshape(4, 3)
	require.NoError(t, x.Realize())
	picked := x.IndexSelect(0, tensor.FromInt32s(dev, []int32{0, 7}, 2)) // row 7 does not exist
	require.ErrorContains(t, picked.Realize(), "index 7", "Realize waits and reports")
	other := x.MulScalar(2)
	require.NoError(t, other.Realize())

	// y is a kernel of its own whose result z's kernel reads. Launch returns
	// before they run (or, on a synchronous device, with the error); either
	// way neither reads as good afterwards.
	y := x.IndexSelect(0, tensor.FromInt32s(dev, []int32{1, 9}, 2))
	z := y.AddScalar(1).Sum(0)
	if err := z.Launch(); err != nil {
		require.ErrorContains(t, err, "index 9")
	}
	_, yErr := y.Float32s()
	require.ErrorContains(t, yErr, "index 9")
	_, zErr := z.Float32s()
	require.ErrorContains(t, zErr, "index 9")

	fresh := x.AddScalar(1)
	v, err := fresh.Float32s()
	require.NoError(t, err, "work launched after the failed wait is not failed")
	require.Equal(t, float32(12), v[11])
	ov, err := other.Float32s()
	require.NoError(t, err, "work waited for before the failure is not failed")
	require.Equal(t, float32(22), ov[11])
}
