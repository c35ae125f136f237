package torchdiff

import (
	"fmt"
	"math"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/shaderflow/shaderflow/tensor"
	_ "github.com/shaderflow/shaderflow/tensor/backends"
)

// defaultSeed is the base seed of a run when SHADERFLOW_SEED is unset, so that
// CI checks the same programs every time.
const defaultSeed = 1

// counts is how many programs each backend runs per fusion mode: the CPU is
// fast, the GPU backends run on lavapipe here and compile a pipeline per
// kernel shape.
var counts = map[string]int{"cpu": 400, "vulkan": 40, "webgpu": 40}

// maxFailures ends a subtest's loop after this many failing programs.
const maxFailures = 8

func TestTorchDiff(t *testing.T) {
	python := Python()
	if err := TorchAvailable(python); err != nil {
		if os.Getenv("SHADERFLOW_REQUIRE_TORCH") == "1" {
			t.Fatalf("SHADERFLOW_REQUIRE_TORCH=1: %v", err)
		}
		t.Skipf("PyTorch is not available: %v", err)
	}
	base := uint64(defaultSeed)
	if s := os.Getenv("SHADERFLOW_SEED"); s != "" {
		v, err := strconv.ParseUint(s, 0, 64)
		require.NoError(t, err, "SHADERFLOW_SEED")
		base = v
	}
	seeds := func(n int) []uint64 {
		out := make([]uint64, n)
		for i := range out {
			out[i] = base*1_000_000 + uint64(i)
		}
		return out
	}
	var only []uint64
	if s := os.Getenv("TORCHDIFF_PROGRAM"); s != "" {
		v, err := strconv.ParseUint(s, 0, 64)
		require.NoError(t, err, "TORCHDIFF_PROGRAM")
		only = []uint64{v}
	}
	if s := os.Getenv("TORCHDIFF_COUNT"); s != "" {
		n, err := strconv.Atoi(s)
		require.NoError(t, err, "TORCHDIFF_COUNT")
		for k := range counts {
			counts[k] = n
		}
	}

	// One PyTorch process replays every program any backend will run.
	all := only
	if all == nil {
		most := 0
		for _, n := range counts {
			most = max(most, n)
		}
		all = seeds(most)
	}
	programs := make([]*Program, len(all))
	for i, s := range all {
		programs[i] = Generate(s)
	}
	results, err := RunTorch(python, programs)
	require.NoError(t, err)
	t.Logf("torchdiff: base seed %d (SHADERFLOW_SEED=%d repeats this run); %d programs replayed in PyTorch", base, base, len(programs))

	for _, b := range tensor.Backends() {
		t.Run(b.Name, func(t *testing.T) {
			dev, err := tensor.Open(b.Name)
			if err != nil {
				if required(b.Name) {
					t.Fatalf("backend %q is required by SHADERFLOW_REQUIRE_BACKENDS but cannot be opened: %v", b.Name, err)
				}
				t.Skipf("backend %q unavailable: %v", b.Name, err)
			}
			defer func() { assert.NoError(t, dev.Close()) }()
			n := counts[b.Name]
			if n == 0 {
				n = 40
			}
			if only != nil {
				n = 1
			}
			n = min(n, len(programs))
			previous := tensor.SetFusion(true)
			defer tensor.SetFusion(previous)
			for _, fusion := range fusionModes() {
				name := "fusion_off"
				if fusion {
					name = "fusion_on"
				}
				t.Run(name, func(t *testing.T) {
					tensor.SetFusion(fusion)
					failures := 0
					for i := 0; i < n && failures < maxFailures; i++ {
						p := programs[i]
						var bad []string
						res, err := RunShaderflow(dev, p)
						if err != nil {
							bad = []string{fmt.Sprintf("Shaderflow failed: %v", err)}
						} else {
							bad = Compare(p, res, results[i])
						}
						if len(bad) == 0 {
							continue
						}
						failures++
						t.Errorf("torchdiff: %s, %s: program %d disagrees with PyTorch (rtol %.3g)\n%s%s\nrerun alone: TORCHDIFF_PROGRAM=%d SHADERFLOW_FUSION=%s go test ./tensor/torchdiff -run 'TestTorchDiff/%s/%s' -count=1 -v",
							b.Name, name, p.Seed, Rtol(p), p, strings.Join(bad, "\n"), p.Seed, map[bool]string{true: "1", false: "0"}[fusion], b.Name, name)
					}
					t.Logf("%d programs on %s, %s", n, dev.Info().Name, name)
				})
			}
		})
	}
}

// fusionModes is on and off, or only the one SHADERFLOW_FUSION names.
func fusionModes() []bool {
	switch os.Getenv("SHADERFLOW_FUSION") {
	case "0":
		return []bool{false}
	case "1":
		return []bool{true}
	}
	return []bool{true, false}
}

// required reports whether SHADERFLOW_REQUIRE_BACKENDS names backend.
func required(backend string) bool {
	for _, b := range strings.Split(os.Getenv("SHADERFLOW_REQUIRE_BACKENDS"), ",") {
		if b = strings.TrimSpace(b); b == "all" || b == backend {
			return true
		}
	}
	return false
}

// TestGenerateIsReproducible checks that a seed always gives the same program.
func TestGenerateIsReproducible(t *testing.T) {
	for s := uint64(0); s < 50; s++ {
		a, b := Generate(s), Generate(s)
		require.Equal(t, a.String(), b.String())
		require.Equal(t, a.WeightsB64, b.WeightsB64)
		for i := range a.Inputs {
			require.Equal(t, a.Inputs[i].B64, b.Inputs[i].B64)
		}
	}
}

// TestCompareDetects checks that Compare flags a wrong value, a missing NaN,
// an infinity of the wrong sign and a wrong gradient, and accepts rounding.
func TestCompareDetects(t *testing.T) {
	p := &Program{Steps: []Step{{Op: "input", Ints: []int{0}}, {Op: "exp", Args: []int{0}}}, Precision: 0x1p-24}
	ref := &TorchResult{
		Shape:  []int{4},
		Out32:  []float64{1, math.NaN(), math.Inf(1), 2},
		Out64:  []float64{1, math.NaN(), math.Inf(1), 2},
		Grad32: [][]float64{{1, 2, 3, 4}},
		Grad64: [][]float64{{1, 2, 3, 4}},
	}
	ok := &Result{Shape: []int{4}, Out: []float64{1 + 1e-7, math.NaN(), math.Inf(1), 2}, Grads: [][]float64{{1, 2, 3, 4 + 1e-6}}}
	assert.Empty(t, Compare(p, ok, ref))
	for name, r := range map[string]*Result{
		"value":    {Shape: []int{4}, Out: []float64{1.01, math.NaN(), math.Inf(1), 2}, Grads: ok.Grads},
		"nan":      {Shape: []int{4}, Out: []float64{1, 0, math.Inf(1), 2}, Grads: ok.Grads},
		"inf sign": {Shape: []int{4}, Out: []float64{1, math.NaN(), math.Inf(-1), 2}, Grads: ok.Grads},
		"gradient": {Shape: []int{4}, Out: ok.Out, Grads: [][]float64{{1, 2, 3.1, 4}}},
		"shape":    {Shape: []int{2, 2}, Out: ok.Out, Grads: ok.Grads},
	} {
		assert.NotEmpty(t, Compare(p, r, ref), name)
	}
}
