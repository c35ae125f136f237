package vec

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// benchN is the benchmark size: 10M floats (40 MB per array), far beyond
// the caches.
const benchN = 10_000_000

var benchOps = []struct {
	name  string
	bytes int // bytes moved per element (reads + writes)
	run   func(dst, a, b []float32)
}{
	{"add", 12, func(dst, a, b []float32) { Add(dst, a, b) }},
	{"mul", 12, func(dst, a, b []float32) { Mul(dst, a, b) }},
	{"relu", 8, func(dst, a, _ []float32) { Relu(dst, a) }},
	{"exp", 8, func(dst, a, _ []float32) { Exp(dst, a) }},
	{"tanh", 8, func(dst, a, _ []float32) { Tanh(dst, a) }},
	{"sigmoid", 8, func(dst, a, _ []float32) { Sigmoid(dst, a) }},
	{"gelu", 8, func(dst, a, _ []float32) { GeluErf(dst, a) }},
	{"gelu_tanh", 8, func(dst, a, _ []float32) { GeluTanh(dst, a) }},
	{"gelu_grad", 8, func(dst, a, _ []float32) { GeluErfGrad(dst, a) }},
	{"gelu_tanh_grad", 8, func(dst, a, _ []float32) { GeluTanhGrad(dst, a) }},
	{"silu", 8, func(dst, a, _ []float32) { Silu(dst, a) }},
	{"copy", 8, func(dst, a, _ []float32) { current.copy(dst, a) }},
	{"triad", 12, func(dst, a, b []float32) { current.triad(dst, a, b, 3) }},
}

// BenchmarkKernels runs each kernel on 10M floats at every level, on 1 and
// 2 goroutines (the input split in contiguous halves). Throughput counts the
// bytes each element reads and writes, STREAM style.
func BenchmarkKernels(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 2))
	x, y, dst := make([]float32, benchN), make([]float32, benchN), make([]float32, benchN)
	for i := range x {
		x[i] = 8*r.Float32() - 4
		y[i] = 8*r.Float32() - 4
	}
	for _, op := range benchOps {
		for _, l := range Available() {
			for _, threads := range []int{1, 2} {
				b.Run(fmt.Sprintf("%s/%v/threads=%d", op.name, l, threads), func(b *testing.B) {
					prev := SetLevel(l)
					defer SetLevel(prev)
					b.SetBytes(int64(op.bytes * benchN))
					op.run(dst, x, y) // warm-up: page in dst
					b.ResetTimer()
					for b.Loop() {
						parallel(threads, benchN, func(lo, hi int) { op.run(dst[lo:hi], x[lo:hi], y[lo:hi]) })
					}
				})
			}
		}
	}
}

// BenchmarkBandwidth reports MeasureBandwidth (best-of-passes triad) as a
// custom metric.
func BenchmarkBandwidth(b *testing.B) {
	for _, threads := range []int{1, 2} {
		b.Run(fmt.Sprintf("threads=%d", threads), func(b *testing.B) {
			var g float64
			for b.Loop() {
				g = MeasureBandwidth(threads, 12*benchN)
			}
			b.ReportMetric(g, "GB/s")
		})
	}
}

// BenchmarkKernelsL1 runs each kernel on 4096 floats (L1-resident): the
// compute cost per element, without memory traffic.
func BenchmarkKernelsL1(b *testing.B) {
	const n = 4096
	r := rand.New(rand.NewPCG(1, 2))
	x, y, dst := make([]float32, n), make([]float32, n), make([]float32, n)
	for i := range x {
		x[i] = 8*r.Float32() - 4
		y[i] = 8*r.Float32() - 4
	}
	for _, op := range benchOps {
		for _, l := range Available() {
			b.Run(fmt.Sprintf("%s/%v", op.name, l), func(b *testing.B) {
				prev := SetLevel(l)
				defer SetLevel(prev)
				b.SetBytes(int64(op.bytes * n))
				for b.Loop() {
					op.run(dst, x, y)
				}
			})
		}
	}
}
