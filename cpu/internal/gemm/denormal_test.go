//go:build !purego

package gemm

import (
	"math"
	"math/rand/v2"
	"runtime"
	"testing"

	"github.com/stretchr/testify/require"
)

// The SIMD kernels flush denormals (FTZ and DAZ) while they run: a float32
// product with 1% denormal inputs ran 2.8 times slower without, all-denormal
// inputs 180 times (measured at the AVX-512 level on the development
// machine), and a trained classifier's softmax gradients reach that range.

// TestKernelsFlushDenormals checks that denormal operands count as zero in
// the SIMD products and that normal operands are unaffected.
func TestKernelsFlushDenormals(t *testing.T) {
	if hwLevel == levelGo {
		t.Skip("the pure-Go kernel keeps IEEE denormals")
	}
	rng := rand.New(rand.NewPCG(5, 6))
	const m, n, k = 37, 70, 50
	for _, l := range supportedLevels() {
		if l == levelGo {
			continue
		}
		t.Run(l.String(), func(t *testing.T) {
			defer setLevel(l)()
			a, b := randSlice(rng, m*k), randSlice(rng, k*n)
			for i := range b { // large enough that unflushed denormal products would show
				b[i] *= 1 << 100
			}
			tiny := make([]float32, m*k) // a with every third row denormal
			copy(tiny, a)
			for i := range tiny {
				if i/k%3 == 0 {
					tiny[i] = math.Float32frombits(uint32(1 + i%1000)) // among the smallest denormals
					a[i] = 0
				}
			}
			want, got := make([]float32, m*n), make([]float32, m*n)
			Sgemm(false, false, m, n, k, 1, a, k, b, n, 0, want, n)
			Sgemm(false, false, m, n, k, 1, tiny, k, b, n, 0, got, n)
			require.Equal(t, want, got, "denormal operands must read as zero")
		})
	}
}

// TestKernelsRestoreFloatMode checks that a product leaves the calling
// thread's floating-point mode as it found it: Go code after it still
// computes denormals.
func TestKernelsRestoreFloatMode(t *testing.T) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	rng := rand.New(rand.NewPCG(7, 8))
	a, b, c := randSlice(rng, 64*64), randSlice(rng, 64*64), make([]float32, 64*64)
	for _, l := range supportedLevels() {
		restore := setLevel(l)
		SgemmThreads(1, false, false, 64, 64, 64, 1, a, 64, b, 64, 0, c, 64)
		restore()
		x := float32(1e-38)
		divisor := float32(len(c)) // not a constant: computed at run time
		require.NotZero(t, x/divisor, "%v: the thread's float mode still flushes after the product", l)
	}
}
