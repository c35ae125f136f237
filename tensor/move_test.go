package tensor_test

import (
	"testing"

	"github.com/shaderflow/shaderflow/tensor"
	"github.com/stretchr/testify/require"
)

func TestToCopiesEveryDTypeToAnotherDevice(t *testing.T) {
	a, b := openCPU(t), openCPU(t)
	vals := []float32{1.5, -2, 0, 3}
	for _, dt := range []tensor.DType{tensor.Float32, tensor.Float16, tensor.BFloat16, tensor.Int32, tensor.Bool} {
		t.Run(dt.String(), func(t *testing.T) {
			x := tensor.FromFloat32s(a, vals, 2, 2).Cast(dt).T()
			want, err := x.Bytes()
			require.NoError(t, err)
			y, err := x.To(b)
			require.NoError(t, err)
			require.Same(t, b, y.Device())
			require.Equal(t, dt, y.DType())
			require.Equal(t, []int{2, 2}, y.Shape())
			got, err := y.Bytes()
			require.NoError(t, err)
			require.Equal(t, want, got)
		})
	}
}

func TestToSameDeviceReturnsTheTensor(t *testing.T) {
	a := openCPU(t)
	x := tensor.Ones(a, 3)
	y, err := x.To(a)
	require.NoError(t, err)
	require.Same(t, x, y)
}

func TestToGivesALeafThatRequiresGradWhenTheSourceDoes(t *testing.T) {
	a, b := openCPU(t), openCPU(t)
	w := tensor.FromFloat32s(a, []float32{1, 2}).SetRequiresGrad(true)
	c, err := w.Mul(w).To(b)
	require.NoError(t, err)
	require.True(t, c.RequiresGrad())
	require.NoError(t, c.Sum().Backward())
	g, err := c.Grad().Float32s()
	require.NoError(t, err)
	require.Equal(t, []float32{1, 1}, g)
	require.Nil(t, w.Grad(), "no gradient crosses devices")

	plain, err := tensor.Ones(a, 2).To(b)
	require.NoError(t, err)
	require.False(t, plain.RequiresGrad())
}

func TestToReturnsTheSourceError(t *testing.T) {
	a, b := openCPU(t), openCPU(t)
	bad := tensor.FromFloat32s(a, []float32{1, 2}).Gather(0, tensor.FromInt32s(a, []int32{5}, 1))
	_, err := bad.To(b)
	require.Error(t, err)
	require.NoError(t, b.Close())
	_, err = tensor.Ones(a, 2).To(b)
	require.Error(t, err, "a closed device")
}

func TestMoveToRebindsInPlaceWithGradient(t *testing.T) {
	a, b := openCPU(t), openCPU(t)
	w := tensor.FromFloat32s(a, []float32{1, 2, 3}).SetRequiresGrad(true)
	view := w.Narrow(0, 1, 2)
	require.NoError(t, w.MulScalar(2).Sum().Backward())
	p := w
	require.NoError(t, w.MoveTo(b))
	require.Same(t, p, w)
	require.Same(t, b, w.Device())
	require.True(t, w.RequiresGrad())
	got, err := w.Float32s()
	require.NoError(t, err)
	require.Equal(t, []float32{1, 2, 3}, got)
	g, err := w.Grad().Float32s()
	require.NoError(t, err)
	require.Equal(t, []float32{2, 2, 2}, g)
	require.Same(t, b, w.Grad().Device())
	old, err := view.Float32s()
	require.NoError(t, err, "other views keep the old value")
	require.Equal(t, []float32{2, 3}, old)

	require.NoError(t, w.Add(w).Sum().Backward(), "a leaf on the new device")
	require.NoError(t, w.MoveTo(b), "already there")
}

func TestMoveToInsideAScopeOutlivesIt(t *testing.T) {
	a, b := openCPU(t), openCPU(t)
	w := tensor.FromFloat32s(a, []float32{4, 5})
	a.Scope(func() {
		b.Scope(func() {
			require.NoError(t, w.MoveTo(b))
			w.Keep()
		})
	})
	got, err := w.Float32s()
	require.NoError(t, err)
	require.Equal(t, []float32{4, 5}, got)
}

func TestMoveToFailureLeavesTensorUnchanged(t *testing.T) {
	a, b := openCPU(t), openCPU(t)
	w := tensor.FromFloat32s(a, []float32{4, 5})
	require.NoError(t, b.Close())
	require.Error(t, w.MoveTo(b))
	require.Same(t, a, w.Device())
	got, err := w.Float32s()
	require.NoError(t, err)
	require.Equal(t, []float32{4, 5}, got)
}

func TestCloneHasItsOwnStorageAndPassesGradients(t *testing.T) {
	a := openCPU(t)
	x := tensor.FromFloat32s(a, []float32{1, 2, 3, 4}, 2, 2).SetRequiresGrad(true)
	c := x.T().Clone()
	require.True(t, c.IsContiguous())
	require.NoError(t, c.Realize())
	require.NoError(t, c.MulScalar(3).Sum().Backward())
	g, err := x.Grad().Float32s()
	require.NoError(t, err)
	require.Equal(t, []float32{3, 3, 3, 3}, g)

	y := tensor.FromInt32s(a, []int32{7, 8}, 2)
	yc := y.Clone()
	require.NoError(t, yc.Realize())
	y.Release()
	got, err := yc.Int32s()
	require.NoError(t, err)
	require.Equal(t, []int32{7, 8}, got)
}

func TestNilDeviceIsAUsageError(t *testing.T) {
	a := openCPU(t)
	requireUsagePanic(t, func() { _, _ = tensor.Ones(a, 1).To(nil) }, "To", "nil device")
	requireUsagePanic(t, func() { _ = tensor.Ones(a, 1).MoveTo(nil) }, "MoveTo", "nil device")
}
