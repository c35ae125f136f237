package gemm

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"testing"
	"time"
)

// benchShapes are the benchmarked products, named m×n×k. "mlp" is a
// 64-sample batch through a 784→128 layer (m=64, k=784, n=128); "mlpT" is
// the shape named 64×784×128 read as m×n×k.
var benchShapes = []struct {
	name    string
	m, n, k int
}{
	{"1024x1024x1024", 1024, 1024, 1024},
	{"512x512x512", 512, 512, 512},
	{"128x128x128", 128, 128, 128},
	{"mlp_m64_k784_n128", 64, 128, 784},
	{"mlpT_m64_n784_k128", 64, 784, 128},
}

func randSlice(rng *rand.Rand, n int) []float32 {
	s := make([]float32, n)
	for i := range s {
		s[i] = float32(rng.Float64()*2 - 1)
	}
	return s
}

// BenchmarkSgemm reports GFLOP/s per level, shape and thread count
// (GOMAXPROCS and 1).
func BenchmarkSgemm(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 2))
	threadCounts := []int{runtime.GOMAXPROCS(0)}
	if threadCounts[0] > 1 {
		threadCounts = append(threadCounts, 1)
	}
	for _, l := range supportedLevels() {
		for _, s := range benchShapes {
			a, bm, c := randSlice(rng, s.m*s.k), randSlice(rng, s.k*s.n), make([]float32, s.m*s.n)
			for _, th := range threadCounts {
				b.Run(fmt.Sprintf("isa=%s/%s/threads=%d", l, s.name, th), func(b *testing.B) {
					defer setLevel(l)()
					SgemmThreads(th, false, false, s.m, s.n, s.k, 1, a, s.k, bm, s.n, 0, c, s.n) // warm-up
					b.ResetTimer()
					for range b.N {
						SgemmThreads(th, false, false, s.m, s.n, s.k, 1, a, s.k, bm, s.n, 0, c, s.n)
					}
					sec := b.Elapsed().Seconds()
					b.ReportMetric(2*float64(s.m)*float64(s.n)*float64(s.k)*float64(b.N)/sec/1e9, "GFLOP/s")
				})
			}
		}
	}
}

// BenchmarkPeak reports the FMA throughput ceiling per level and thread count.
func BenchmarkPeak(b *testing.B) {
	for _, l := range supportedLevels() {
		for _, th := range []int{1, runtime.GOMAXPROCS(0)} {
			b.Run(fmt.Sprintf("isa=%s/threads=%d", l, th), func(b *testing.B) {
				var g float64
				for range b.N {
					g = peakGFLOPS(l, th, 100*time.Millisecond)
				}
				b.ReportMetric(g, "GFLOP/s")
			})
		}
	}
}

// namedShape is a product to measure with its transposes: op(A) is m×k,
// op(B) k×n.
type namedShape struct {
	name           string
	transA, transB bool
	m, n, k        int
}

// lds returns the leading dimensions of A and B stored densely.
func (s namedShape) lds() (lda, ldb int) {
	lda, ldb = s.k, s.n
	if s.transA {
		lda = s.m
	}
	if s.transB {
		ldb = s.k
	}
	return lda, ldb
}

// trainShapes are the products of one step of nn/train's reference models
// (batch 64) and of the demo's GPT (32 sequences of 128 tokens, width 128,
// 4 heads, feed-forward 512, 73 characters; the attention products once per
// sequence and head), named by role, with the transposes the CPU backend
// passes.
var trainShapes = []namedShape{
	{"mlp fc1 fwd x·W1ᵀ", false, true, 64, 128, 784},
	{"mlp fc1 dW1 dYᵀ·x", true, false, 128, 784, 64},
	{"mlp fc2 fwd h·W2ᵀ", false, true, 64, 10, 128},
	{"mlp fc2 dW2", true, false, 10, 128, 64},
	{"mlp fc2 dX", false, false, 64, 128, 10},
	{"cnn conv1 fwd", false, false, 32, 676, 9},
	{"cnn conv1 dW", false, true, 9, 32, 4096},
	{"cnn conv2 fwd", false, false, 64, 484, 288},
	{"cnn conv2 dcol", true, false, 288, 484, 64},
	{"cnn conv2 dW", false, true, 64, 288, 910},
	{"cnn fc1 fwd", false, true, 64, 128, 1600},
	{"cnn fc1 dW", true, false, 128, 1600, 64},
	{"cnn fc1 dX", false, false, 64, 1600, 128},
	{"cnn padded fc1 fwd", false, true, 64, 128, 3136},
	{"cnn padded fc1 dW", true, false, 128, 3136, 64},
	{"cnn padded fc1 dX", false, false, 64, 3136, 128},
	{"gpt qkv fwd", false, true, 4096, 384, 128},
	{"gpt out fwd", false, true, 4096, 128, 128},
	{"gpt ff1 fwd", false, true, 4096, 512, 128},
	{"gpt ff2 fwd", false, true, 4096, 128, 512},
	{"gpt head fwd", false, true, 4096, 73, 128},
	{"gpt scores fwd", false, true, 128, 128, 32},
	{"gpt attnv fwd", false, false, 128, 32, 128},
	{"gpt ff1 dW", true, false, 512, 128, 4096},
	{"gpt ff2 dX", false, false, 4096, 128, 512},
}

// BenchmarkSgemmTrain reports GFLOP/s on the training-step products at the
// active level, on GOMAXPROCS threads and on one.
func BenchmarkSgemmTrain(b *testing.B) {
	rng := rand.New(rand.NewPCG(3, 4))
	threadCounts := []int{runtime.GOMAXPROCS(0)}
	if threadCounts[0] > 1 {
		threadCounts = append(threadCounts, 1)
	}
	for _, s := range trainShapes {
		lda, ldb := s.lds()
		a, bm, c := randSlice(rng, s.m*s.k), randSlice(rng, s.k*s.n), make([]float32, s.m*s.n)
		for _, th := range threadCounts {
			b.Run(fmt.Sprintf("%s/m=%d,n=%d,k=%d/threads=%d", s.name, s.m, s.n, s.k, th), func(b *testing.B) {
				SgemmThreads(th, s.transA, s.transB, s.m, s.n, s.k, 1, a, lda, bm, ldb, 0, c, s.n) // warm-up
				b.ResetTimer()
				for range b.N {
					SgemmThreads(th, s.transA, s.transB, s.m, s.n, s.k, 1, a, lda, bm, ldb, 0, c, s.n)
				}
				b.ReportMetric(2*float64(s.m)*float64(s.n)*float64(s.k)*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
			})
		}
	}
}
