package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/shaderflow/shaderflow/nn"
	"github.com/shaderflow/shaderflow/tensor"
	"github.com/shaderflow/shaderflow/tensor/bench"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// smallCases are one case of every kind at sizes a test can afford.
func smallCases() []benchCase {
	return []benchCase{
		matmulCase(33, 17, 9), binaryCase("add", 5000), unaryCase("gelu", 4000), chainCase(false, 3000),
		chainCase(true, 3000), sumRowsCase(20, 30), softmaxRowsCase(20, 30), logSoftmaxRowsCase(20, 30), layerNormRowsCase(20, 30),
		convCase([]int{2, 3, 9, 8}, []int{4, 3, 3, 3}), castCase(1000),
		gptForwardCase(tinyGPT, 2), gptGenerateCase(tinyGPT, 3),
	}
}

// tinyGPT is a GPT the tests can afford.
var tinyGPT = nn.GPTConfig{Vocab: 11, Context: 8, Layers: 1, Heads: 2, Model: 16}

// quickSettings measure two iterations after one warm-up.
var quickSettings = settings{Warmup: 1, Iterations: 2}

func TestCasesAreConsistent(t *testing.T) {
	names := map[string]bool{}
	for _, c := range cases() {
		assert.False(t, names[c.Name], "duplicate benchmark %q", c.Name)
		names[c.Name] = true
		assert.True(t, c.flops > 0 || c.bytes > 0, "%s has neither flops nor bytes", c.Name)
		assert.NotEmpty(t, c.limit, c.Name)
		assert.NotEmpty(t, c.Threads, c.Name)
		assert.Contains(t, torchScript, `kind == "`+c.Kind+`"`, "the PyTorch script must know kind %s", c.Kind)
	}
	for _, tg := range targets {
		assert.True(t, names[tg.name], "target for unknown benchmark %q", tg.name)
	}
	assert.Equal(t, "10M", count(10_000_000))
	assert.Equal(t, "4k", count(4000))
	assert.Equal(t, "1234", count(1234))
}

func TestRunCasesThroughTheTensorAPI(t *testing.T) {
	dev, err := tensor.Open("cpu")
	require.NoError(t, err)
	defer dev.Close()
	for _, c := range smallCases() {
		res, err := runCase(dev, c, quickSettings)
		require.NoError(t, err, c.Name)
		assert.Equal(t, c.Name, res.Name)
		assert.Equal(t, 2, res.Iterations, c.Name)
		assert.Positive(t, res.Median, c.Name)
		assert.Equal(t, c.flops, res.Flops, c.Name)
		assert.Equal(t, c.bytes, res.Bytes, c.Name)
	}
	assert.True(t, tensor.Fusion(), "the unfused case restores fusion")
	assert.Zero(t, dev.PoolStats().BytesInUse, "inputs and results are released")
}

// fakeTorch is what the script reports for the named benchmarks: alloc
// samples of 2 ms and out= samples of 1 ms.
func fakeTorch(names ...string) *torchOutput {
	out := &torchOutput{Version: "9.9", Results: map[string]torchResult{}}
	for _, n := range names {
		out.Results[n] = torchResult{Name: n, Threads: 2, Variants: map[string][]int64{"alloc": {2e6, 2e6, 2e6}, "out": {1e6}}}
	}
	return out
}

func TestPeersAndTargets(t *testing.T) {
	rep := bench.Report{Limits: map[string]float64{limitFMA: 100, limitDRAM: 10}}
	ms := time.Millisecond
	rep.Results = []bench.Result{
		{Name: "sgemm 1024x1024x1024", Median: ms, Flops: 90e6, Limit: limitFMA}, // 90 GFLOP/s: 90%
		{Name: "add 10M", Median: ms, Bytes: 5e6, Limit: limitDRAM},              // 5 GB/s: 50%
		{Name: "chain4 fused 10M", Median: ms, Bytes: 1e6, Limit: limitDRAM},
		{Name: "chain4 unfused 10M", Median: 4 * ms, Bytes: 1e6, Limit: limitDRAM},
		{Name: "sgemm 64x784x128", Median: ms, Flops: 120e6, Limit: limitFMA},
		{Name: "relu 10M", Median: ms, Bytes: 9.5e6, Limit: limitDRAM},
		{Name: "tanh 10M", Median: ms, Bytes: 7e6, Limit: limitDRAM},
		{Name: "exp 10M", Median: ms, Bytes: 8e6, Limit: limitDRAM},
		{Name: "sigmoid 10M", Median: ms, Bytes: 8.1e6, Limit: limitDRAM},
		{Name: "mul 10M", Median: ms, Bytes: 9.1e6, Limit: limitDRAM},
		{Name: "gelu 10M", Median: ms, Bytes: 2e6, Limit: limitDRAM},
		{Name: "softmax rows 10000x1000", Median: ms, Bytes: 1e6, Limit: limitDRAM}, // no target
	}
	addPeers(&rep, fakeTorch("sgemm 1024x1024x1024", "add 10M", "not run here"))
	assert.Equal(t, "PyTorch 9.9", rep.PeerName)
	require.Len(t, rep.Peers, 2)
	ratio, _, ok := rep.PeerRatio(rep.Results[0])
	require.True(t, ok)
	assert.InDelta(t, 2, ratio, 1e-9, "PyTorch's alloc median is 2 ms, ours 1 ms")
	assert.Contains(t, rep.Results[1].Note, "out=): median 1.00ms, 1.00× vs ours")

	lines := checkTargets(&rep)
	want := map[string]string{
		"sgemm 1024x1024x1024: target ≥ 86% of the FMA peak": "met (90.0% of fma_gflops)",
		"sgemm 1024x1024x1024: target ≥ 1.1× PyTorch":        "met (2.00× PyTorch)",
		"sgemm 64x784x128: target ≥ 150 GFLOP/s":             "missed (120.0 GFLOP/s)",
		"add 10M: target ≥ 90% of STREAM bandwidth":          "missed (50.0% of dram_gbps)",
		"relu 10M: target ≥ 90% of STREAM bandwidth":         "met (95.0% of dram_gbps)",
		"tanh 10M: target ≥ 80% of STREAM bandwidth":         "missed (70.0% of dram_gbps)",
		"exp 10M: target ≥ 80% of STREAM bandwidth":          "met (80.0% of dram_gbps)",
		"chain4 fused 10M: target ≥ 3× the unfused chain":    "met (4.00× the unfused chain)",
		"sigmoid 10M: target ≥ 80% of STREAM bandwidth":      "met (81.0% of dram_gbps)",
		"mul 10M: target ≥ 90% of STREAM bandwidth":          "met (91.0% of dram_gbps)",
		"gelu 10M: target ≥ 80% of STREAM bandwidth":         "missed (20.0% of dram_gbps)",
	}
	require.Len(t, lines, len(want))
	for _, l := range lines {
		prefix, verdict, ok := strings.Cut(l, ": target")
		require.True(t, ok, l)
		key := prefix + ": target" + verdict[:strings.Index(verdict, ": ")]
		assert.Equal(t, want[key], verdict[strings.Index(verdict, ": ")+2:], l)
	}
	assert.Contains(t, rep.Results[0].Note, "target ≥ 1.1× PyTorch: met")
}

func TestWriteReportAndBaseline(t *testing.T) {
	dir := t.TempDir()
	rep := bench.Report{Device: "cpu0", Backend: "cpu", Results: []bench.Result{
		{Name: "a", Iterations: 3, Median: 2 * time.Millisecond},
		{Name: "b", Iterations: 3, Median: time.Millisecond},
	}}
	require.NoError(t, writeReport(rep, dir))
	for _, f := range []string{"report.md", "report.json", "report.png"} {
		st, err := os.Stat(filepath.Join(dir, f))
		require.NoError(t, err, f)
		assert.Positive(t, st.Size(), f)
	}
	base := filepath.Join(dir, "report.json")
	var out bytes.Buffer
	require.NoError(t, compareBaseline(rep, base, 0.1, &out), "a report is no regression of itself")
	assert.Contains(t, out.String(), "no regression")

	slower := rep
	slower.Results = []bench.Result{{Name: "a", Iterations: 3, Median: 3 * time.Millisecond}}
	err := compareBaseline(slower, base, 0.1, &out)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "a: median 3.00ms, baseline 2.00ms (1.50× slower)")
	assert.Contains(t, err.Error(), "b: missing")

	require.Error(t, compareBaseline(rep, filepath.Join(dir, "absent.json"), 0.1, &out))
}

func TestRunFlags(t *testing.T) {
	var out, errs bytes.Buffer
	assert.Equal(t, 2, run([]string{"-nonsense"}, &out, &errs))
	assert.Equal(t, 1, run([]string{"-run", "("}, &out, &errs))
	assert.Contains(t, errs.String(), "-run")
	assert.Equal(t, 1, run([]string{"-backend", "nosuch", "-no-torch"}, &out, &errs))
	assert.Contains(t, errs.String(), "nosuch")
}

// TestTorchScript runs the embedded PyTorch script on tiny cases when
// /usr/bin/python3 imports torch.
func TestTorchScript(t *testing.T) {
	if testing.Short() {
		t.Skip("starts python")
	}
	if err := exec.Command(python, "-c", "import torch").Run(); err != nil {
		t.Skipf("no PyTorch: %v", err)
	}
	cs := smallCases()
	sess, err := startTorch(cs, quickSettings, 5*time.Minute)
	require.NoError(t, err)
	defer sess.close()
	assert.NotEmpty(t, sess.out.Version)
	for _, c := range cs {
		r, err := sess.next()
		require.NoError(t, err, c.Name)
		assert.Equal(t, c.Name, r.Name)
		assert.Len(t, r.Variants["alloc"], 2, c.Name)
		assert.Contains(t, c.Threads, r.Threads, c.Name)
	}
	assert.NotEmpty(t, sess.out.Results["add 5k"].Variants["out"], "elementwise ops have an out= variant")
	_, err = sess.next()
	require.Error(t, err, "the spec is exhausted: the script has ended")
	sess.close()
	sess.close() // idempotent
}

func TestLocalLimitNotes(t *testing.T) {
	res := bench.Result{Median: time.Millisecond, Bytes: 1e6, Flops: 1e6}
	lim := map[string]float64{limitDRAM: 1e9} // an unbeatable figure stays
	assert.Contains(t, localLimit(lim, binaryCase("add", 10), res), "STREAM right after: ")
	assert.Contains(t, localLimit(lim, matmulCase(2, 2, 2), res), "FMA peak right after: ")
	assert.Equal(t, 1e9, lim[limitDRAM])
	assert.Positive(t, lim[limitFMA], "raised from nothing")
}

func TestGPTCases(t *testing.T) {
	c := gptForwardCase(charGPT(), 32)
	assert.Equal(t, 32.0*128, c.tokens)
	// Per token: 4 blocks of 24·128² + 4·128·128 multiply-add pairs, and the
	// head's 2·128·73.
	assert.InDelta(t, 4096*(4*(24*128*128+4*128*128)+2*128*73), c.flops, 1)
	g := gptGenerateCase(tinyGPT, 10) // windows of 1..8 tokens, then 8, 8
	want := 0.0
	for _, n := range []int{1, 2, 3, 4, 5, 6, 7, 8, 8, 8} {
		want += gptForwardFlops(tinyGPT, 1, n)
	}
	assert.InDelta(t, want, g.flops, 1e-6)
	assert.Equal(t, 10.0, g.tokens)
	assert.Equal(t, 0.8, g.Temperature, "the demo's sampling")

	rep := bench.Report{Results: []bench.Result{{Name: c.Name, Median: 100 * time.Millisecond}, {Name: "add 10M", Median: time.Millisecond}}}
	rep.Peers = map[string]bench.Result{c.Name: {Name: c.Name, Median: 200 * time.Millisecond}}
	addTokenRates(&rep, []benchCase{c, binaryCase("add", 10)})
	assert.Equal(t, "40960 tokens/s, PyTorch 20480 tokens/s", rep.Results[0].Note)
	assert.Empty(t, rep.Results[1].Note, "no tokens, no rate")
}
