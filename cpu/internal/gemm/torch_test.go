package gemm

import (
	"encoding/json"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"runtime"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

var torchFlag = flag.String("gemm.torch", "", "python3 with torch: run TestCompareTorch against its torch.mm")

// goGFLOPS times reps products (after one warm-up) and returns the median
// GFLOP/s by wall clock.
func goGFLOPS(m, n, k, reps int) float64 {
	rng := rand.New(rand.NewPCG(1, 2))
	a, b, c := randSlice(rng, m*k), randSlice(rng, k*n), make([]float32, m*n)
	Sgemm(false, false, m, n, k, 1, a, k, b, n, 0, c, n)
	g := make([]float64, reps)
	for i := range g {
		t0 := time.Now()
		Sgemm(false, false, m, n, k, 1, a, k, b, n, 0, c, n)
		g[i] = 2 * float64(m) * float64(n) * float64(k) / time.Since(t0).Seconds() / 1e9
	}
	sort.Float64s(g)
	return g[reps/2]
}

// torchGFLOPS runs testdata/torch_mm.py with OpenBLAS on its AVX-512
// kernels (OPENBLAS_CORETYPE unset) and OPENBLAS_NUM_THREADS=GOMAXPROCS.
func torchGFLOPS(t *testing.T, python string, m, n, k, threads, reps int) float64 {
	cmd := exec.Command(python, "testdata/torch_mm.py", fmt.Sprint(m), fmt.Sprint(n), fmt.Sprint(k), fmt.Sprint(threads), fmt.Sprint(reps))
	var env []string
	for _, e := range os.Environ() {
		if !strings.HasPrefix(e, "OPENBLAS_CORETYPE=") && !strings.HasPrefix(e, "OPENBLAS_NUM_THREADS=") {
			env = append(env, e)
		}
	}
	cmd.Env = append(env, fmt.Sprintf("OPENBLAS_NUM_THREADS=%d", runtime.GOMAXPROCS(0)))
	out, err := cmd.Output()
	require.NoError(t, err, "%s", out)
	var r struct{ GFLOPS float64 }
	require.NoError(t, json.Unmarshal(out, &r), "%s", out)
	return r.GFLOPS
}

// TestCompareTorch alternates Sgemm and torch.mm (1 and 2 torch threads) on
// the benchmark shapes in one run and prints medians and ratios. It runs only
// with -gemm.torch=/usr/bin/python3.
func TestCompareTorch(t *testing.T) {
	if *torchFlag == "" {
		t.Skip("comparison with PyTorch runs with -gemm.torch=/path/to/python3")
	}
	const rounds, reps = 3, 15
	for _, s := range benchShapes {
		var goG, t1, t2 []float64
		for range rounds {
			goG = append(goG, goGFLOPS(s.m, s.n, s.k, reps))
			t1 = append(t1, torchGFLOPS(t, *torchFlag, s.m, s.n, s.k, 1, reps))
			t2 = append(t2, torchGFLOPS(t, *torchFlag, s.m, s.n, s.k, 2, reps))
		}
		g, a, b := median(goG), median(t1), median(t2)
		fmt.Printf("%-20s isa=%s threads=%d: Sgemm %6.1f GFLOP/s; torch.mm 1 thread %6.1f (ratio %.2f), 2 threads %6.1f (ratio %.2f)\n",
			s.name, ISA(), runtime.GOMAXPROCS(0), g, a, g/a, b, g/b)
	}
}

// median returns the median of xs (sorted in place).
func median(xs []float64) float64 {
	sort.Float64s(xs)
	return xs[len(xs)/2]
}
