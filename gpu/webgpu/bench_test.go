//go:build cgo

package webgpu

import (
	"testing"

	"github.com/shaderflow/shaderflow/gpu/gputest"
)

// The numbers on lavapipe are CPU numbers (a software Vulkan device).

// BenchmarkKernelOverhead measures a small kernel end to end (host and
// device cost; on lavapipe both are CPU time).
func BenchmarkKernelOverhead(b *testing.B) {
	gputest.BenchKernelOverhead(b, gputest.Open(b, Name))
}

// BenchmarkHostOverhead measures the host cost of recording one small
// elementwise kernel into a batched submission (see gputest.RecordLoop).
func BenchmarkHostOverhead(b *testing.B) {
	gputest.BenchRecordOverhead(b, gputest.Open(b, Name), maxBatchLaunches)
}

func BenchmarkAdd16M(b *testing.B) { gputest.BenchAdd(b, gputest.Open(b, Name), 1<<24) }

func BenchmarkMatMul512(b *testing.B) { gputest.BenchMatMul(b, gputest.Open(b, Name), 512) }

func BenchmarkReduceSum16M(b *testing.B) { gputest.BenchReduceSum(b, gputest.Open(b, Name), 1<<24) }

// BenchmarkConv measures the reference CNN's second convolution in each
// mode (gputest.BenchConv).
func BenchmarkConv(b *testing.B) { gputest.BenchConv(b, gputest.Open(b, Name)) }

// BenchmarkMaxPool measures the reference CNN's first max pooling forward
// and backward (gputest.BenchMaxPool).
func BenchmarkMaxPool(b *testing.B) { gputest.BenchMaxPool(b, gputest.Open(b, Name)) }
