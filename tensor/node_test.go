package tensor

import (
	"testing"

	_ "github.com/shaderflow/shaderflow/cpu"
	"github.com/stretchr/testify/require"
)

// TestOperandFreedWhileRecordedIsAnError recreates the window in which
// another goroutine's Scope releases an operand after this goroutine's op
// has checked it: the op must fail, not compute from the freed node.
func TestOperandFreedWhileRecordedIsAnError(t *testing.T) {
	dev, err := Open("cpu")
	require.NoError(t, err)
	defer dev.Close()
	x := Full(dev, 1, 4).AddScalar(1)
	dev.releaseHandle(x.h)
	x.h.released.Store(false) // as the op saw it when it checked x
	_, err = x.AddScalar(1).MulScalar(2).Float32s()
	require.ErrorContains(t, err, "released")
}
