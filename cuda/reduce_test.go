//go:build cgo && linux

package cuda

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/shaderflow/shaderflow/gpu/gputest"
	"github.com/shaderflow/shaderflow/tensor/device"
)

// TestReduceKernels runs the shared GPU reduction tests (every reduction on
// contiguous and transposed inputs with NaN and infinities mixed in, long
// and short rows, a scalar result, epilogues with broadcast inputs and int32
// results, a fused f16 prologue, empty sums and products) on generated CUDA
// C through the fake driver, where both the serial and the block kernel
// run, then compiles every generated source with clang-19 for sm_80 and
// sm_90.
func TestReduceKernels(t *testing.T) {
	f := buildFake(t, nil, nil)
	d := f.open(t, 1<<20)
	gputest.RunKinds(t, d, "Reduce")
	compiled := f.count(t, "nvrtcCreateProgram reduce.cu") + f.count(t, "nvrtcCreateProgram reduce_block.cu")
	assert.Equal(t, compiled, len(d.programs), "one compilation per signature and kernel")
	assert.Positive(t, f.count(t, "cuLaunchKernel "+rdEntry+" "), "the serial kernel ran")
	assert.Positive(t, f.count(t, "cuLaunchKernel "+rdBlockEntry+" "), "the block kernel ran")
	t.Run("PTX", func(t *testing.T) {
		for _, entry := range []string{rdEntry, rdBlockEntry} {
			compileSourcesToPTX(t, generatedSources(t, f, entry), entry)
		}
	})
}

// TestReducePositionsAndHighRank checks the prologue's and epilogue's
// positions (index ops) and a reduction whose ten output dimensions no
// merging reduces (the host loops over two of them).
func TestReducePositionsAndHighRank(t *testing.T) {
	f := buildFake(t, nil, nil)
	d := f.open(t, 1<<16)
	f32, i32 := device.Float32, device.Int32
	out := []int{2, 2, 2, 2, 2, 2, 2, 2, 2, 2}
	red := []int{3}
	o := device.NumElements(out)
	x := gputest.Upload(t, d, f32, []float64{0.5})
	// A broadcast input (every stride zero) keeps the dimensions apart only
	// if nothing else merges them: the epilogue input is read transposed.
	in := device.View{Buf: x, DType: f32, Shape: append(append([]int{}, out...), red...), Strides: make([]int, 11)}
	estr := make([]int, 10)
	for i, acc := 0, 1; i < 10; i++ {
		estr[i] = acc
		acc *= 2
	}
	evals := make([]float64, o)
	for i := range evals {
		evals[i] = float64(i) // each element holds its own element index
	}
	ev := device.View{Buf: gputest.Upload(t, d, i32, evals), DType: i32, Shape: out, Strides: estr}
	var p device.Builder
	p.Output(p.Binary(device.OpAdd, p.Cast(p.Index(), f32), p.Input(0, f32)))
	var e device.Builder
	e.Output(e.Input(0, f32))
	e.Output(e.Binary(device.OpSub, e.Index(), e.Input(1, i32)))
	res, pos := gputest.Alloc(t, d, int64(4*o)), gputest.Alloc(t, d, int64(4*o))
	k := &device.ReduceKernel{Op: device.ReduceSum, OutShape: out, RedShape: red, Inputs: []device.View{in},
		Prologue: p.P, EpilogueInputs: []device.View{ev}, Epilogue: e.P,
		Outputs: []device.View{device.Contiguous(res, f32, 0, out), device.Contiguous(pos, i32, 0, out)}}
	require.NoError(t, d.Reduce(k))
	sums := gputest.Download(t, d, res, f32, 0, o)
	diffs := gputest.Download(t, d, pos, i32, 0, o)
	for i := 0; i < o; i++ {
		require.Equal(t, float64(3*(3*i)+3)+1.5, sums[i], "output %d: the prologue's positions are 3i, 3i+1, 3i+2", i)
		require.Equal(t, float64(i-ev.Index(i)), diffs[i], "output %d: the epilogue's position minus the transposed input", i)
	}
	assert.Equal(t, 4, f.count(t, "cuLaunchKernel sf_reduce grid=1 block=256 n=256 rank=8"), "%v", f.calls(t))
}

func TestReduceRejectsBadKernels(t *testing.T) {
	f := buildFake(t, nil, nil)
	d := f.open(t, 64)
	other := f.open(t, 64)
	f32 := device.Float32
	mine, theirs := gputest.Alloc(t, d, 16), gputest.Alloc(t, other, 16)
	k := func(in device.Buffer, red int) *device.ReduceKernel {
		return &device.ReduceKernel{Op: device.ReduceMax, OutShape: []int{1}, RedShape: []int{red},
			Inputs: []device.View{device.Contiguous(in, f32, 0, []int{1, red})}, Prologue: device.Identity(f32),
			Epilogue: device.Identity(f32), Outputs: []device.View{device.Contiguous(mine, f32, 0, []int{1})}}
	}
	err := d.Reduce(k(mine, 5))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "outside its buffer")
	err = d.Reduce(k(theirs, 4))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "belongs to another device")
	err = d.Reduce(k(mine, 0))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "has no identity")
	assert.Zero(t, f.count(t, "nvrtcCreateProgram"), "nothing is compiled for a refused kernel")
}
