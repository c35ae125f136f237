//go:build cgo && linux

package cuda

import (
	"fmt"
	"math"
	"os"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/shaderflow/shaderflow/gpu/gputest"
	"github.com/shaderflow/shaderflow/tensor/device"
)

// TestMatMulKernels runs the shared GPU matrix product tests (edge tiles,
// reversed, offset, strided and broadcast operands, K=0, a fused
// epilogue with a broadcast bias and two outputs) on the generated tiled
// kernel through the fake driver, whose blocks run their threads as
// coroutines meeting at each __syncthreads, then compiles every generated
// source with clang-19 for sm_80 and sm_90.
func TestMatMulKernels(t *testing.T) {
	f := buildFake(t, nil, nil)
	d := f.open(t, 1<<20)
	d.blasUse = blasAlways // every product tries cuBLAS first, which the double refuses
	gputest.RunKinds(t, d, "MatMul")
	require.ErrorContains(t, d.blasState(), "not the driver the backend loaded", "no real cuBLAS under the double")
	assert.Equal(t, f.count(t, "nvrtcCreateProgram matmul.cu"), len(d.programs), "one compilation per signature")
	assert.Zero(t, f.count(t, "illegal address"))
	t.Run("Edges", func(t *testing.T) { testMatMulEdges(t, d) })
	assert.Equal(t, 1, f.count(t, "cuLaunchKernel sf_matmul grid=7 block=256 n=300 rank=1"), "7 blocks loop over 300 tiles")
	assert.Equal(t, 2, f.count(t, "cuLaunchKernel sf_matmul grid=256 block=256 n=256 rank=8"), "the host loops over one of 9 batch dimensions")
	t.Run("Positions", func(t *testing.T) { testMatMulPositions(t, d) })
	assert.Zero(t, f.count(t, "illegal address"))
	t.Run("PTX", func(t *testing.T) { compileSourcesToPTX(t, generatedSources(t, f, mmEntry), mmEntry) })
}

// TestMatMulLargeTiles runs the shared matrix product tests and the edge
// and position cases with every product on the 128x128 tiling (8x8
// elements a thread), which real products take only from mmLargeTiles
// tiles up, too large for the double; then compiles its sources to PTX.
func TestMatMulLargeTiles(t *testing.T) {
	defer func(n int) { mmLargeTiles = n }(mmLargeTiles)
	mmLargeTiles = 1
	f := buildFake(t, nil, nil)
	d := f.open(t, 1<<20)
	gputest.RunKinds(t, d, "MatMul")
	t.Run("Edges", func(t *testing.T) { testMatMulEdges(t, d) })
	t.Run("Positions", func(t *testing.T) { testMatMulPositions(t, d) })
	assert.Zero(t, f.count(t, "illegal address"))
	srcs := generatedSources(t, f, mmEntry)
	for _, s := range srcs {
		text, err := os.ReadFile(s)
		require.NoError(t, err)
		require.Contains(t, string(text), "#define SF_MM_BM 128\n", "every product on the large tiling")
	}
	t.Run("PTX", func(t *testing.T) { compileSourcesToPTX(t, srcs, mmEntry) })
}

// mmOperand is a strided float32 operand: its view over a buffer holding
// data, and its logical values, row-major over the view's shape.
type mmOperand struct {
	view   device.View
	values []float64
}

// makeOperand uploads a buffer of random values and views shape through it
// as layout says: "row" (row-major), "trans" (its last two dimensions
// stored transposed), "neg" (every dimension reversed: negative strides),
// "bcast" (the first dimension broadcast with stride zero) or "perm" (the
// batch dimensions stored in reverse order, so none merge with another
// operand's).
func makeOperand(t *testing.T, d device.Device, rng func() float64, shape []int, layout string) mmOperand {
	n := device.NumElements(shape)
	r := len(shape)
	stored := slices.Clone(shape)
	if layout == "bcast" {
		stored[0] = 1
	}
	if layout == "trans" {
		stored[r-2], stored[r-1] = stored[r-1], stored[r-2]
	}
	if layout == "perm" {
		slices.Reverse(stored[:r-2])
	}
	data := make([]float64, device.NumElements(stored)+3)
	for i := range data {
		data[i] = rng()
	}
	buf := gputest.Upload(t, d, device.Float32, data)
	st := device.ContiguousStrides(stored)
	v := device.View{Buf: buf, DType: device.Float32, Shape: slices.Clone(shape), Strides: slices.Clone(st), Offset: 3}
	switch layout {
	case "trans":
		v.Strides[r-2], v.Strides[r-1] = st[r-1], st[r-2]
	case "neg":
		v.Offset = 3 + device.NumElements(stored) - 1
		for i := range v.Strides {
			v.Strides[i] = -st[i]
		}
	case "bcast":
		v.Strides[0] = 0
	case "perm":
		for i := 0; i < r-2; i++ {
			v.Strides[i] = st[r-3-i]
		}
	}
	vals := make([]float64, n)
	for i := range vals {
		vals[i] = float64(float32(data[v.Index(i)]))
	}
	return mmOperand{v, vals}
}

// mmWant is the float64 product of a (Batch ++ [m, k]) and b (Batch ++
// [k, n]), row-major over Batch ++ [m, n].
func mmWant(a, b mmOperand, batch, m, n, k int) []float64 {
	out := make([]float64, 0, batch*m*n)
	for bi := 0; bi < batch; bi++ {
		for i := 0; i < m; i++ {
			for j := 0; j < n; j++ {
				s := 0.0
				for q := 0; q < k; q++ {
					s += a.values[(bi*m+i)*k+q] * b.values[(bi*k+q)*n+j]
				}
				out = append(out, s)
			}
		}
	}
	return out
}

// testMatMulEdges checks products whose sizes leave partial tiles along
// every dimension, M or N or K of one, K=0 (the epilogue sees 0), a
// broadcast batch (with cuBLAS on a GPU, a batch stride of 0), transposed
// and reversed (negative-stride) operands, a
// batch of 300 small products on a grid capped at 7 blocks (each block
// loops over tiles), and nine batch dimensions that do not merge (the host
// loops over the first), each with a fused epilogue: 2·AB - bias, stored as float32 and
// as float16.
func testMatMulEdges(t *testing.T, d *Device) {
	seed := uint64(7)
	rng := func() float64 {
		seed = seed*6364136223846793005 + 1442695040888963407
		return float64(int64(seed>>40)%2001-1000) / 500
	}
	f32, f16 := device.Float32, device.Float16
	cases := []struct {
		batch   []int
		m, n, k int
		la, lb  string
		grid    int // the device's grid limit, if lowered
	}{
		{nil, 1, 1, 1, "row", "row", 0},
		{nil, 1, 130, 17, "row", "trans", 0},
		{nil, 67, 1, 33, "trans", "row", 0},
		{nil, 65, 129, 31, "trans", "trans", 0},
		{nil, 70, 66, 0, "row", "row", 0},
		{nil, 5, 3, 1, "neg", "neg", 0},
		{[]int{3}, 33, 20, 50, "bcast", "neg", 0},
		{[]int{2, 2}, 19, 71, 18, "neg", "bcast", 0},
		{[]int{3}, 40, 20, 50, "bcast", "row", 0},
		{[]int{2, 3}, 19, 71, 18, "trans", "bcast", 0},
		{[]int{300}, 2, 3, 5, "row", "trans", 7},
		{[]int{2, 2, 2, 2, 2, 2, 2, 2, 2}, 2, 3, 2, "perm", "row", 0},
	}
	for _, c := range cases {
		what := fmt.Sprintf("batch %v M=%d N=%d K=%d A %s B %s", c.batch, c.m, c.n, c.k, c.la, c.lb)
		a := makeOperand(t, d, rng, slices.Concat(c.batch, []int{c.m, c.k}), c.la)
		b := makeOperand(t, d, rng, slices.Concat(c.batch, []int{c.k, c.n}), c.lb)
		res := slices.Concat(c.batch, []int{c.m, c.n})
		bias := makeOperand(t, d, rng, res, "neg")
		var e device.Builder
		x := e.Binary(device.OpSub, e.Binary(device.OpMul, e.Input(0, f32), e.Const(2, f32)), e.Input(1, f32))
		e.Output(x)
		e.Output(x)
		nr := device.NumElements(res)
		o32, o16 := gputest.Upload(t, d, f32, make([]float64, nr+1)), gputest.Upload(t, d, f16, make([]float64, nr+1))
		k := &device.MatMulKernel{Batch: c.batch, M: c.m, N: c.n, K: c.k, A: a.view, B: b.view,
			EpilogueInputs: []device.View{bias.view}, Epilogue: e.P,
			Outputs: []device.View{device.Contiguous(o32, f32, 1, res), device.Contiguous(o16, f16, 1, res)}}
		limit := d.info.Limits.MaxWorkgroups[0]
		if c.grid > 0 {
			d.info.Limits.MaxWorkgroups[0] = c.grid
		}
		err := d.MatMul(k)
		d.info.Limits.MaxWorkgroups[0] = limit
		require.NoError(t, err, what)
		got32 := gputest.Download(t, d, o32, f32, 1, nr)
		got16 := gputest.Download(t, d, o16, f16, 1, nr)
		want := mmWant(a, b, device.NumElements(c.batch), c.m, c.n, c.k)
		for i, w := range want {
			v := float64(float32(2*float64(float32(w)) - bias.values[i]))
			require.InDelta(t, v, got32[i], 1e-5*float64(c.k+1), "%s: element %d", what, i)
			require.InDelta(t, v, got16[i], math.Abs(v)/1000+1e-5*float64(c.k+1), "%s: element %d as float16", what, i)
		}
		require.Equal(t, []float64{0}, gputest.Download(t, d, o32, f32, 0, 1), "%s: nothing stored before the output", what)
	}
}

// testMatMulPositions checks the epilogue's position (an index op) and an
// int32 output across a batch of two 70x70 products (partial tiles), and
// that an empty product launches nothing and fails nothing.
func testMatMulPositions(t *testing.T, d device.Device) {
	f32, i32 := device.Float32, device.Int32
	batch, m, n, k := 2, 70, 70, 3
	one := gputest.Upload(t, d, f32, []float64{1})
	zeros := func(shape ...int) device.View {
		return device.View{Buf: one, DType: f32, Shape: shape, Strides: make([]int, len(shape))}
	}
	var e device.Builder
	e.Output(e.Binary(device.OpAdd, e.Index(), e.Cast(e.Input(0, f32), i32)))
	out := gputest.Alloc(t, d, int64(4*batch*m*n))
	kern := &device.MatMulKernel{Batch: []int{batch}, M: m, N: n, K: k, A: zeros(batch, m, k), B: zeros(batch, k, n),
		Epilogue: e.P, Outputs: []device.View{device.Contiguous(out, i32, 0, []int{batch, m, n})}}
	require.NoError(t, d.MatMul(kern))
	got := gputest.Download(t, d, out, i32, 0, batch*m*n)
	for i, v := range got {
		require.Equal(t, float64(i+k), v, "element %d: its position plus the dot product %d", i, k)
	}
	kern.M, kern.A, kern.Outputs[0] = 0, zeros(batch, 0, k), device.Contiguous(out, i32, 0, []int{batch, 0, n})
	require.NoError(t, d.MatMul(kern))
}

// TestMatMulRejectsBadKernels checks that an invalid product or one with a
// buffer of another device is refused before anything is compiled.
func TestMatMulRejectsBadKernels(t *testing.T) {
	f := buildFake(t, nil, nil)
	d := f.open(t, 64)
	other := f.open(t, 64)
	f32 := device.Float32
	mine, theirs := gputest.Alloc(t, d, 64), gputest.Alloc(t, other, 64)
	k := func(a device.Buffer, m int) *device.MatMulKernel {
		return &device.MatMulKernel{M: m, N: 2, K: 2, A: device.Contiguous(a, f32, 0, []int{m, 2}),
			B: device.Contiguous(mine, f32, 0, []int{2, 2}), Epilogue: device.Identity(f32),
			Outputs: []device.View{device.Contiguous(mine, f32, 0, []int{m, 2})}}
	}
	err := d.MatMul(k(mine, 9))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "outside its buffer")
	err = d.MatMul(k(theirs, 2))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "belongs to another device")
	assert.Zero(t, f.count(t, "nvrtcCreateProgram"), "nothing is compiled for a refused kernel")
}
