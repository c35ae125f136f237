//go:build cgo && linux

package cuda

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/shaderflow/shaderflow/gpu/gputest"
	"github.com/shaderflow/shaderflow/tensor/device"
)

// BenchmarkKernelHost measures the host's cost of one small Reduce (a sum
// of each row of [4, 8]) and one small MatMul ([2, 3] by [3, 4]) through
// the test double, which runs the kernels on the host, so the figures
// bound the backend's host cost per call from above; the stream is drained
// every 256 calls with the timer stopped. The "plan" and "hit" cases time
// the Go side alone, without launching: planning the kernel from scratch
// (a cache miss) and its key, look-up and bind (a hit).
func BenchmarkKernelHost(b *testing.B) {
	f := buildFake(b, nil, nil)
	d := f.open(b, 1<<16)
	b.Setenv("SF_FAKE_CUDA_LOG", "")
	d.blasUse = blasNever
	f32 := device.Float32
	x := gputest.Upload(b, d, f32, make([]float64, 32))
	out := gputest.Alloc(b, d, 4*8)
	var pro, epi device.Builder
	pro.Output(pro.Input(0, f32))
	epi.Output(epi.Input(0, f32))
	rk := &device.ReduceKernel{Op: device.ReduceSum, OutShape: []int{4}, RedShape: []int{8},
		Inputs: []device.View{device.Contiguous(x, f32, 0, []int{4, 8})}, Prologue: pro.P, Epilogue: epi.P,
		Outputs: []device.View{device.Contiguous(out, f32, 0, []int{4})}}
	mk := &device.MatMulKernel{M: 2, N: 4, K: 3, A: device.Contiguous(x, f32, 0, []int{2, 3}),
		B: device.Contiguous(x, f32, 0, []int{3, 4}), Epilogue: epi.P,
		Outputs: []device.View{device.Contiguous(out, f32, 0, []int{2, 4})}}
	hit := func(key func() []byte, groups ...[]device.View) error {
		if p := d.plans[string(key())]; p == nil || !d.bind(p, groups...) {
			return errors.New("no plan")
		}
		return nil
	}
	mkAB := []device.View{mk.A, mk.B}
	for _, c := range []struct {
		name string
		run  func() error
	}{
		{"reduce", func() error { return d.Reduce(rk) }},
		{"reduce/plan", func() error { _, err := d.planRd(rk); return err }},
		{"reduce/hit", func() error {
			return hit(func() []byte { return appendRdKey(d.planKey[:0], rk) }, rk.Inputs, rk.EpilogueInputs, rk.Outputs)
		}},
		{"matmul", func() error { return d.MatMul(mk) }},
		{"matmul/plan", func() error { _, err := d.planMm(mk); return err }},
		{"matmul/hit", func() error {
			return hit(func() []byte { return appendMmKey(d.planKey[:0], mk, d.blasUse) }, mkAB, mk.EpilogueInputs, mk.Outputs)
		}},
	} {
		require.NoError(b, c.run())
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				if err := c.run(); err != nil {
					b.Fatal(err)
				}
				if i++; i%256 == 0 {
					b.StopTimer()
					require.NoError(b, d.Sync())
					b.StartTimer()
				}
			}
			require.NoError(b, d.Sync())
		})
	}
}
