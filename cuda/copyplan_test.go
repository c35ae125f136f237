package cuda

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/shaderflow/shaderflow/tensor/device"
)

// runPlan executes launches as the kernel does, on element slices.
func runPlan(ls []copyLaunch, dst, src []int) {
	for _, l := range ls {
		for i := int64(0); i < l.N; i++ {
			d, s, rest := l.DstOff, l.SrcOff, i
			for k := len(l.Shape) - 1; k >= 0; k-- {
				x := rest % l.Shape[k]
				rest /= l.Shape[k]
				d += x * l.DstStr[k]
				s += x * l.SrcStr[k]
			}
			dst[d] = src[s]
		}
	}
}

// view is a view on no buffer, for planning.
func view(off int, shape, strides []int) device.View {
	return device.View{DType: device.Float32, Offset: off, Shape: shape, Strides: strides}
}

func TestPlanCopyMergesContiguous(t *testing.T) {
	shape := []int{2, 1, 3, 4}
	ls := planCopy(view(5, shape, device.ContiguousStrides(shape)), view(0, shape, device.ContiguousStrides(shape)))
	require.Len(t, ls, 1)
	assert.Equal(t, copyLaunch{N: 24, Elem: 4, DstOff: 5, Shape: []int64{24}, DstStr: []int64{1}, SrcStr: []int64{1}}, ls[0])
}

func TestPlanCopyEmptyAndScalar(t *testing.T) {
	assert.Empty(t, planCopy(view(0, []int{3, 0}, []int{0, 1}), view(0, []int{3, 0}, []int{0, 1})))
	ls := planCopy(view(2, nil, nil), view(7, nil, nil))
	require.Len(t, ls, 1)
	assert.Equal(t, int64(1), ls[0].N)
	assert.Empty(t, ls[0].Shape)
	dst, src := make([]int, 3), []int{0, 0, 0, 0, 0, 0, 0, 9}
	runPlan(ls, dst, src)
	assert.Equal(t, []int{0, 0, 9}, dst)
}

func TestPlanCopyTransposeAndHighRank(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, rank := range []int{1, 2, 5, 8, 9, 11} {
		shape := make([]int, rank)
		for i := range shape {
			shape[i] = 1 + r.IntN(3)
		}
		n := device.NumElements(shape)
		// The source is a permuted contiguous layout; the destination a
		// strided window (every other element) of a larger buffer.
		perm := r.Perm(rank)
		pshape := make([]int, rank)
		for i, p := range perm {
			pshape[i] = shape[p]
		}
		pst := device.ContiguousStrides(pshape)
		sst := make([]int, rank)
		for i, p := range perm {
			sst[p] = pst[i]
		}
		dst := device.ContiguousStrides(shape)
		for i := range dst {
			dst[i] *= 2
		}
		src := make([]int, n)
		for i := range src {
			src[i] = i + 1
		}
		got := make([]int, 2*n+1)
		ls := planCopy(view(1, shape, dst), view(0, shape, sst))
		for _, l := range ls {
			assert.LessOrEqual(t, len(l.Shape), copyMaxRank)
		}
		runPlan(ls, got, src)
		want := make([]int, 2*n+1)
		sv, dv := view(0, shape, sst), view(1, shape, dst)
		for p := 0; p < n; p++ {
			want[dv.Index(p)] = src[sv.Index(p)]
		}
		assert.Equal(t, want, got, "rank %d", rank)
	}
}
