package cuda

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/shaderflow/shaderflow/tensor/device"
)

// TestFlatten checks which trailing dimensions merge into one: contiguous
// ones, with size-one dimensions anywhere, and reversed ones keep their
// innermost stride; a transposed pair does not merge.
func TestFlatten(t *testing.T) {
	buf := fakeBuf(1 << 20)
	view := func(shape, strides []int) device.View {
		return device.View{Buf: buf, DType: device.Float32, Shape: shape, Strides: strides, Offset: 5}
	}
	for _, c := range []struct {
		shape, strides []int
		keep           int
		ok             bool
		want           []int // merged shape then strides
	}{
		{[]int{2, 3, 4, 5}, []int{60, 20, 5, 1}, 2, true, []int{2, 3, 20, 60, 20, 1}},
		{[]int{2, 3, 4, 5}, []int{60, 20, 5, 1}, 1, true, []int{2, 60, 60, 1}},
		{[]int{2, 3, 1, 5}, []int{99, 7, 1000, 1}, 1, false, nil},
		{[]int{2, 3, 1, 5}, []int{99, 5, 1000, 1}, 1, true, []int{2, 15, 99, 1}},
		{[]int{2, 4, 5}, []int{40, 1, 4}, 1, false, nil},
		{[]int{2, 4, 5}, []int{0, -5, -1}, 1, true, []int{2, 20, 0, -1}},
		{[]int{2, 1, 1}, []int{9, 3, 3}, 1, true, []int{2, 1, 9, 1}},
	} {
		got, ok := flatten(view(c.shape, c.strides), c.keep)
		assert.Equal(t, c.ok, ok, "%v %v keep %d", c.shape, c.strides, c.keep)
		if ok {
			n := len(got.Shape)
			assert.Equal(t, c.want, append(append([]int{}, got.Shape...), got.Strides...)[:2*n], "%v %v", c.shape, c.strides)
			assert.Equal(t, 5, got.Offset)
		}
	}
}

// TestPlanConvGEMM checks which convolutions run as products: ungrouped
// ones whose operands merge, within the scratch bound; not grouped, empty
// or too large ones.
func TestPlanConvGEMM(t *testing.T) {
	buf := fakeBuf(1 << 30)
	g := device.ConvGeometry{N: 2, C: 3, O: 4, Groups: 1, In: []int{6, 5}, Kernel: []int{3, 3}, Out: []int{6, 5},
		Stride: []int{1, 1}, Padding: []int{1, 1}, Dilation: []int{1, 1}}
	kernel := func(g device.ConvGeometry, mode device.ConvMode) *device.ConvKernel {
		k := &device.ConvKernel{Mode: mode, Geom: g, Epilogue: device.Identity(device.Float32)}
		x := append([]int{g.N, g.C}, g.In...)
		w := append([]int{g.O, g.C / max(g.Groups, 1)}, g.Kernel...)
		y := append([]int{g.N, g.O}, g.Out...)
		a, b := x, w
		switch mode {
		case device.ConvBackwardInput:
			a = y
		case device.ConvBackwardWeight:
			a, b = y, x
		}
		k.A = device.Contiguous(buf, device.Float32, 0, a)
		k.B = device.Contiguous(buf, device.Float32, 0, b)
		k.Outputs = []device.View{device.Contiguous(buf, device.Float32, 0, k.ResultShape())}
		return k
	}
	for _, mode := range []device.ConvMode{device.ConvForward, device.ConvBackwardInput, device.ConvBackwardWeight} {
		p, ok := planConvGEMM(kernel(g, mode), 1<<30)
		assert.True(t, ok, "mode %d", mode)
		assert.Equal(t, int64(2*27*30), p.colsElems)
		_, ok = planConvGEMM(kernel(g, mode), 4*int64(2*27*30)-1)
		assert.False(t, ok, "scratch over the bound, mode %d", mode)
		grouped := g
		grouped.C, grouped.O, grouped.Groups = 4, 4, 2
		_, ok = planConvGEMM(kernel(grouped, mode), 1<<30)
		assert.False(t, ok, "grouped, mode %d", mode)
		empty := g
		empty.N = 0
		_, ok = planConvGEMM(kernel(empty, mode), 1<<30)
		assert.False(t, ok, "empty, mode %d", mode)
	}
	k := kernel(g, device.ConvForward)
	k.B.Strides = []int{1, 36, 12, 4} // W with its output channel innermost: C and the window still merge
	_, ok := planConvGEMM(k, 1<<30)
	assert.True(t, ok)
	k.B.Strides = []int{27, 1, 9, 3} // the channel innermost: C and the window do not merge
	_, ok = planConvGEMM(k, 1<<30)
	assert.False(t, ok)
}
