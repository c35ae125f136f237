//go:build cgo

package webgpu

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestSaturatingLimits checks that limits above math.MaxInt64 (NVIDIA's
// driver reports a largest buffer of 2^64-1 bytes) saturate instead of
// wrapping to a negative size.
func TestSaturatingLimits(t *testing.T) {
	assert.Equal(t, int64(math.MaxInt64), saturatingInt64(math.MaxUint64))
	assert.Equal(t, int64(math.MaxInt64), saturatingInt64(1<<63))
	assert.Equal(t, int64(1<<31), saturatingInt64(1<<31))
	assert.Equal(t, int64(0), saturatingInt64(0))
}
