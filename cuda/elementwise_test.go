//go:build cgo && linux

package cuda

import (
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/shaderflow/shaderflow/gpu/gputest"
	"github.com/shaderflow/shaderflow/tensor/device"
)

// TestElementwiseKernels runs the shared GPU elementwise tests (every op on
// float32 and int32, bool ops, casts, IEEE constants, random numbers, every
// dtype on every layout, a large broadcast) on generated CUDA C that the
// fake NVRTC compiles for the host, then compiles every generated source
// with clang-19 for sm_80 and sm_90.
func TestElementwiseKernels(t *testing.T) {
	f := buildFake(t, nil, nil)
	d := f.open(t, 1<<20)
	gputest.RunKinds(t, d, "Elementwise")
	assert.Equal(t, f.count(t, "nvrtcCreateProgram elementwise.cu"), len(d.programs), "one compilation per signature")
	assert.Zero(t, f.count(t, "illegal address"))
	t.Run("PTX", func(t *testing.T) { compileSourcesToPTX(t, generatedSources(t, f, ewEntry), ewEntry) })
}

// generatedSources returns the files of the distinct sources defining entry
// that the fake NVRTC was given.
func generatedSources(t *testing.T, f *fake, entry string) []string {
	files, err := filepath.Glob(filepath.Join(f.dir, "sffake-*.cu"))
	require.NoError(t, err)
	seen := map[string]bool{}
	var out []string
	for _, p := range files {
		b, err := os.ReadFile(p)
		require.NoError(t, err)
		if s := string(b); strings.Contains(s, " "+entry+"(") && !seen[s] {
			seen[s] = true
			out = append(out, p)
		}
	}
	sort.Strings(out)
	require.NotEmpty(t, out)
	return out
}

// compileSourcesToPTX compiles each source with clang-19 (CUDA without the
// toolkit) for sm_80 and sm_90, many files per run, and checks each PTX has
// the entry point. It skips without clang-19 unless
// SHADERFLOW_REQUIRE_CLANG=1.
func compileSourcesToPTX(t *testing.T, sources []string, entry string) {
	clang := requireClang(t)
	for _, arch := range []string{"sm_80", "sm_90"} {
		dir := t.TempDir()
		var cus []string
		for i, src := range sources {
			cu := filepath.Join(dir, filepath.Base(src))
			b, err := os.ReadFile(src)
			require.NoError(t, err)
			require.NoError(t, os.WriteFile(cu, b, 0o644), "%d", i)
			cus = append(cus, cu)
		}
		args := append(clangCUDAFlags(arch), cus...)
		cmd := exec.Command(clang, args...)
		cmd.Dir = dir
		b, err := cmd.CombinedOutput()
		require.NoError(t, err, "%s: %s", cmd, b)
		for _, cu := range cus {
			ptx, err := os.ReadFile(strings.TrimSuffix(cu, ".cu") + "-cuda-nvptx64-nvidia-cuda-" + arch + ".s")
			require.NoError(t, err)
			assert.Contains(t, string(ptx), ".target "+arch, cu)
			assert.Contains(t, string(ptx), ".visible .entry "+entry+"(", cu)
		}
	}
}

func TestElementwiseSharesModulesAcrossShapes(t *testing.T) {
	f := buildFake(t, nil, nil)
	d := f.open(t, 1<<16)
	f32 := device.Float32
	run := func(shape []int, c float64) []float64 {
		n := device.NumElements(shape)
		vals := make([]float64, n)
		for i := range vals {
			vals[i] = float64(i) - 3
		}
		x := gputest.Upload(t, d, f32, vals)
		out := gputest.Alloc(t, d, int64(4*n))
		var b device.Builder
		b.Output(b.Binary(device.OpMul, b.Input(0, f32), b.Const(c, f32)))
		k := &device.ElementwiseKernel{Shape: shape, Inputs: []device.View{device.Contiguous(x, f32, 0, shape)},
			Program: b.P, Outputs: []device.View{device.Contiguous(out, f32, 0, shape)}}
		require.NoError(t, d.Elementwise(k))
		return gputest.Download(t, d, out, f32, 0, n)
	}
	assert.Equal(t, []float64{-6, -4, -2, 0, 2, 4}, run([]int{2, 3}, 2))
	assert.Equal(t, []float64{1.5, 1, 0.5, 0, -0.5}, run([]int{5}, -0.5))
	assert.Empty(t, run([]int{0, 4}, 3))
	assert.Equal(t, 1, f.count(t, "nvrtcCreateProgram elementwise.cu"), "one module serves every shape and constant")
	assert.Equal(t, 1, f.count(t, "cuLaunchKernel sf_elementwise grid=1 block=256 n=6 rank=1"), "%v", f.calls(t))
	assert.Equal(t, 1, f.count(t, "cuLaunchKernel sf_elementwise grid=1 block=256 n=5 rank=1"))
	assert.Equal(t, 2, f.count(t, "cuLaunchKernel"), "the empty kernel launches nothing")
}

// TestElementwiseHighRankNegativeStrides runs a kernel of ten dimensions
// that no merging reduces (the host loops over two of them) over an input
// stored with its dimensions reversed and read backwards, and checks the
// index op's positions.
func TestElementwiseHighRankNegativeStrides(t *testing.T) {
	f := buildFake(t, nil, nil)
	d := f.open(t, 1<<16)
	f32, i32 := device.Float32, device.Int32
	shape := []int{2, 2, 2, 2, 2, 2, 2, 2, 2, 3}
	n := device.NumElements(shape)
	vals := make([]float64, n)
	for i := range vals {
		vals[i] = float64(i)
	}
	x := gputest.Upload(t, d, f32, vals)
	strides := make([]int, len(shape))
	for i, acc := 0, 1; i < len(shape); i++ {
		strides[i] = -acc
		acc *= shape[i]
	}
	in := device.View{Buf: x, DType: f32, Offset: n - 1, Shape: shape, Strides: strides}
	outF, outI := gputest.Alloc(t, d, int64(4*n+8)), gputest.Alloc(t, d, int64(4*n))
	var b device.Builder
	b.Output(b.Unary(device.OpNeg, b.Input(0, f32)))
	b.Output(b.Index())
	k := &device.ElementwiseKernel{Shape: shape, Inputs: []device.View{in}, Program: b.P,
		Outputs: []device.View{device.Contiguous(outF, f32, 2, shape), device.Contiguous(outI, i32, 0, shape)}}
	require.NoError(t, d.Elementwise(k))
	gotF := gputest.Download(t, d, outF, f32, 2, n)
	gotI := gputest.Download(t, d, outI, i32, 0, n)
	for p := 0; p < n; p++ {
		require.Equal(t, -float64(in.Index(p)), gotF[p], "position %d", p)
		require.Equal(t, float64(p), gotI[p], "position %d", p)
	}
	assert.Equal(t, 4, f.count(t, "cuLaunchKernel sf_elementwise grid=1 block=256 n=384 rank=8"), "%v", f.calls(t))
}

func TestElementwiseRejectsBadKernels(t *testing.T) {
	f := buildFake(t, nil, nil)
	d := f.open(t, 64)
	other := f.open(t, 64)
	f32 := device.Float32
	mine, theirs := gputest.Alloc(t, d, 16), gputest.Alloc(t, other, 16)
	var b device.Builder
	b.Output(b.Unary(device.OpExp, b.Input(0, f32)))
	k := func(in, out device.Buffer, n int) *device.ElementwiseKernel {
		return &device.ElementwiseKernel{Shape: []int{n}, Inputs: []device.View{device.Contiguous(in, f32, 0, []int{n})},
			Program: b.P, Outputs: []device.View{device.Contiguous(out, f32, 0, []int{n})}}
	}
	err := d.Elementwise(k(mine, mine, 5))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "outside its buffer")
	err = d.Elementwise(k(theirs, mine, 4))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "belongs to another device")
	assert.Zero(t, f.count(t, "nvrtcCreateProgram"), "nothing is compiled for a refused kernel")

	t.Setenv("SF_FAKE_NVRTC_FAIL", "compile")
	var ce *CompileError
	require.ErrorAs(t, d.Elementwise(k(mine, mine, 4)), &ce)
	t.Setenv("SF_FAKE_NVRTC_FAIL", "")
	t.Setenv("SF_FAKE_CUDA_FAIL", "cuLaunchKernel=719")
	require.ErrorIs(t, d.Elementwise(k(mine, mine, 4)), device.ErrDeviceLost)
	require.ErrorIs(t, d.Elementwise(k(mine, mine, 4)), device.ErrDeviceLost, "the loss is sticky")
}

// TestFakeCatchesIllegalAccess checks the double itself: a kernel whose
// parameters point outside every allocation fails with an illegal address
// instead of touching host memory.
func TestFakeCatchesIllegalAccess(t *testing.T) {
	f := buildFake(t, nil, nil)
	d := f.open(t, 64)
	f32 := device.Float32
	buf := gputest.Alloc(t, d, 16)
	var b device.Builder
	b.Output(b.Input(0, f32))
	k := &device.ElementwiseKernel{Shape: []int{4}, Inputs: []device.View{device.Contiguous(buf, f32, 0, []int{4})},
		Program: b.P, Outputs: []device.View{device.Contiguous(buf, f32, 0, []int{4})}}
	m, err := d.elementwiseModule(k)
	require.NoError(t, err)
	words, err := planElementwise(k, []uint64{uint64(buf.(*buffer).ptr), uint64(buf.(*buffer).ptr)})
	require.NoError(t, err)
	w := words[0]
	w[ewLayout{nin: 1, nout: 1}.inOff()] = 3 // reads elements 3..6 of a 4-element buffer
	err = d.launchWords(m, w)
	require.ErrorIs(t, err, device.ErrDeviceLost)
	assert.Contains(t, err.Error(), "CUDA_ERROR_ILLEGAL_ADDRESS")
	assert.Equal(t, 1, f.count(t, "illegal address in sf_elementwise"))
}

// TestElementwiseOneDimensionUnrolled runs one-dimensional launches long
// enough for the loop that loads ewUnroll positions a thread before
// storing (with a remainder), over an f16 input with an offset, a float32
// one read backwards, a broadcast int32 one and the position, into
// float32 and bool outputs.
func TestElementwiseOneDimensionUnrolled(t *testing.T) {
	f := buildFake(t, nil, nil)
	d := f.open(t, 1<<18)
	f32, f16, i32, bl := device.Float32, device.Float16, device.Int32, device.Bool
	for _, n := range []int{1030, 4096, 70001} {
		a, c := make([]float64, n+3), make([]float64, n)
		for i := range a {
			a[i] = float64(i%97) - 40
		}
		for i := range c {
			c[i] = float64(i%13) * 0.5
		}
		va := device.View{Buf: gputest.Upload(t, d, f16, a), DType: f16, Shape: []int{n}, Strides: []int{1}, Offset: 3}
		vc := device.View{Buf: gputest.Upload(t, d, f32, c), DType: f32, Shape: []int{n}, Strides: []int{-1}, Offset: n - 1}
		vk := device.View{Buf: gputest.Upload(t, d, i32, []float64{5}), DType: i32, Shape: []int{n}, Strides: []int{0}}
		var b device.Builder
		s := b.Binary(device.OpAdd, b.Binary(device.OpMul, b.Input(0, f16), b.Input(1, f32)), b.Cast(b.Input(2, i32), f32))
		b.Output(b.Binary(device.OpAdd, s, b.Cast(b.Index(), f32)))
		b.Output(b.Binary(device.OpGt, s, b.Const(0, f32)))
		out, gt := gputest.Alloc(t, d, int64(4*n)), gputest.Alloc(t, d, int64(n))
		k := &device.ElementwiseKernel{Shape: []int{n}, Inputs: []device.View{va, vc, vk}, Program: b.P,
			Outputs: []device.View{device.Contiguous(out, f32, 0, []int{n}), device.Contiguous(gt, bl, 0, []int{n})}}
		require.NoError(t, d.Elementwise(k))
		got, gotGt := gputest.Download(t, d, out, f32, 0, n), gputest.Download(t, d, gt, bl, 0, n)
		for i := 0; i < n; i++ {
			v := float64(float32(a[i+3]*c[n-1-i]) + 5)
			require.Equal(t, float64(float32(v+float64(i))), got[i], "n=%d position %d", n, i)
			require.Equal(t, map[bool]float64{true: 1, false: 0}[v > 0], gotGt[i], "n=%d position %d", n, i)
		}
	}
}

// TestElementwiseSeveralDimensionsUnrolled runs launches of two and three
// dimensions (a transposed f16 input, a broadcast row, an offset int32
// view, the position) whose lengths take the 32-bit loop's unrolled steps
// with and without a remainder.
func TestElementwiseSeveralDimensionsUnrolled(t *testing.T) {
	f := buildFake(t, nil, nil)
	d := f.open(t, 1<<18)
	f32, f16, i32 := device.Float32, device.Float16, device.Int32
	for _, shape := range [][]int{{37, 111}, {64, 64}, {3, 7, 301}} {
		n, last := 1, shape[len(shape)-1]
		for _, s := range shape {
			n *= s
		}
		rows := n / last
		a, c, m := make([]float64, n), make([]float64, last), make([]float64, n+5)
		for i := range a {
			a[i] = float64(i%97) - 40
		}
		for i := range c {
			c[i] = float64(i%13) * 0.5
		}
		for i := range m {
			m[i] = float64(i%11) - 5
		}
		// a holds the rows x last matrix transposed: element (r, j) at j*rows + r.
		aStrides, cStrides, mStrides := make([]int, len(shape)), make([]int, len(shape)), make([]int, len(shape))
		aStrides[len(shape)-1], cStrides[len(shape)-1] = rows, 1
		acc, mAcc := 1, 1
		for i := len(shape) - 2; i >= 0; i-- {
			aStrides[i] = acc
			acc *= shape[i]
		}
		for i := len(shape) - 1; i >= 0; i-- {
			mStrides[i] = mAcc
			mAcc *= shape[i]
		}
		va := device.View{Buf: gputest.Upload(t, d, f16, a), DType: f16, Shape: shape, Strides: aStrides}
		vc := device.View{Buf: gputest.Upload(t, d, f32, c), DType: f32, Shape: shape, Strides: cStrides}
		vm := device.View{Buf: gputest.Upload(t, d, i32, m), DType: i32, Shape: shape, Strides: mStrides, Offset: 5}
		var b device.Builder
		s := b.Binary(device.OpAdd, b.Binary(device.OpMul, b.Input(0, f16), b.Input(1, f32)), b.Cast(b.Input(2, i32), f32))
		b.Output(b.Binary(device.OpAdd, s, b.Cast(b.Index(), f32)))
		out := gputest.Alloc(t, d, int64(4*n))
		k := &device.ElementwiseKernel{Shape: shape, Inputs: []device.View{va, vc, vm}, Program: b.P,
			Outputs: []device.View{device.Contiguous(out, f32, 0, shape)}}
		require.NoError(t, d.Elementwise(k))
		got := gputest.Download(t, d, out, f32, 0, n)
		for i := 0; i < n; i++ {
			r, j := i/last, i%last
			v := float64(float32(a[j*rows+r]*c[j]) + float32(m[i+5]))
			require.Equal(t, float64(float32(v+float64(i))), got[i], "shape %v position %d", shape, i)
		}
	}
}
