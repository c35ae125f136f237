//go:build cgo

package vulkan

import (
	"encoding/binary"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/shaderflow/shaderflow/gpu"
	"github.com/shaderflow/shaderflow/shaders"
)

// gridShader counts how often each linear workgroup runs.
const gridShader = `
@group(0) @binding(0) var<storage, read> params: array<u32>;
@group(0) @binding(1) var<storage, read_write> counts: array<atomic<u32>>;
@compute @workgroup_size(1)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let w = wid.y * nwg.x + wid.x;
    if (w < params[0]) {
        atomicAdd(&counts[w], 1u);
    }
}
`

// compileTestShader compiles WGSL with naga (skipping the test without
// it) and returns the SPIR-V words.
func compileTestShader(t testing.TB, src string) []uint32 {
	t.Helper()
	naga, err := exec.LookPath("naga")
	if err != nil {
		if naga, err = exec.LookPath("/usr/local/bin/naga"); err != nil {
			t.Skip("naga is needed to compile the test shader")
		}
	}
	dir := t.TempDir()
	in, spv := filepath.Join(dir, "test.wgsl"), filepath.Join(dir, "test.spv")
	require.NoError(t, os.WriteFile(in, []byte(src), 0o644))
	out, err := exec.Command(naga, in, spv).CombinedOutput()
	require.NoError(t, err, "%s", out)
	raw, err := os.ReadFile(spv)
	require.NoError(t, err)
	words, err := spirvWords(raw)
	require.NoError(t, err)
	return words
}

// TestTwoDimensionalGrid dispatches more workgroups than one dimension
// allows and checks that each runs exactly once.
func TestTwoDimensionalGrid(t *testing.T) {
	words := compileTestShader(t, gridShader)
	d := openDevice(t)
	p, err := d.newPipeline(words, "main")
	require.NoError(t, err)
	n := d.target().MaxWorkgroups + 4465 // 70 000 on a 65 535 limit
	counts := alloc(t, d, int64(4*n))
	require.NoError(t, d.Write(counts, 0, make([]byte, 4*n)))
	l := &gpu.Launch{Kind: shaders.Kind("grid-test"), Entry: "main", Params: []uint32{uint32(n)}, Workgroups: n,
		Bindings: []gpu.Binding{{Buf: counts, Size: counts.Bytes()}}}
	d.mu.Lock()
	d.pipelines.add(l, p)
	err = d.record(l, counts)
	d.mu.Unlock()
	require.NoError(t, err)
	got := download(t, d, counts, 4*n)
	for i := 0; i < n; i++ {
		require.Equal(t, uint32(1), binary.LittleEndian.Uint32(got[4*i:]), "workgroup %d", i)
	}
}
