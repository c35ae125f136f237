package cpu

import (
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/shaderflow/shaderflow/internal/workpool"
	"github.com/shaderflow/shaderflow/tensor/device"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestRegisteredAndInfo(t *testing.T) {
	b, ok := device.Lookup("cpu")
	require.True(t, ok, "the cpu backend registers itself")
	infos, err := b.Adapters()
	require.NoError(t, err)
	require.Len(t, infos, 1)
	info := infos[0]
	assert.Equal(t, device.KindCPU, info.Kind)
	assert.Equal(t, "cpu", info.Backend)
	assert.NotEmpty(t, info.Name)
	assert.Positive(t, info.MemoryBytes)
	assert.GreaterOrEqual(t, info.Limits.MaxBuffersPerKernel, 64)
	assert.Equal(t, ISA(), info.Features.SIMD)
	t.Log(info)

	dev, err := b.Open(0)
	require.NoError(t, err)
	require.NoError(t, dev.Close())
	_, err = b.Open(1)
	require.Error(t, err)
}

func TestMemoryLimitAndBufferErrors(t *testing.T) {
	d := New(Config{MemoryLimit: 1000})
	a, err := d.Alloc(600)
	require.NoError(t, err)
	_, err = d.Alloc(600)
	require.True(t, errors.Is(err, device.ErrOutOfMemory), "over the limit: %v", err)
	d.Free(a)
	d.Free(a) // a second free does nothing
	require.Zero(t, d.InUse())
	b, err := d.Alloc(1000)
	require.NoError(t, err)
	require.Zero(t, uintptrOf(b.(*buffer).data)%alignment, "buffers are 64-byte aligned")

	_, err = d.Alloc(-1)
	require.Error(t, err)
	_, err = New(Config{}).Alloc(1 << 62)
	require.True(t, errors.Is(err, device.ErrOutOfMemory), "larger than the host: %v", err)

	require.Error(t, d.Write(b, 999, []byte{1, 2}), "write past the end")
	require.Error(t, d.Read(b, -1, make([]byte, 1)), "negative offset")
	require.NoError(t, d.Write(b, 998, []byte{1, 2}))
	got := make([]byte, 2)
	require.NoError(t, d.Read(b, 998, got))
	require.Equal(t, []byte{1, 2}, got)

	other := New(Config{})
	ob, err := other.Alloc(8)
	require.NoError(t, err)
	require.ErrorContains(t, d.Write(ob, 0, []byte{1}), "another cpu device")
	d.Free(b)
	require.ErrorContains(t, d.Read(b, 0, got), "freed")

	require.NoError(t, d.Close())
	_, err = d.Alloc(8)
	require.ErrorIs(t, err, device.ErrClosed)
	require.ErrorIs(t, d.Sync(), device.ErrClosed)
}

func TestMemoryLimitFromEnvironment(t *testing.T) {
	t.Setenv(MemoryLimitEnv, "100")
	dev, err := Backend{}.Open(0)
	require.NoError(t, err)
	_, err = dev.Alloc(101)
	require.ErrorIs(t, err, device.ErrOutOfMemory)
	t.Setenv(MemoryLimitEnv, "lots")
	_, err = Backend{}.Open(0)
	require.ErrorContains(t, err, MemoryLimitEnv)
}

func TestBadKernelsReturnErrors(t *testing.T) {
	d := newDevice(t, 0)
	buf, err := d.Alloc(64)
	require.NoError(t, err)
	v := device.Contiguous(buf, device.Float32, 0, []int{4, 4})
	outside := device.Contiguous(buf, device.Float32, 1, []int{4, 4})
	var add device.Builder
	add.Output(add.Binary(device.OpAdd, add.Input(0, device.Float32), add.Input(1, device.Float32)))
	badProgram := device.Program{Code: []device.Instr{{Op: device.OpNeg, Type: device.Float32, Args: [3]device.Reg{3}}}, Outputs: []device.Reg{0}}
	foreign := device.Contiguous(New(Config{}).mustAlloc(64), device.Float32, 0, []int{4, 4})

	cases := map[string]error{
		"elementwise wrong shape": ran(d, d.Elementwise(&device.ElementwiseKernel{Shape: []int{4, 4}, Inputs: []device.View{v, device.Contiguous(buf, device.Float32, 0, []int{16})},
			Program: add.P, Outputs: []device.View{v}})),
		"elementwise outside buffer": ran(d, d.Elementwise(&device.ElementwiseKernel{Shape: []int{4, 4}, Inputs: []device.View{v, outside}, Program: add.P, Outputs: []device.View{v}})),
		"elementwise bad program":    ran(d, d.Elementwise(&device.ElementwiseKernel{Shape: []int{4, 4}, Program: badProgram, Outputs: []device.View{v}})),
		"elementwise foreign buffer": ran(d, d.Elementwise(&device.ElementwiseKernel{Shape: []int{4, 4}, Inputs: []device.View{v, foreign}, Program: add.P, Outputs: []device.View{v}})),
		"elementwise nil":            ran(d, d.Elementwise(nil)),
		"reduce bad shape": ran(d, d.Reduce(&device.ReduceKernel{Op: device.ReduceSum, OutShape: []int{4}, RedShape: []int{5}, Inputs: []device.View{v},
			Prologue: device.Identity(device.Float32), Epilogue: device.Identity(device.Float32), Outputs: []device.View{device.Contiguous(buf, device.Float32, 0, []int{4})}})),
		"matmul bad K": ran(d, d.MatMul(&device.MatMulKernel{M: 4, N: 4, K: 3, A: v, B: v, Epilogue: device.Identity(device.Float32), Outputs: []device.View{v}})),
		"conv geometry": ran(d, d.Conv(&device.ConvKernel{Geom: device.ConvGeometry{N: 1, C: 1, O: 1, Groups: 1, In: []int{4}, Kernel: []int{2}, Out: []int{4},
			Stride: []int{1}, Padding: []int{0}, Dilation: []int{1}}, A: v, B: v, Epilogue: device.Identity(device.Float32), Outputs: []device.View{v}})),
		"pool no geometry": ran(d, d.Pool(&device.PoolKernel{X: v, Out: v})),
		"gather axis":      ran(d, d.Gather(&device.GatherKernel{Axis: 5, Src: v, Index: v, Out: v})),
		"scatter index":    ran(d, d.Scatter(&device.ScatterKernel{Dst: v, Index: v, Src: v})),
		"copy dtype":       ran(d, d.Copy(&device.CopyKernel{Dst: device.Contiguous(buf, device.Int32, 0, []int{4, 4}), Src: v})),
		"copy outside":     ran(d, d.Copy(&device.CopyKernel{Dst: outside, Src: v})),
	}
	for name, err := range cases {
		require.Error(t, err, name)
		t.Logf("%s: %v", name, err)
	}
}

// mustAlloc allocates or panics, for test fixtures.
func (d *Device) mustAlloc(n int64) device.Buffer {
	b, err := d.Alloc(n)
	if err != nil {
		panic(err)
	}
	return b
}

func TestParallelForTurnsPanicsIntoErrors(t *testing.T) {
	d := newDevice(t, 3)
	err := d.parallelFor(100, 1, func(w, lo, hi int) {
		if lo == 57 {
			panic("boom")
		}
	})
	require.ErrorContains(t, err, "boom")
	require.ErrorContains(t, safely(func() { panic("inline") }), "inline")
}

func TestParallelForRunsOnTheCallerWhileHelpersAreHeld(t *testing.T) {
	d := newDevice(t, 3)
	defer workpool.Hold(time.Time{})
	workpool.Hold(time.Now().Add(time.Hour))
	var others atomic.Int32
	require.NoError(t, d.parallelFor(40, 1, func(w, lo, hi int) {
		if w != 0 {
			others.Add(1)
		}
		time.Sleep(100 * time.Microsecond) // long enough for offered helpers to join
	}))
	require.Zero(t, others.Load(), "no task may run on a helper")

	workpool.Hold(time.Time{})
	require.NoError(t, d.parallelFor(40, 1, func(w, lo, hi int) {
		if w != 0 {
			others.Add(1)
		}
		time.Sleep(250 * time.Microsecond)
	}))
	require.NotZero(t, others.Load(), "unheld, helpers join")
}
