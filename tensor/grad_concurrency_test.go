package tensor_test

import (
	"testing"

	"github.com/shaderflow/shaderflow/tensor"
	"github.com/shaderflow/shaderflow/tensor/conformance"
	"github.com/stretchr/testify/require"
)

// TestConcurrentTrainingAndEvaluation trains on two CPU devices while a
// third goroutine evaluates without gradients on a third: grad mode must
// not leak from one device (or goroutine) to another. The conformance suite
// runs the same check, shorter, on every backend.
func TestConcurrentTrainingAndEvaluation(t *testing.T) {
	var devs [3]*tensor.Device
	for i := range devs {
		devs[i] = openCPU(t)
	}
	require.NotSame(t, devs[0], devs[1], "tensor.Open must return independent devices")
	require.NoError(t, conformance.TrainAndEvaluateConcurrently(devs, 1500))
}
