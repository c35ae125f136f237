package conformance

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/shaderflow/shaderflow/tensor"
	"github.com/shaderflow/shaderflow/tensor/conformance/ref"
)

func TestRequired(t *testing.T) {
	for _, c := range []struct {
		env, backend string
		want         bool
	}{
		{"", "cpu", false},
		{"cpu", "cpu", true},
		{"vulkan, cpu", "cpu", true},
		{"vulkan,webgpu", "cpu", false},
		{"all", "webgpu", true},
		{"cpux", "cpu", false},
	} {
		t.Setenv("SHADERFLOW_REQUIRE_BACKENDS", c.env)
		assert.Equal(t, c.want, required(c.backend), "%q requires %s", c.env, c.backend)
	}
}

func TestFusionModes(t *testing.T) {
	t.Setenv("SHADERFLOW_FUSION", "")
	assert.Equal(t, []bool{true, false}, fusionModes())
	t.Setenv("SHADERFLOW_FUSION", "0")
	assert.Equal(t, []bool{false}, fusionModes())
	t.Setenv("SHADERFLOW_FUSION", "1")
	assert.Equal(t, []bool{true}, fusionModes())
}

func TestSuiteSeed(t *testing.T) {
	t.Setenv("SHADERFLOW_SEED", "12345")
	assert.Equal(t, uint64(12345), suiteSeed(t))
	t.Setenv("SHADERFLOW_SEED", "0x10")
	assert.Equal(t, uint64(16), suiteSeed(t))
}

func TestNames(t *testing.T) {
	assert.Equal(t, "scalar", shapeName(nil))
	assert.Equal(t, "3x1x5", shapeName([]int{3, 1, 5}))
	assert.Equal(t, "3x1x5,4x1", shapesName([]int{3, 1, 5}, []int{4, 1}))
	assert.Equal(t, "add:float32:7", caseName("add", "float32", "", "7"))
	assert.Equal(t, "all", axesName(nil))
	assert.Equal(t, "axes=0,-1", axesName([]int{0, -1}))
	// Every case name is unique within its group, so -run selects one case.
	for _, g := range groups() {
		seen := map[string]bool{}
		for _, c := range g.cases {
			assert.False(t, seen[c.name], "group %s repeats case %s", g.name, c.name)
			seen[c.name] = true
		}
	}
}

func TestWithin(t *testing.T) {
	nan := math.NaN()
	ok := func(got, want, bound float64) bool { r, _ := within(got, want, bound); return r }
	assert.True(t, ok(1, 1, 0))
	assert.True(t, ok(1.05, 1, 0.1))
	assert.False(t, ok(1.2, 1, 0.1))
	assert.True(t, ok(nan, nan, 0))
	assert.False(t, ok(nan, 1, 1e9), "a NaN where a number is due fails whatever the bound")
	assert.False(t, ok(1, nan, 1e9))
	assert.True(t, ok(math.Inf(-1), math.Inf(-1), 0))
	assert.False(t, ok(math.Inf(1), 1e38, 1e38), "infinities match exactly")
	assert.False(t, ok(math.MaxFloat32, math.Inf(1), 1e38))
}

func TestMultiIndex(t *testing.T) {
	assert.Equal(t, []int{1, 2, 3}, multiIndex(1*20+2*5+3, []int{4, 4, 5}))
	assert.Equal(t, []int{}, multiIndex(0, nil))
}

func TestTolerances(t *testing.T) {
	assert.Equal(t, exact, exact.forDType(tensor.Float16), "exact stays exact")
	assert.InDelta(t, 1e-3, f32.forDType(tensor.Float16).rel, 1e-12)
	assert.InDelta(t, 8e-3, f32.forDType(tensor.BFloat16).rel, 1e-12)
	assert.Equal(t, f32, f32.forDType(tensor.Float32))
	// A sum of 4 terms of squares 1, 1, 1, 1: scale sqrt(4)*sqrt(4) = 4.
	s := sumTol(1e-5, 4, ref.Scalar(4))
	assert.InDelta(t, 4.0, s.scale.Item(), 1e-12)
	assert.InDelta(t, 1.0, meanTol(1e-5, 4, ref.Scalar(4)).scale.Item(), 1e-12)
	// 1-D by 1-D matmul: k = 3.
	m := matmulTol(ref.New([]float64{1, 1, 1}, 3), ref.New([]float64{2, 2, 2}, 3))
	assert.InDelta(t, math.Sqrt(3)*math.Sqrt(12), m.scale.Item(), 1e-12)
}

func TestLayouts(t *testing.T) {
	shape := []int{3, 4, 5}
	for _, l := range allLayouts {
		assert.True(t, l.ok(shape), l.name)
		base := ref.Arange(0, float64(numElements(l.baseShape(shape))), 1).Reshape(l.baseShape(shape)...)
		v := l.ref(base, shape)
		assert.Equal(t, shape, v.Shape(), l.name)
		if l.name != contiguous.name {
			assert.False(t, v.IsContiguous(), "%s must not be contiguous", l.name)
		}
	}
	names := func(ls []layout) (n []string) {
		for _, l := range ls {
			n = append(n, l.name)
		}
		return n
	}
	assert.Equal(t, []string{"contiguous"}, names(layoutsFor(nil)))
	assert.Len(t, layoutsFor([]int{1, 1}), 3, "no expanded layout without a dimension > 1")
	assert.Len(t, layoutsFor([]int{7}), 3, "no transposed layout for 1-D")
}

func TestGenerators(t *testing.T) {
	e := &env{rng: rand.New(rand.NewPCG(1, 2))}
	for range 1000 {
		v := awayFromZero(e.rng)
		assert.True(t, math.Abs(v) >= 0.5 && math.Abs(v) < 2)
		assert.True(t, math.Abs(farFromKinks(e.rng)) > 0.05)
		assert.NotZero(t, nonzero(-2, 2)(e.rng))
		i := ints(-3, 3)(e.rng)
		assert.True(t, i >= -3 && i <= 3 && i == math.Trunc(i))
	}
	assert.Equal(t, 1.0, round(tensor.Bool, -2))
	assert.Equal(t, float64(float32(0.1)), round(tensor.Float32, 0.1))
	assert.Equal(t, 1.0, round(tensor.Float16, 1+1.0/4096))
}

// TestShardsSplitEveryCaseOnce checks that the shards of a split hold each
// case exactly once and that holdsAny agrees with asking case by case.
func TestShardsSplitEveryCaseOnce(t *testing.T) {
	for n := 1; n <= 5; n++ {
		for k := 0; k < 3*n+2; k++ {
			owners := 0
			for i := 0; i < n; i++ {
				if (shardOf{i, n}).holds(k) {
					owners++
				}
			}
			assert.Equal(t, 1, owners, "case %d in %d shards", k, n)
		}
		for i := 0; i < n; i++ {
			s := shardOf{i, n}
			for first := 0; first < 2*n+1; first++ {
				for count := 0; count < 2*n+1; count++ {
					want := false
					for k := first; k < first+count; k++ {
						want = want || s.holds(k)
					}
					assert.Equal(t, want, s.holdsAny(first, count), "shard %d/%d, cases %d+%d", i, n, first, count)
				}
			}
		}
	}
}
