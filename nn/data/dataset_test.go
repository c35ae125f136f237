package data

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestNewDatasetU8(t *testing.T) {
	r := newRand(t)
	const n, h, w, classes = 37, 5, 7, 4
	pix := randomValues(r, U8, n*h*w)
	labels := make([]float64, n)
	for i := range labels {
		labels[i] = float64(r.IntN(classes))
	}
	mean, std := float32(0.3), float32(0.7)
	ds, err := NewDataset(encodeIDX(U8, []int{n, h, w}, pix), encodeIDX(U8, []int{n}, labels), classes, mean, std)
	require.NoError(t, err)
	assert.Equal(t, []int{1, h, w}, ds.Shape)
	assert.Equal(t, n, ds.Len())
	assert.Equal(t, h*w, ds.SampleSize())
	assert.Equal(t, classes, ds.NumClasses)
	for i, p := range pix {
		want := (p/255 - float64(mean)) / float64(std)
		require.InDelta(t, want, float64(ds.X[i]), 1e-6*max(1, abs(want)), "pixel %d", i)
	}
	for i := range n {
		x, y := ds.Sample(i)
		require.Len(t, x, h*w)
		assert.Equal(t, int32(labels[i]), y)
		assert.Equal(t, &ds.X[i*h*w], &x[0])
	}
	assert.Panics(t, func() { ds.Sample(n) })
}

func TestNewDatasetFloatImages(t *testing.T) {
	r := newRand(t)
	const n, f = 9, 13
	vals := randomValues(r, F64, n*f)
	labels := make([]float64, n)
	for i := range labels {
		labels[i] = float64(r.IntN(3))
	}
	ds, err := NewDataset(encodeIDX(F64, []int{n, f}, vals), encodeIDX(I32, []int{n}, labels), 3, 2, 4)
	require.NoError(t, err)
	assert.Equal(t, []int{f}, ds.Shape)
	for i, v := range vals {
		want := (v - 2) / 4
		require.InDelta(t, want, float64(ds.X[i]), 1e-6*max(1, abs(want)), "value %d", i)
	}
}

func TestNewDatasetErrors(t *testing.T) {
	img := encodeIDX(U8, []int{2, 2, 2}, make([]float64, 8))
	cases := map[string]struct{ images, labels *IDX }{
		"count mismatch":  {img, encodeIDX(U8, []int{3}, []float64{0, 1, 2})},
		"labels rank 2":   {img, encodeIDX(U8, []int{2, 1}, []float64{0, 1})},
		"label too large": {img, encodeIDX(U8, []int{2}, []float64{0, 10})},
		"negative label":  {img, encodeIDX(I8, []int{2}, []float64{0, -1})},
		"float labels":    {img, encodeIDX(F32, []int{2}, []float64{0, 1})},
		"i16 images":      {encodeIDX(I16, []int{2, 4}, make([]float64, 8)), encodeIDX(U8, []int{2}, []float64{0, 1})},
		"no image dims":   {&IDX{Type: U8}, encodeIDX(U8, []int{2}, []float64{0, 1})},
	}
	for name, c := range cases {
		_, err := NewDataset(c.images, c.labels, 10, 0, 1)
		assert.Error(t, err, name)
		t.Logf("%s: %v", name, err)
	}
}

func TestNewDatasetPanicsOnBadArguments(t *testing.T) {
	img := encodeIDX(U8, []int{1, 1}, []float64{0})
	lab := encodeIDX(U8, []int{1}, []float64{0})
	assert.Panics(t, func() { _, _ = NewDataset(img, lab, 10, 0, 0) })
	assert.Panics(t, func() { _, _ = NewDataset(img, lab, 0, 0, 1) })
	assert.Panics(t, func() { WithNormalization(0, -1) })
}

func abs(x float64) float64 {
	if x < 0 {
		return -x
	}
	return x
}
