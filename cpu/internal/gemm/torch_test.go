package gemm

import (
	"bufio"
	"bytes"
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

// timing is a median and a best GFLOP/s.
type timing struct{ median, best float64 }

// goTiming times reps products (after one warm-up) by wall clock.
func goTiming(m, n, k, reps int) timing {
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
	return timing{g[reps/2], g[reps-1]}
}

// torchTimings runs testdata/torch_mm.py on every benchmark shape, with
// OpenBLAS on its AVX-512 kernels (OPENBLAS_CORETYPE unset) and
// OPENBLAS_NUM_THREADS=GOMAXPROCS.
func torchTimings(t *testing.T, python string, threads, reps int) []timing {
	args := []string{"testdata/torch_mm.py", fmt.Sprint(threads), fmt.Sprint(reps)}
	for _, s := range benchShapes {
		args = append(args, fmt.Sprintf("%d,%d,%d", s.m, s.n, s.k))
	}
	cmd := exec.Command(python, args...)
	var env []string
	for _, e := range os.Environ() {
		if !strings.HasPrefix(e, "OPENBLAS_CORETYPE=") && !strings.HasPrefix(e, "OPENBLAS_NUM_THREADS=") {
			env = append(env, e)
		}
	}
	cmd.Env = append(env, fmt.Sprintf("OPENBLAS_NUM_THREADS=%d", runtime.GOMAXPROCS(0)))
	out, err := cmd.Output()
	require.NoError(t, err, "%s", out)
	var ts []timing
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		var r struct{ GFLOPS, Best_GFLOPS float64 }
		require.NoError(t, json.Unmarshal(sc.Bytes(), &r), "%s", sc.Bytes())
		ts = append(ts, timing{r.GFLOPS, r.Best_GFLOPS})
	}
	require.Len(t, ts, len(benchShapes), "%s", out)
	return ts
}

// TestCompareTorch alternates Sgemm and torch.mm (1 and 2 torch threads) on
// the benchmark shapes in one run and prints, per shape, the median over
// rounds of each round's median, the best repetition seen, and the ratios.
// It runs only with -gemm.torch=/usr/bin/python3.
func TestCompareTorch(t *testing.T) {
	if *torchFlag == "" {
		t.Skip("comparison with PyTorch runs with -gemm.torch=/path/to/python3")
	}
	const rounds, reps = 3, 25
	n := len(benchShapes)
	goT, t1, t2 := make([][]timing, n), make([][]timing, n), make([][]timing, n)
	for range rounds {
		for i, s := range benchShapes {
			goT[i] = append(goT[i], goTiming(s.m, s.n, s.k, reps))
		}
		for i, tm := range torchTimings(t, *torchFlag, 1, reps) {
			t1[i] = append(t1[i], tm)
		}
		for i, tm := range torchTimings(t, *torchFlag, 2, reps) {
			t2[i] = append(t2[i], tm)
		}
	}
	summarize := func(ts []timing) timing {
		var med []float64
		best := 0.0
		for _, x := range ts {
			med = append(med, x.median)
			best = max(best, x.best)
		}
		return timing{median(med), best}
	}
	for i, s := range benchShapes {
		g, a, b := summarize(goT[i]), summarize(t1[i]), summarize(t2[i])
		fmt.Printf("%-20s Sgemm(%s, %d threads) median %6.1f best %6.1f | torch 1 thread median %6.1f best %6.1f | torch 2 threads median %6.1f best %6.1f | ratio of medians %.2f / %.2f, of bests %.2f / %.2f\n",
			s.name, ISA(), runtime.GOMAXPROCS(0), g.median, g.best, a.median, a.best, b.median, b.best,
			g.median/a.median, g.median/b.median, g.best/a.best, g.best/b.best)
	}
}

// median returns the median of xs (sorted in place).
func median(xs []float64) float64 {
	sort.Float64s(xs)
	return xs[len(xs)/2]
}
