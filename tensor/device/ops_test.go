package device

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestOpTableComplete checks that every op has a row whose fields agree with
// its type rule: names unique, definitions present where backends call them.
func TestOpTableComplete(t *testing.T) {
	names := map[string]Op{}
	for _, op := range Ops() {
		r := op.Info()
		require.NotEmpty(t, r.Name, "op %d has no row", uint8(op))
		_, dup := names[r.Name]
		assert.False(t, dup, "name %q used twice", r.Name)
		names[r.Name] = op
		arith := r.Types == TypesFloat || r.Types == TypesNumeric
		assert.Equal(t, arith && r.Arity == 1, r.Float != nil, "%s: Float", op)
		assert.Equal(t, arith && r.Arity == 2, r.Float2 != nil, "%s: Float2", op)
		numeric := r.Types == TypesNumeric
		assert.Equal(t, numeric && r.Arity == 1, r.Int != nil, "%s: Int", op)
		assert.Equal(t, numeric && r.Arity == 2, r.Int2 != nil, "%s: Int2", op)
		assert.Equal(t, arith && r.Arity < 3, r.GPU != "", "%s: GPU", op)
		if r.GPU != "" {
			assert.Equal(t, "op_"+r.Name, r.GPU, "%s: GPU function name", op)
		}
		if r.GPUInt != "" {
			assert.Equal(t, "op_"+r.Name+"_i", r.GPUInt, "%s: GPU int function name", op)
		}
	}
	assert.Equal(t, "op(200)", Op(200).String())
	assert.Equal(t, -1, Op(200).Arity())
	assert.False(t, Op(200).IsArith(1))
}

// TestOpTableSemantics spot-checks definitions the table's rows refer to.
func TestOpTableSemantics(t *testing.T) {
	nan := float32(math.NaN())
	assert.Equal(t, float32(2), UnaryF32(OpAbs, -2))
	assert.True(t, math.Signbit(float64(UnaryF32(OpSign, float32(math.Copysign(0, -1))))))
	assert.True(t, math.IsNaN(float64(UnaryF32(OpRelu, nan))))
	assert.True(t, math.IsNaN(float64(BinaryF32(OpMax, 1, nan))))
	assert.True(t, math.IsNaN(float64(BinaryF32(OpMin, nan, 1))))
	assert.Equal(t, int32(-4), BinaryI32(OpDiv, -7, 2))
	assert.Equal(t, int32(0), BinaryI32(OpDiv, 7, 0))
	assert.Equal(t, int32(7), UnaryI32(OpAbs, -7))
	assert.Panics(t, func() { UnaryF32(OpAdd, 1) })
	assert.Panics(t, func() { BinaryI32(OpPow, 1, 2) })
}
