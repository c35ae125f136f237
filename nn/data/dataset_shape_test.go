package data

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// TestNewDatasetRefusesInconsistentIDX hands NewDataset IDX values built by
// hand whose Data does not match their Dims: each is an error, not a
// dataset of the wrong size or a panic.
func TestNewDatasetRefusesInconsistentIDX(t *testing.T) {
	labels := &IDX{Type: U8, Dims: []int{2}, Data: []byte{0, 1}}
	for name, images := range map[string]*IDX{
		"u8 short":        {Type: U8, Dims: []int{2, 3, 3}, Data: make([]byte, 10)},
		"f32 short":       {Type: F32, Dims: []int{2, 3}, Data: make([]byte, 4*5)},
		"u8 long":         {Type: U8, Dims: []int{2, 2}, Data: make([]byte, 5)},
		"dims overflow":   {Type: U8, Dims: []int{2, 1 << 62, 1 << 62}, Data: make([]byte, 4)},
		"negative dim":    {Type: U8, Dims: []int{2, -2}, Data: make([]byte, 4)},
		"empty huge dims": {Type: U8, Dims: []int{2, 0, 1 << 62, 1 << 62}, Data: nil},
	} {
		t.Run(name, func(t *testing.T) {
			var err error
			require.NotPanics(t, func() { _, err = NewDataset(images, labels, 2, 0, 1) })
			require.Error(t, err)
		})
	}
	_, err := NewDataset(&IDX{Type: U8, Dims: []int{2, 2}, Data: make([]byte, 4)}, &IDX{Type: U8, Dims: []int{2}, Data: []byte{0}}, 2, 0, 1)
	require.Error(t, err, "labels shorter than their dims")
}
