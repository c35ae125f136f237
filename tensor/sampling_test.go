package tensor_test

import (
	"errors"
	"math"
	"strconv"
	"testing"

	"github.com/shaderflow/shaderflow/tensor"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// refused reports whether fn panicked with a UsageError.
func refused(fn func()) bool {
	var ue *tensor.UsageError
	return errors.As(tensor.Catch(fn), &ue)
}

// TestLinspaceMatchesTorch compares Linspace with torch.linspace's float32
// values (PyTorch 1.13, CPU), bit for bit.
func TestLinspaceMatchesTorch(t *testing.T) {
	d := openCPU(t)
	for _, c := range []struct {
		start, end float64
		steps      int
		want       []string
	}{
		{0.1, 2.7, 9, []string{"0x1.99999ap-4", "0x1.b33334p-2", "0x1.800002p-1", "0x1.133334p+0", "0x1.666666p+0", "0x1.b9999ap+0", "0x1.066666p+1", "0x1.3p+1", "0x1.59999ap+1"}},
		{-3, 5.5, 10, []string{"-0x1.8p+1", "-0x1.071c72p+1", "-0x1.1c71c8p+0", "-0x1.55556p-3", "0x1.8e38ep-1", "0x1.b8e39p+0", "0x1.555556p+1", "0x1.ce38e4p+1", "0x1.238e38p+2", "0x1.6p+2"}},
		{1, -1, 7, []string{"0x1p+0", "0x1.555554p-1", "0x1.555554p-2", "0x1p-25", "-0x1.555554p-2", "-0x1.555554p-1", "-0x1p+0"}},
		{2.5, 7, 1, []string{"0x1.4p+1"}},
		{2.5, 7, 0, nil},
	} {
		got, err := tensor.Linspace(d, c.start, c.end, c.steps).Float32s()
		require.NoError(t, err)
		require.Len(t, got, len(c.want))
		for i, w := range c.want {
			v, err := strconv.ParseFloat(w, 32)
			require.NoError(t, err)
			assert.Equal(t, float32(v), got[i], "linspace(%g, %g, %d)[%d]", c.start, c.end, c.steps, i)
		}
	}
}

func TestEyeAndRandomMisuse(t *testing.T) {
	d := openCPU(t)
	got, err := tensor.Eye(d, 2, 3).Float32s()
	require.NoError(t, err)
	assert.Equal(t, []float32{1, 0, 0, 0, 1, 0}, got)
	for name, f := range map[string]func(){
		"Eye":                  func() { tensor.Eye(d, -1, 2) },
		"Linspace":             func() { tensor.Linspace(d, 0, 1, -1) },
		"RandInt empty":        func() { tensor.RandInt(d, 3, 3, 2) },
		"RandInt wide":         func() { tensor.RandInt(d, 0, 1<<25, 2) },
		"Multinomial 3-D":      func() { tensor.Multinomial(tensor.Ones(d, 2, 2, 2), 1, true) },
		"Multinomial too many": func() { tensor.Multinomial(tensor.Ones(d, 3), 4, false) },
		"Multinomial zero":     func() { tensor.Multinomial(tensor.Ones(d, 3), 0, true) },
	} {
		assert.True(t, refused(f), name)
	}
}

// TestSamplingSpecials checks Bernoulli's NaN for p outside [0, 1] and
// Multinomial's -1 for rows PyTorch refuses.
func TestSamplingSpecials(t *testing.T) {
	d := openCPU(t)
	b, err := tensor.Bernoulli(tensor.FromFloat32s(d, []float32{0, 1, -0.5, 2, float32(math.NaN())}, 5)).Float32s()
	require.NoError(t, err)
	assert.Equal(t, float32(0), b[0])
	assert.Equal(t, float32(1), b[1])
	for _, v := range b[2:] {
		assert.True(t, math.IsNaN(float64(v)))
	}
	p := tensor.FromFloat32s(d, []float32{3, 1, 0, 2, 0, 0, -1, 1, 1, 0, 0, 0}, 4, 3)
	m, err := tensor.Multinomial(p, 2, false).Int32s()
	require.NoError(t, err)
	assert.ElementsMatch(t, []int32{0, 1}, m[0:2])
	assert.Equal(t, []int32{-1, -1, -1, -1, -1, -1}, m[2:])
	r, err := tensor.Multinomial(p, 3, true).Int32s()
	require.NoError(t, err)
	assert.Equal(t, []int32{0, 0, 0}, r[3:6])
	assert.Equal(t, []int32{-1, -1, -1, -1, -1, -1}, r[6:])
}
