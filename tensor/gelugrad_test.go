package tensor

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/shaderflow/shaderflow/tensor/device"
)

// TestUnaryNoGrad checks the helper the GELUs' backward rules use: it
// computes the op, records nothing, and refuses an input that requires a
// gradient (which would silently get none through it).
func TestUnaryNoGrad(t *testing.T) {
	d, err := Open("cpu")
	require.NoError(t, err)
	defer func() { _ = d.Close() }()
	x := FromFloat32s(d, []float32{-1, 0, 2}, 3)
	y := x.unaryNoGrad(device.OpGeluErfGrad)
	got, err := y.Float32s()
	require.NoError(t, err)
	for i, v := range []float32{-1, 0, 2} {
		assert.InDelta(t, device.UnaryF32(device.OpGeluErfGrad, v), got[i], 1e-6)
	}
	assert.False(t, y.RequiresGrad())
	w := FromFloat32s(d, []float32{1}, 1).SetRequiresGrad(true)
	err = Catch(func() { w.unaryNoGrad(device.OpGeluTanhGrad) })
	var ue *UsageError
	require.ErrorAs(t, err, &ue)
	assert.Contains(t, err.Error(), "gelu_tanh_grad")
}
