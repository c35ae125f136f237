package shaders

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"testing"

	"github.com/shaderflow/shaderflow/tensor/device"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestBindingsFile keeps bindings.wgsl equal to Bindings(DataBindings).
// Regenerate it with SHADERFLOW_UPDATE_BINDINGS=1 go test ./shaders.
func TestBindingsFile(t *testing.T) {
	want := Bindings(DataBindings)
	if os.Getenv("SHADERFLOW_UPDATE_BINDINGS") != "" {
		require.NoError(t, os.WriteFile(BindingsFile, []byte(want), 0o644))
		return
	}
	require.Equal(t, want, Source(BindingsFile), "bindings.wgsl is stale: run SHADERFLOW_UPDATE_BINDINGS=1 go test ./shaders")
}

// wgslConsts returns the u32 constants named prefix* of a source.
func wgslConsts(t *testing.T, src, prefix string) map[string]int {
	re := regexp.MustCompile(`const (` + prefix + `\w+): u32 = (\d+)u;`)
	m := map[string]int{}
	for _, s := range re.FindAllStringSubmatch(src, -1) {
		v, err := strconv.Atoi(s[2])
		require.NoError(t, err)
		m[s[1]] = v
	}
	return m
}

// TestOpsFileMatchesOpTable checks that ops.wgsl defines exactly the op_*
// functions that device's op table names, and that no shader keeps numeric op
// codes (generated code calls the functions by name).
func TestOpsFileMatchesOpTable(t *testing.T) {
	want := map[string]bool{}
	for _, op := range device.Ops() {
		for _, f := range []string{op.Info().GPU, op.Info().GPUInt} {
			if f != "" {
				want[f] = true
			}
		}
	}
	got := map[string]bool{}
	for _, m := range regexp.MustCompile(`(?m)^fn (op_\w+)\(`).FindAllStringSubmatch(Source(OpsFile), -1) {
		got[m[1]] = true
	}
	assert.Equal(t, want, got, "ops.wgsl's op_* functions against the op table's GPU names")
	for _, f := range Files() {
		assert.Empty(t, wgslConsts(t, Source(f), "OP_"), "%s defines op codes", f)
	}
}

func TestDTypeCodesMatchDevice(t *testing.T) {
	codes := wgslConsts(t, Source(CommonFile), "DT_")
	want := map[string]device.DType{"DT_F32": device.Float32, "DT_F16": device.Float16, "DT_BF16": device.BFloat16,
		"DT_I32": device.Int32, "DT_BOOL": device.Bool, "DT_U8": device.Uint8, "DT_I8": device.Int8}
	require.Len(t, codes, len(want))
	for name, dt := range want {
		assert.Equal(t, int(dt), codes[name], name)
	}
}

func TestEveryKindHasASource(t *testing.T) {
	files := Files()
	for _, k := range Kinds {
		assert.Contains(t, files, string(k)+".wgsl")
		assert.Contains(t, Source(string(k)+".wgsl"), "@compute", "kind %s has no entry point", k)
	}
}

// naga returns the path of the naga compiler or skips the test.
func naga(t *testing.T) string {
	p, err := exec.LookPath("naga")
	if err != nil {
		if _, err := os.Stat("/usr/local/bin/naga"); err != nil {
			t.Skip("naga not installed")
		}
		p = "/usr/local/bin/naga"
	}
	return p
}

// Compile checks composed WGSL with naga; other tests (package gpu) use it
// for generated hooks.
func compileWGSL(t *testing.T, nagaPath, name, src string) {
	dir := t.TempDir()
	in := filepath.Join(dir, name+".wgsl")
	require.NoError(t, os.WriteFile(in, []byte(src), 0o644))
	out, err := exec.Command(nagaPath, in, filepath.Join(dir, name+".spv")).CombinedOutput()
	require.NoError(t, err, "%s", out)
}

func TestComposeWithHookStubsCompiles(t *testing.T) {
	n := naga(t)
	for _, k := range Kinds {
		for _, nb := range []int{1, 4, DataBindings} {
			compileWGSL(t, n, string(k), Compose(k, nb, Source(HookStubsFile)))
		}
	}
}
