package gputest

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/shaderflow/shaderflow/tensor/device"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// indexTensor makes an Int32 index of shape with values in [0, n).
func indexTensor(t *testing.T, d device.Device, rng *rand.Rand, shape []int, n int, l Layout) Tensor {
	return Make(t, d, rng, device.Int32, shape, l, func(r *rand.Rand) float64 { return float64(r.IntN(n)) })
}

func testGather(t *testing.T, d device.Device) {
	rng := NewRand(t)
	src := []int{5, 7, 3}
	for _, dt := range []device.DType{device.Float32, device.Float16, device.Int32, device.Bool, device.Uint8, device.Int8} {
		for axis := range src {
			is := slices.Clone(src)
			is[axis] = 4
			is[(axis+1)%3]--
			s := Make(t, d, rng, dt, src, Reversed, Normal(dt))
			ix := indexTensor(t, d, rng, is, src[axis], Offset)
			out := Output(t, d, dt, 1, is)
			what := fmt.Sprintf("gather %s axis %d", dt, axis)
			require.NoError(t, d.Gather(&device.GatherKernel{Axis: axis, Src: s.View, Index: ix.View, Out: out}), what)
			var want []float64
			forEach(is, func(i []int) {
				j := slices.Clone(i)
				j[axis] = int(ix.Values[flat(i, is)])
				want = append(want, s.Values[flat(j, src)])
			})
			Check(t, what, Fetch(t, d, out), want, Exact)
		}
	}
}

func testScatter(t *testing.T, d device.Device) {
	rng := NewRand(t)
	f32 := device.Float32
	dst := []int{6, 5, 4}
	for axis := range dst {
		is := slices.Clone(dst)
		is[axis] = 9 // more updates than slots: collisions
		dv := Make(t, d, rng, f32, dst, Contiguous, Normal(f32))
		ix := indexTensor(t, d, rng, is, dst[axis], Reversed)
		sv := Make(t, d, rng, f32, is, Strided, Normal(f32))
		what := fmt.Sprintf("scatter_add axis %d", axis)
		require.NoError(t, d.Scatter(&device.ScatterKernel{Axis: axis, Dst: dv.View, Index: ix.View, Src: sv.View}), what)
		want := slices.Clone(dv.Values)
		forEach(is, func(i []int) {
			j := slices.Clone(i)
			j[axis] = int(ix.Values[flat(i, is)])
			want[flat(j, dst)] += sv.Values[flat(i, is)]
		})
		Check(t, what, Fetch(t, d, dv.View), want, Tol{Abs: 1e-5, Rel: 1e-5})
	}
}

// testIndexErrors checks that an out-of-range index is an error of the call
// or of the next Sync, and that the device works afterwards.
func testIndexErrors(t *testing.T, d device.Device) {
	rng := NewRand(t)
	f32 := device.Float32
	s := Make(t, d, rng, f32, []int{4, 3}, Contiguous, Normal(f32))
	for _, bad := range []float64{3, -1, 1 << 20} {
		ix := Make(t, d, rng, device.Int32, []int{2, 3}, Contiguous, func(*rand.Rand) float64 { return 1 })
		vals := slices.Clone(ix.Values)
		vals[4] = bad
		require.NoError(t, d.Write(ix.View.Buf, 0, Encode(device.Int32, vals)))
		out := Output(t, d, f32, 0, []int{2, 3})
		err := d.Gather(&device.GatherKernel{Axis: 1, Src: s.View, Index: ix.View, Out: out})
		if err == nil {
			err = d.Sync()
		}
		require.Error(t, err, "gather with index %v", bad)
		assert.Contains(t, err.Error(), "out of range")
		assert.Contains(t, err.Error(), fmt.Sprint(int32(bad)))
		dv := Make(t, d, rng, f32, []int{4, 3}, Contiguous, Normal(f32))
		err = d.Scatter(&device.ScatterKernel{Axis: 1, Dst: dv.View, Index: ix.View, Src: out})
		if err == nil {
			err = d.Sync()
		}
		require.Error(t, err, "scatter with index %v", bad)
		assert.Contains(t, err.Error(), "out of range")
	}
	require.NoError(t, d.Sync(), "the error is reported once")
	ix := indexTensor(t, d, rng, []int{4, 3}, 3, Contiguous)
	out := Output(t, d, f32, 0, []int{4, 3})
	require.NoError(t, d.Gather(&device.GatherKernel{Axis: 1, Src: s.View, Index: ix.View, Out: out}))
	require.NoError(t, d.Sync())
}

func testCopy(t *testing.T, d device.Device) {
	rng := NewRand(t)
	for _, dt := range []device.DType{device.Float32, device.Float16, device.BFloat16, device.Int32, device.Bool, device.Uint8, device.Int8} {
		for _, l := range Layouts {
			shape := []int{5, 3, 7}
			src := Make(t, d, rng, dt, shape, l, WithSpecials(Normal(dt)))
			// Dst: a region of a [5, 4, 9] buffer at offset (0, 1, 2), so
			// that sub-word elements of neighbouring rows share words.
			big := Make(t, d, rng, dt, []int{5, 4, 9}, Contiguous, Normal(dt))
			dst := big.View
			dst.Offset, dst.Shape, dst.Strides = 9+2, shape, []int{36, 9, 1}
			what := fmt.Sprintf("copy %s from %s", dt, l)
			require.NoError(t, d.Copy(&device.CopyKernel{Dst: dst, Src: src.View}), what)
			want := slices.Clone(big.Values)
			for p, v := range src.Values {
				want[dst.Index(p)] = v
			}
			got := Download(t, d, big.View.Buf, dt, 0, len(want))
			// NaN payloads must survive a copy bit for bit: compare stored bits.
			assert.Equal(t, Encode(dt, want), Encode(dt, got), what)
		}
	}
}
