package device

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// TestProductWithOneIsItsOperand: x·1 and 1·x return x for every type, and
// nothing else is dropped (x·2, a one of another type, other ops with one).
func TestProductWithOneIsItsOperand(t *testing.T) {
	for _, typ := range []DType{Float32, Int32} {
		var b Builder
		x := b.Input(0, typ)
		one := b.Const(1, typ)
		require.Equal(t, x, b.Binary(OpMul, x, one), "%s: x·1", typ)
		require.Equal(t, x, b.Binary(OpMul, one, x), "%s: 1·x", typ)
		require.NotEqual(t, x, b.Binary(OpMul, x, b.Const(2, typ)), "%s: x·2", typ)
		require.NotEqual(t, x, b.Binary(OpAdd, x, one), "%s: x+1", typ)
		require.NotEqual(t, x, b.Binary(OpDiv, x, one), "%s: x/1 is left alone", typ)
	}
	var b Builder
	x := b.Input(0, Float32)
	require.NotEqual(t, x, b.Binary(OpMul, x, b.Const(1, Int32)), "a one of another type is not dropped")
}
