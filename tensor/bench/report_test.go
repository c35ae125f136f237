package bench

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/shaderflow/shaderflow/tensor/device"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// sampleReport is a report with limits and a peer, as a benchmark command
// would write on the CPU.
func sampleReport() Report {
	add := FromSamples("add 2^24", []time.Duration{10 * time.Millisecond, 12 * time.Millisecond, 11 * time.Millisecond})
	add.Bytes = 3 * 4 << 24
	add.Flops = 1 << 24
	mm := FromSamples("matmul 1024³", []time.Duration{20 * time.Millisecond, 20 * time.Millisecond})
	mm.Flops = 2 << 30
	mm.Bytes = 12 << 20
	mm.Note = "avx512 kernel | blocked"
	relu := FromSamples("relu", []time.Duration{time.Millisecond})
	relu.Bytes = 8 << 20
	relu.Limit = "l2_gbps"
	return Report{
		Title:    "CPU kernels",
		Backend:  "cpu",
		Device:   "Intel Xeon (2 cores)",
		Kind:     device.KindCPU.String(),
		Driver:   "go1.26 avx512",
		Host:     "dev, linux/amd64, 2 CPUs",
		When:     time.Date(2026, 11, 2, 10, 30, 0, 0, time.UTC),
		Results:  []Result{add, mm, relu},
		Limits:   map[string]float64{LimitFLOPs: 245, LimitBandwidth: 18, "l2_gbps": 140},
		Peers:    map[string]Result{"matmul 1024³": FromSamples("matmul 1024³", []time.Duration{10 * time.Millisecond})},
		PeerName: "PyTorch 1.13",
	}
}

func TestNewReportNamesKind(t *testing.T) {
	info := device.Info{Backend: "vulkan", Name: "llvmpipe (LLVM 15.0.6, 256 bits)", Driver: "Mesa 22.3.6", Kind: device.KindSoftwareGPU}
	r := NewReport(info)
	assert.Equal(t, "llvmpipe (LLVM 15.0.6, 256 bits) (vulkan, software gpu (emulated on the cpu)), driver Mesa 22.3.6", r.DeviceLine())
	assert.NotEmpty(t, r.Host)
	assert.WithinDuration(t, time.Now(), r.When, 2*time.Second)
	assert.Contains(t, Host(), "CPUs")
}

func TestLimitFraction(t *testing.T) {
	r := sampleReport()
	frac, key, ok := r.LimitFraction(r.Results[0]) // add: 201 MB in 11 ms = 18.3 GB/s, 1.5 GFLOP/s
	require.True(t, ok)
	assert.Equal(t, LimitBandwidth, key, "the tighter roofline wins")
	assert.InDelta(t, float64(3*4<<24)/0.011/1e9/18, frac, 1e-12)

	frac, key, ok = r.LimitFraction(r.Results[1]) // matmul: 107 GFLOP/s
	require.True(t, ok)
	assert.Equal(t, LimitFLOPs, key)
	assert.InDelta(t, float64(2<<30)/0.020/1e9/245, frac, 1e-12)

	frac, key, ok = r.LimitFraction(r.Results[2]) // an explicit limit
	require.True(t, ok)
	assert.Equal(t, "l2_gbps", key)
	assert.InDelta(t, float64(8<<20)/0.001/1e9/140, frac, 1e-12)

	_, _, ok = Report{}.LimitFraction(r.Results[0])
	assert.False(t, ok, "no limits")
	_, _, ok = r.LimitFraction(Result{Name: "x", Median: time.Second, Bytes: 1, Limit: "unknown"})
	assert.False(t, ok)
	_, _, ok = r.LimitFraction(Result{Name: "x", Median: time.Second})
	assert.False(t, ok, "no work")
}

func TestPeerRatio(t *testing.T) {
	r := sampleReport()
	ratio, peer, ok := r.PeerRatio(r.Results[1])
	require.True(t, ok)
	assert.Equal(t, 10*time.Millisecond, peer.Median)
	assert.Equal(t, 0.5, ratio, "twice as slow as the peer")
	_, _, ok = r.PeerRatio(r.Results[0])
	assert.False(t, ok)
}

func TestWriteMarkdown(t *testing.T) {
	var buf bytes.Buffer
	require.NoError(t, sampleReport().WriteMarkdown(&buf))
	md := buf.String()
	t.Log("\n" + md)
	assert.Contains(t, md, "# CPU kernels\n")
	assert.Contains(t, md, "- device: Intel Xeon (2 cores) (cpu), driver go1.26 avx512\n")
	assert.Contains(t, md, "- host: dev, linux/amd64, 2 CPUs\n")
	assert.Contains(t, md, "- when: 2026-11-02T10:30:00Z\n")
	assert.Contains(t, md, "- limits: dram_gbps 18, fma_gflops 245, l2_gbps 140\n")
	assert.Contains(t, md, "| benchmark | iters | median | mean ± sd | GB/s | GFLOP/s | of limit | PyTorch 1.13 median | speed vs PyTorch 1.13 |\n")
	assert.Contains(t, md, "| add 2^24 | 3 | 11.00ms | 11.00ms ± 1.00ms | 18.30 | 1.53 | 101.7% dram_gbps | – | – |\n")
	assert.Contains(t, md, "| matmul 1024³ | 2 | 20.00ms | 20.00ms ± 0ns | 0.63 | 107.37 | 43.8% fma_gflops | 10.00ms | 0.50× |\n")
	assert.Contains(t, md, "| relu | 1 | 1.00ms | 1.00ms ± 0ns | 8.39 | – | 6.0% l2_gbps | – | – |\n")
	assert.Contains(t, md, "- matmul 1024³: avx512 kernel \\| blocked\n")
	rows := 0
	for _, l := range strings.Split(md, "\n") {
		if strings.HasPrefix(l, "| ") {
			rows++
			assert.Equal(t, 10, strings.Count(strings.ReplaceAll(l, `\|`, ""), "|"), "row %q", l)
		}
	}
	assert.Equal(t, 5, rows)
}

func TestWriteMarkdownWithoutPeersOrLimits(t *testing.T) {
	r := Report{Device: "d", Results: []Result{FromSamples("x", []time.Duration{time.Second})}}
	var buf bytes.Buffer
	require.NoError(t, r.WriteMarkdown(&buf))
	md := buf.String()
	assert.Contains(t, md, "# Benchmark report\n")
	assert.Contains(t, md, "| benchmark | iters | median | mean ± sd | GB/s | GFLOP/s | of limit |\n")
	assert.Contains(t, md, "| x | 1 | 1.000s | 1.000s ± 0ns | – | – | – |\n")
	assert.NotContains(t, md, "when:")
}

func TestJSONRoundTrip(t *testing.T) {
	r := sampleReport()
	var buf bytes.Buffer
	require.NoError(t, r.WriteJSON(&buf))
	js := buf.String()
	assert.Contains(t, js, `"median_ns": 11000000`)
	assert.Contains(t, js, `"peer_name": "PyTorch 1.13"`)
	assert.NotContains(t, js, "Samples")
	got, err := ReadReport(&buf)
	require.NoError(t, err)
	for i := range r.Results { // samples are not stored
		r.Results[i].Samples = nil
	}
	for k, p := range r.Peers {
		p.Samples = nil
		r.Peers[k] = p
	}
	assert.Equal(t, r, got)
}

func TestReadReportErrors(t *testing.T) {
	for _, in := range []string{
		``,
		`{"device": 3}`,
		`{"results": [{"iterations": 1}]}`,
		`{"device": "x"} trailing`,
		`[1, 2]`,
	} {
		_, err := ReadReport(strings.NewReader(in))
		assert.Error(t, err, "input %q", in)
		if err != nil {
			assert.True(t, strings.HasPrefix(err.Error(), "bench: reading report: "), err.Error())
		}
	}
}

func TestWriteJSONRejectsNonFinite(t *testing.T) {
	r := Report{Limits: map[string]float64{"x": 1 / zero()}}
	assert.Error(t, r.WriteJSON(&bytes.Buffer{}))
}

func zero() float64 { return 0 }
