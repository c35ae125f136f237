package pool

import (
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestClassSizeExamples(t *testing.T) {
	cases := []struct{ n, want int64 }{
		{0, 256}, {1, 256}, {256, 256}, {257, 512}, {1000, 1024}, {2048, 2048},
		{2049, 2304}, {4096, 4096}, {4097, 4608}, {1 << 20, 1 << 20}, {1<<20 + 1, 1<<20 + 1<<17},
		{math.MaxInt64, math.MaxInt64},
	}
	for _, c := range cases {
		assert.Equal(t, c.want, ClassSize(c.n), "ClassSize(%d)", c.n)
	}
	assert.PanicsWithValue(t, "pool: ClassSize of negative size", func() { ClassSize(-1) })
}

// TestClassSizeBounds checks, on random sizes across every octave, that a
// class holds the request, is a multiple of MinBlockBytes, wastes less than
// 256 bytes or 12.5%, and never decreases.
func TestClassSizeBounds(t *testing.T) {
	seed := uint64(time.Now().UnixNano())
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(seed, 1))
	for octave := 0; octave < 50; octave++ {
		for range 200 {
			lo := int64(1) << octave
			n := lo + rng.Int64N(lo)
			c := ClassSize(n)
			require.GreaterOrEqual(t, c, n, "seed %d n %d", seed, n)
			require.Zero(t, c%MinBlockBytes, "seed %d n %d class %d", seed, n, c)
			waste := c - n
			require.True(t, waste < MinBlockBytes || float64(waste) < 0.125*float64(n),
				"seed %d n %d class %d wastes %d", seed, n, c, waste)
			require.LessOrEqual(t, ClassSize(n-1), c, "seed %d n %d not monotonic", seed, n)
		}
	}
}

// TestClassesPerOctave counts the distinct classes between 2^k and 2^(k+1).
func TestClassesPerOctave(t *testing.T) {
	for _, k := range []int{12, 20, 33} {
		seen := map[int64]bool{}
		lo := int64(1) << k
		step := lo >> 6 // finer than the class step, so every class is hit
		for n := lo + 1; n <= 2*lo; n += step {
			seen[ClassSize(n)] = true
		}
		assert.Len(t, seen, classesPerOctave, "octave 2^%d", k)
	}
}
