//go:build cgo && linux

package cuda

import (
	"encoding/binary"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/shaderflow/shaderflow/tensor/device"
)

// upload allocates a buffer holding data.
func upload(t *testing.T, d *Device, data []byte) device.Buffer {
	t.Helper()
	b, err := d.Alloc(int64(len(data)))
	require.NoError(t, err)
	require.NoError(t, d.Write(b, 0, data))
	return b
}

// referenceCopy copies src's view into dst's view element by element.
func referenceCopy(dstBytes, srcBytes []byte, dst, src device.View) {
	e := src.DType.Size()
	for p := 0; p < src.NumElements(); p++ {
		copy(dstBytes[dst.Index(p)*e:][:e], srcBytes[src.Index(p)*e:][:e])
	}
}

func TestCopyStridedViews(t *testing.T) {
	f := buildFake(t, nil, nil)
	d := f.open(t, 256)
	for _, dt := range []device.DType{device.Float32, device.Float16, device.Bool, device.Int32} {
		e := dt.Size()
		srcData := make([]byte, 6*5*e)
		for i := range srcData {
			srcData[i] = byte(i*13 + 1)
		}
		sb := upload(t, d, srcData)
		db := upload(t, d, make([]byte, 2*30*e+3*e))
		// The source read transposed ([5,6] of a row-major [6,5]); the
		// destination every other element from offset 3.
		src := device.View{Buf: sb, DType: dt, Shape: []int{5, 6}, Strides: []int{1, 5}}
		dst := device.View{Buf: db, DType: dt, Offset: 3, Shape: []int{5, 6}, Strides: []int{12, 2}}
		require.NoError(t, d.Copy(&device.CopyKernel{Dst: dst, Src: src}))
		got := make([]byte, db.Bytes())
		require.NoError(t, d.Read(db, 0, got))
		want := make([]byte, db.Bytes())
		referenceCopy(want, srcData, dst, src)
		assert.Equal(t, want, got, "%s", dt)
	}
	assert.Equal(t, 1, f.count(t, "nvrtcCreateProgram copy.cu"), "the module is compiled once and cached")
	assert.Equal(t, 1, f.count(t, "nvrtcCompileProgram --gpu-architecture=sm_90"))
	assert.Equal(t, 4, f.count(t, "cuLaunchKernel sf_copy grid=1 block=256 n=30 rank=2"), "%v", f.calls(t))
}

func TestCopyLargeUsesGridStride(t *testing.T) {
	f := buildFake(t, nil, nil)
	d := f.open(t, 1<<16)
	n := 70000
	data := make([]byte, 4*n)
	for i := 0; i < n; i++ {
		binary.LittleEndian.PutUint32(data[4*i:], uint32(i))
	}
	sb := upload(t, d, data)
	db := upload(t, d, make([]byte, 4*n))
	require.NoError(t, d.Copy(&device.CopyKernel{Dst: device.Contiguous(db, device.Float32, 0, []int{n}), Src: device.Contiguous(sb, device.Float32, 0, []int{n})}))
	got := make([]byte, 4*n)
	require.NoError(t, d.Read(db, 0, got))
	assert.Equal(t, data, got)
	assert.Equal(t, 1, f.count(t, "cuLaunchKernel sf_copy grid=274 block=256 n=70000 rank=1"), "%v", f.calls(t))
}

func TestCopyRejectsBadKernels(t *testing.T) {
	f := buildFake(t, nil, nil)
	d := f.open(t, 64)
	other := f.open(t, 64)
	b := upload(t, d, make([]byte, 16))
	ob := upload(t, other, make([]byte, 16))
	v := func(buf device.Buffer, n int) device.View { return device.Contiguous(buf, device.Float32, 0, []int{n}) }
	assert.ErrorContains(t, d.Copy(&device.CopyKernel{Dst: v(b, 5), Src: v(b, 5)}), "outside its buffer")
	assert.ErrorContains(t, d.Copy(&device.CopyKernel{Dst: v(b, 4), Src: v(ob, 4)}), "another device")
	assert.ErrorContains(t, d.Copy(nil), "nil kernel")
	require.NoError(t, d.Copy(&device.CopyKernel{Dst: v(b, 0), Src: v(b, 0)}))
	assert.Zero(t, f.count(t, "cuLaunchKernel"), "nothing invalid or empty reaches the driver")
}

func TestCopyCompileErrorReturnsLog(t *testing.T) {
	f := buildFake(t, nil, nil)
	t.Setenv("SF_FAKE_NVRTC_FAIL", "compile")
	d := f.open(t, 64)
	b := upload(t, d, make([]byte, 16))
	err := d.Copy(&device.CopyKernel{Dst: device.Contiguous(b, device.Int32, 0, []int{2}), Src: device.Contiguous(b, device.Int32, 2, []int{2})})
	var ce *CompileError
	require.ErrorAs(t, err, &ce)
	assert.Equal(t, "nvrtcCompileProgram", ce.Call)
	assert.Equal(t, "NVRTC_ERROR_COMPILATION", ce.Name)
	assert.Contains(t, err.Error(), `identifier "oops" is undefined`)
	assert.Contains(t, err.Error(), "sm_90")
}

func TestCopyFallsBackToPTX(t *testing.T) {
	f := buildFake(t, nil, nil)
	t.Setenv("SF_FAKE_CUDA_FAIL", "cuModuleLoadData=209*1")
	d := f.open(t, 64)
	b := upload(t, d, []byte{1, 2, 3, 4, 5, 6, 7, 8})
	require.NoError(t, d.Copy(&device.CopyKernel{Dst: device.Contiguous(b, device.Int32, 0, []int{1}), Src: device.Contiguous(b, device.Int32, 1, []int{1})}))
	got := make([]byte, 8)
	require.NoError(t, d.Read(b, 0, got))
	assert.Equal(t, []byte{5, 6, 7, 8, 5, 6, 7, 8}, got)
	assert.Equal(t, 1, f.count(t, "nvrtcCompileProgram --gpu-architecture=compute_90"))
	assert.Equal(t, 1, f.count(t, "cuModuleLoadData SFFAKE compute_90 ptx"))
}

func TestCopyWithoutCubinSupportUsesPTX(t *testing.T) {
	f := buildFake(t, nil, []string{"-DFAKE_NO_CUBIN"})
	d := f.open(t, 64)
	_, err := d.kernel(copySource, "copy.cu", "sf_copy")
	require.NoError(t, err)
	assert.Equal(t, 0, f.count(t, "nvrtcCompileProgram --gpu-architecture=sm_"))
	assert.Equal(t, 1, f.count(t, "cuModuleLoadData SFFAKE compute_90 ptx"))
}

func TestCopyLaunchFailureLosesDevice(t *testing.T) {
	f := buildFake(t, nil, nil)
	d := f.open(t, 64)
	b := upload(t, d, make([]byte, 8))
	t.Setenv("SF_FAKE_CUDA_FAIL", "cuLaunchKernel=719")
	k := &device.CopyKernel{Dst: device.Contiguous(b, device.Int32, 0, []int{1}), Src: device.Contiguous(b, device.Int32, 1, []int{1})}
	err := d.Copy(k)
	require.ErrorIs(t, err, device.ErrDeviceLost)
	assert.Contains(t, err.Error(), "cuLaunchKernel: CUDA_ERROR_LAUNCH_FAILED (719)")
	require.ErrorIs(t, d.Copy(k), device.ErrDeviceLost)
}

func TestCopyParamsLayout(t *testing.T) {
	assert.Equal(t, copyParamBytes, int(copyParamsBytes), "the host struct matches the kernel's 64-bit fields")
}

// TestCopyContiguousTails copies contiguous float32 runs whose lengths and
// offsets take the 16-byte moves with and without a tail, and unaligned
// ones that move an element at a time.
func TestCopyContiguousTails(t *testing.T) {
	f := buildFake(t, nil, nil)
	d := f.open(t, 1<<16)
	const size = 1031
	data := make([]byte, 4*size)
	for i := 0; i < size; i++ {
		binary.LittleEndian.PutUint32(data[4*i:], uint32(i*7+1))
	}
	sb := upload(t, d, data)
	for _, c := range []struct{ n, dstOff, srcOff int }{{1024, 0, 0}, {1027, 4, 0}, {1001, 8, 4}, {1030, 1, 1}, {999, 3, 0}, {3, 0, 0}} {
		db := upload(t, d, make([]byte, 4*size))
		require.NoError(t, d.Copy(&device.CopyKernel{Dst: device.Contiguous(db, device.Float32, c.dstOff, []int{c.n}),
			Src: device.Contiguous(sb, device.Float32, c.srcOff, []int{c.n})}))
		got := make([]byte, 4*size)
		require.NoError(t, d.Read(db, 0, got))
		want := make([]byte, 4*size)
		copy(want[4*c.dstOff:], data[4*c.srcOff:4*(c.srcOff+c.n)])
		assert.Equal(t, want, got, "%+v", c)
	}
}
