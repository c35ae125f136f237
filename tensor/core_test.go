package tensor_test

import (
	"strings"
	"testing"

	_ "github.com/shaderflow/shaderflow/cpu"
	"github.com/shaderflow/shaderflow/internal/cputime"
	"github.com/shaderflow/shaderflow/tensor"
	"github.com/stretchr/testify/require"
)

func openCPU(t testing.TB) *tensor.Device {
	t.Helper()
	dev, err := tensor.Open("cpu")
	require.NoError(t, err)
	t.Cleanup(func() { _ = dev.Close() })
	return dev
}

func TestOpenUnknownBackendListsAvailable(t *testing.T) {
	_, err := tensor.Open("nosuch")
	require.Error(t, err)
	require.Contains(t, err.Error(), `unknown backend "nosuch"`)
	require.Contains(t, err.Error(), "cpu:0")
	_, err = tensor.Open("cpu:7")
	require.ErrorContains(t, err, "adapter")
	_, err = tensor.Open("cpu:x")
	require.ErrorContains(t, err, "bad adapter index")
}

func TestOpenAutoHonoursEnvironment(t *testing.T) {
	t.Setenv("SHADERFLOW_BACKEND", "cpu")
	dev, err := tensor.Open("auto")
	require.NoError(t, err)
	defer dev.Close()
	require.Equal(t, "cpu", dev.Info().Backend)
}

func TestBackendsListsCPU(t *testing.T) {
	var found bool
	for _, b := range tensor.Backends() {
		if b.Name == "cpu" {
			found = true
			require.True(t, b.Available, b.Reason)
			require.NotEmpty(t, b.Adapters)
		}
	}
	require.True(t, found)
}

// kernels realizes y and returns how many kernels that launched.
func kernels(t *testing.T, dev *tensor.Device, y *tensor.Tensor) int {
	t.Helper()
	dev.ResetFusionStats()
	_, err := y.Float32s()
	require.NoError(t, err)
	return dev.FusionStats().Kernels
}

func TestFusionKernelCounts(t *testing.T) {
	dev := openCPU(t)
	x := tensor.Randn(dev, 33, 65)
	w := tensor.Randn(dev, 65, 17)
	b := tensor.Randn(dev, 17)
	img := tensor.Randn(dev, 2, 3, 9, 9)
	k := tensor.Randn(dev, 4, 3, 3, 3)
	mean, vr := tensor.Randn(dev, 4), tensor.Rand(dev, 4)
	require.NoError(t, tensor.Realize(x, w, b, img, k, mean, vr))

	cases := []struct {
		name      string
		y         func() *tensor.Tensor
		fused     int
		unfusedGE int
	}{
		{"chain of 4 elementwise", func() *tensor.Tensor { return x.MulScalar(2).AddScalar(1).Tanh().Relu() }, 1, 4},
		{"mul→add (fma)", func() *tensor.Tensor { return x.Mul(x).Add(x) }, 1, 2},
		{"add→relu", func() *tensor.Tensor { return x.Add(x).Relu() }, 1, 2},
		{"linear→relu", func() *tensor.Tensor { return x.MatMul(w).Add(b).Relu() }, 1, 3},
		{"matmul→add", func() *tensor.Tensor { return x.MatMul(w).Add(b) }, 1, 2},
		{"sum of exp", func() *tensor.Tensor { return x.Exp().Sum(1) }, 1, 2},
		{"mish (composed)", func() *tensor.Tensor { return x.Mish() }, 1, 3},
		{"conv→batchnorm→relu", func() *tensor.Tensor {
			return img.Conv2d(k, nil, tensor.ConvOptions{Padding: []int{1}}).
				BatchNorm(mean, vr.AddScalar(0.5), nil, nil, false, 0.1, 1e-5).Relu()
		}, 1, 4},
		{"batchnorm→relu", func() *tensor.Tensor {
			return img.BatchNorm(mean.Narrow(0, 0, 3), vr.Narrow(0, 0, 3), nil, nil, false, 0.1, 1e-5).Relu()
		}, 1, 3},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			fused := c.y()
			want, err := fused.Float32s()
			require.NoError(t, err)
			require.Equal(t, c.fused, kernels(t, dev, c.y()), "fused kernels")
			prev := tensor.SetFusion(false)
			defer tensor.SetFusion(prev)
			unfused := c.y()
			require.GreaterOrEqual(t, kernels(t, dev, unfused), c.unfusedGE, "unfused kernels")
			got, err := unfused.Float32s()
			require.NoError(t, err)
			require.InDeltaSlice(t, want, got, 1e-4)
		})
	}
}

func TestFusionReportNamesOps(t *testing.T) {
	dev := openCPU(t)
	dev.SetFusionReport(true)
	x := tensor.Randn(dev, 8, 8)
	_, err := x.Exp().MulScalar(3).Sum().Float32s()
	require.NoError(t, err)
	var sb strings.Builder
	require.NoError(t, dev.WriteFusionReport(&sb))
	require.Contains(t, sb.String(), "exp")
	require.Contains(t, sb.String(), "sum")
}

func TestPoolFlatOver10000Iterations(t *testing.T) {
	dev := openCPU(t)
	x := tensor.Randn(dev, 16, 32)
	w := tensor.Randn(dev, 32, 8)
	require.NoError(t, tensor.Realize(x, w))
	step := func() {
		dev.Scope(func() {
			y := x.MatMul(w).Relu().Softmax(-1).Sum()
			_, err := y.Item()
			require.NoError(t, err)
		})
	}
	for range 100 {
		step()
	}
	before := dev.PoolStats()
	for range 10000 {
		step()
	}
	after := dev.PoolStats()
	require.Equal(t, before.BytesInUse, after.BytesInUse, "bytes in use must not grow")
	require.Equal(t, before.ReservedBytes, after.ReservedBytes, "reserved bytes must not grow")
	require.Equal(t, before.DeviceAllocs, after.DeviceAllocs, "no new device allocations after warm-up")
	require.Greater(t, after.Reuses, before.Reuses)
}

func TestCatchTurnsUsagePanicsIntoErrors(t *testing.T) {
	dev := openCPU(t)
	a, b := tensor.Zeros(dev, 2, 3), tensor.Zeros(dev, 4, 5)
	err := tensor.Catch(func() { a.Add(b) })
	require.ErrorContains(t, err, "tensor.Add")
	require.ErrorContains(t, err, "[2 3]")
	require.ErrorContains(t, err, "[4 5]")
	err = tensor.Catch(func() { a.Sum(5) })
	require.ErrorContains(t, err, "axis 5 out of range")
	err = tensor.Catch(func() { tensor.Zeros(dev, 0, 3).Max(0) })
	require.ErrorContains(t, err, "empty")
	require.NoError(t, tensor.Catch(func() { a.Add(a) }))
}

func TestReleasedTensorPanicsClearly(t *testing.T) {
	dev := openCPU(t)
	a := tensor.Ones(dev, 3)
	a.Release()
	require.ErrorContains(t, tensor.Catch(func() { a.Neg() }), "after Release")
}

func TestGatherOutOfRangeIsAnError(t *testing.T) {
	dev := openCPU(t)
	x := tensor.Randn(dev, 4, 3)
	idx := tensor.FromInt32s(dev, []int32{0, 7}, 2)
	_, err := x.IndexSelect(0, idx).Float32s()
	require.Error(t, err)
}

// BenchmarkTinyOp measures one 100-element op recorded, realized and read
// back on the CPU: the per-op overhead of the front end.
func BenchmarkTinyOp(b *testing.B) {
	dev := openCPU(b)
	x := tensor.Randn(dev, 100)
	require.NoError(b, x.Realize())
	b.ReportAllocs()
	start := processCPUTime()
	for b.Loop() {
		y := x.MulScalar(2)
		if _, err := y.Float32s(); err != nil {
			b.Fatal(err)
		}
		y.Release()
	}
	// On a shared machine wall time includes waiting for a core; CPU time
	// consumed by the process (GC included) per op is reported beside it.
	b.ReportMetric(float64(processCPUTime()-start)/float64(b.N), "cpu-ns/op")
}

// BenchmarkTinyOpScoped is BenchmarkTinyOp inside a Device.Scope per
// iteration, as a training loop runs: the scope releases the tensors, so no
// garbage-collector cleanup is attached to them.
func BenchmarkTinyOpScoped(b *testing.B) {
	dev := openCPU(b)
	x := tensor.Randn(dev, 100)
	require.NoError(b, x.Realize())
	b.ReportAllocs()
	start := processCPUTime()
	for b.Loop() {
		dev.Scope(func() {
			if _, err := x.MulScalar(2).Float32s(); err != nil {
				b.Fatal(err)
			}
		})
	}
	b.ReportMetric(float64(processCPUTime()-start)/float64(b.N), "cpu-ns/op")
}

func TestRealizeSeveralResultsInOneKernel(t *testing.T) {
	dev := openCPU(t)
	p := tensor.Randn(dev, 7, 9)
	g := tensor.Randn(dev, 7, 9)
	m := tensor.Zeros(dev, 7, 9)
	require.NoError(t, tensor.Realize(p, g))
	// One momentum-SGD step: m' = 0.9 m + g; p' = p - 0.1 m'.
	m2 := m.MulScalar(0.9).Add(g)
	p2 := p.Sub(m2.MulScalar(0.1))
	dev.ResetFusionStats()
	require.NoError(t, tensor.Realize(p2, m2))
	require.Equal(t, 1, dev.FusionStats().Kernels)
	pv, _ := p.Float32s()
	gv, _ := g.Float32s()
	got, err := p2.Float32s()
	require.NoError(t, err)
	for i := range pv {
		require.InDelta(t, pv[i]-0.1*gv[i], got[i], 1e-5)
	}
	require.Equal(t, 0, dev.FusionStats().Kernels-1, "reading realized results launches nothing")
}

// processCPUTime returns the user+system CPU time of the process in ns
// (zero where the system does not report it).
func processCPUTime() int64 {
	d, _ := cputime.Process()
	return int64(d)
}
