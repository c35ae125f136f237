package cpu

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/shaderflow/shaderflow/tensor/device"
)

// TestCheapInCache checks which elementwise passes stay on one worker: cheap
// ones whose operands fit cacheResidentSpan, not large or transcendental ones.
func TestCheapInCache(t *testing.T) {
	sgd := []device.Instr{ // w - 0.1*g
		{Op: device.OpInput, Type: device.Float32, Index: 0},
		{Op: device.OpInput, Type: device.Float32, Index: 1},
		{Op: device.OpConst, Type: device.Float32, Imm: 0.1},
		{Op: device.OpMul, Type: device.Float32, Args: [3]device.Reg{1, 2}},
		{Op: device.OpSub, Type: device.Float32, Args: [3]device.Reg{0, 3}},
	}
	tanh := []device.Instr{
		{Op: device.OpInput, Type: device.Float32, Index: 0},
		{Op: device.OpTanh, Type: device.Float32, Args: [3]device.Reg{0}},
	}
	plan := func(code []device.Instr, inputs int) *plan {
		return &plan{code: code, srcs: make([]source, inputs), sinks: make([]sink, 1)}
	}
	perOperand := cacheResidentSpan / 4 / 3 // positions of a 2-input, 1-output pass that fit
	require.True(t, plan(sgd, 2).cheapInCache(128*784), "the MLP's weight update")
	require.True(t, plan(sgd, 2).cheapInCache(perOperand))
	require.False(t, plan(sgd, 2).cheapInCache(perOperand+1))
	require.False(t, plan(tanh, 1).cheapInCache(1000), "transcendental passes split")
	require.False(t, plan(sgd, 2).cheapInCache(10_000_000))
}
