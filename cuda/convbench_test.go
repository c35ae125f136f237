//go:build cgo && linux

package cuda

import (
	"testing"

	"github.com/shaderflow/shaderflow/gpu/gputest"
)

// BenchmarkConvFlops measures the reference CNN's second convolution in
// each mode on CUDA device 0 of the machine's real driver (gputest.BenchConv),
// skipping where there is none.
func BenchmarkConvFlops(b *testing.B) { gputest.BenchConv(b, gputest.Open(b, "cuda")) }

// BenchmarkMaxPool measures max pooling on CUDA device 0 of the machine's
// real driver (gputest.BenchMaxPool), skipping where there is none.
func BenchmarkMaxPool(b *testing.B) { gputest.BenchMaxPool(b, gputest.Open(b, "cuda")) }
