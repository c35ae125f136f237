package tensor_test

import (
	"errors"
	"testing"

	"github.com/shaderflow/shaderflow/tensor"
	"github.com/stretchr/testify/require"
)

func TestScopeErrReturnsTheErrorAndReleases(t *testing.T) {
	dev := openCPU(t)
	boom := errors.New("boom")
	var inside, kept *tensor.Tensor
	err := dev.ScopeErr(func() error {
		inside = tensor.Ones(dev, 2)
		kept = tensor.Ones(dev, 2).Keep()
		return boom
	})
	require.ErrorIs(t, err, boom)
	requireUsagePanic(t, func() { inside.AddScalar(1) }, "used after the Scope", "Keep")
	_, err = kept.Float32s()
	require.NoError(t, err)

	require.NoError(t, dev.ScopeErr(func() error {
		_, err := tensor.Ones(dev, 3).Sum().Item()
		return err
	}))
}

func TestUseAfterReleaseSaysHowToKeepTheValue(t *testing.T) {
	dev := openCPU(t)
	x := tensor.Ones(dev, 3)
	x.Release()
	requireUsagePanic(t, func() { x.AddScalar(1) }, "tensor [3] used after Release", "read it first")
}
