package shaders

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
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

func TestOpCodesMatchDevice(t *testing.T) {
	alias := map[string]string{"rand_uniform": "rand", "rand_normal": "randn", "gelu_erf": "gelu", "is_nan": "isnan"}
	codes := wgslConsts(t, Source(OpsFile), "OP_")
	n := 0
	for op := device.Op(0); !strings.HasPrefix(op.String(), "op("); op++ {
		n++
	}
	require.Len(t, codes, n, "ops.wgsl must define one OP_ constant per device.Op")
	for name, v := range codes {
		short := strings.ToLower(strings.TrimPrefix(name, "OP_"))
		if a, ok := alias[short]; ok {
			short = a
		}
		assert.Equal(t, short, device.Op(v).String(), "%s = %d", name, v)
	}
}

func TestDTypeCodesMatchDevice(t *testing.T) {
	codes := wgslConsts(t, Source(CommonFile), "DT_")
	want := map[string]device.DType{"DT_F32": device.Float32, "DT_F16": device.Float16, "DT_BF16": device.BFloat16,
		"DT_I32": device.Int32, "DT_BOOL": device.Bool}
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
