//go:build cgo && linux

package cuda

import (
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/shaderflow/shaderflow/gpu/gputest"
	"github.com/shaderflow/shaderflow/tensor/device"
)

// TestHardwareMatMul runs the shared matrix product tests and this
// package's edge cases on CUDA device 0 of the machine's real driver,
// skipping as TestHardwareKernels does, first with cuBLAS where it loads
// for every product it can express, whatever its size (the others use the
// generated kernel) and then with the
// generated kernel alone, and logs each one's speed on a 4096x4096x4096
// product (with the epilogue storing it unchanged).
func TestHardwareMatMul(t *testing.T) {
	d := gputest.Open(t, "cuda").(*Device)
	defer func(p blasPolicy) { d.blasUse = p }(d.blasUse)
	d.blasUse = blasAlways
	for _, path := range []string{"cuBLAS", "Kernel"} {
		t.Run(path, func(t *testing.T) {
			if path == "Kernel" {
				require.NoError(t, d.closeBLAS())
				blasMu.Lock()
				deviceBLAS[d] = &blasHandle{err: errors.New("cuda: cuBLAS turned off by the test")}
				blasMu.Unlock()
			}
			gputest.RunKinds(t, d, "MatMul")
			t.Run("Edges", func(t *testing.T) { testMatMulEdges(t, d) })
			t.Run("Positions", func(t *testing.T) { testMatMulPositions(t, d) })
			t.Run("Speed", func(t *testing.T) { logMatMulSpeed(t, d) })
			t.Logf("cuBLAS: %v (nil: used)", d.blasState())
		})
	}
}

// logMatMulSpeed logs the mean time of five 4096x4096x4096 products.
func logMatMulSpeed(t *testing.T, d *Device) {
	const n = 4096
	f32 := device.Float32
	a, b, c := gputest.Alloc(t, d, 4*n*n), gputest.Alloc(t, d, 4*n*n), gputest.Alloc(t, d, 4*n*n)
	k := &device.MatMulKernel{M: n, N: n, K: n, A: device.Contiguous(a, f32, 0, []int{n, n}),
		B: device.Contiguous(b, f32, 0, []int{n, n}), Epilogue: device.Identity(f32),
		Outputs: []device.View{device.Contiguous(c, f32, 0, []int{n, n})}}
	require.NoError(t, d.MatMul(k)) // compiles the module or makes the handle
	require.NoError(t, d.Sync())
	const runs = 5
	start := time.Now()
	for range runs {
		require.NoError(t, d.MatMul(k))
	}
	require.NoError(t, d.Sync())
	per := time.Since(start) / runs
	t.Logf("%s: %dx%dx%d float32 product in %v: %.1f TFLOP/s", d.Info().Name, n, n, n, per, 2*float64(n)*n*n/per.Seconds()/1e12)
}
