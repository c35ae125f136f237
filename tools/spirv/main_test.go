package main

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const testKernel = `
@group(0) @binding(0) var<storage, read> params: array<u32>;
@group(0) @binding(1) var<storage, read_write> data: array<u32>;
var<workgroup> tile: array<f32, 256>;
@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(local_invocation_index) li: u32) {
  tile[li] = f32(gid.x);
  workgroupBarrier();
  data[gid.x] = helper(bitcast<u32>(tile[(li + params[0]) % 64u]));
}
`

const testHelper = "fn helper(x: u32) -> u32 { return x + 1u; }\n"

// toolchainOrSkip finds naga and spirv-val or skips the test.
func toolchainOrSkip(t *testing.T) {
	t.Helper()
	if _, err := FindToolchain("", ""); err != nil {
		t.Skipf("shader tools unavailable: %v", err)
	}
}

func TestGenerateAndCheck(t *testing.T) {
	toolchainOrSkip(t)
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "k.wgsl"), []byte(testKernel), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "helpers.wgsl"), []byte(testHelper), 0o644))
	var log bytes.Buffer

	err := runMain([]string{"-dir", dir, "-check"}, &log)
	require.Error(t, err, "nothing generated yet")
	assert.Contains(t, err.Error(), "missing: k.spv")

	require.NoError(t, runMain([]string{"-dir", dir, "-v"}, &log))
	spv := filepath.Join(dir, "spv", "k.spv")
	first, err := os.ReadFile(spv)
	require.NoError(t, err)
	m, err := Parse(first)
	require.NoError(t, err)
	assert.Empty(t, DropWorkgroupZeroInit(m), "the zero-init store was removed")
	assert.Contains(t, log.String(), "drop-workgroup-zero-init")
	require.NoError(t, runMain([]string{"-dir", dir, "-check"}, &log))

	// Deterministic: a second run writes nothing and leaves the same bytes.
	log.Reset()
	require.NoError(t, runMain([]string{"-dir", dir}, &log))
	assert.NotContains(t, log.String(), "wrote")
	again, err := os.ReadFile(spv)
	require.NoError(t, err)
	assert.Equal(t, first, again)

	// A changed source makes -check fail, an extra file too.
	require.NoError(t, os.WriteFile(filepath.Join(dir, "helpers.wgsl"), []byte("fn helper(x: u32) -> u32 { return x + 2u; }\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "spv", "old.spv"), []byte{1}, 0o644))
	err = runMain([]string{"-dir", dir, "-check"}, &log)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "stale: k.spv")
	assert.Contains(t, err.Error(), "no longer generated: old.spv")
	require.NoError(t, runMain([]string{"-dir", dir}, &log))
	assert.NoFileExists(t, filepath.Join(dir, "spv", "old.spv"))
	require.NoError(t, runMain([]string{"-dir", dir, "-check"}, &log))
}

func TestCompileErrorNamesSourceFile(t *testing.T) {
	toolchainOrSkip(t)
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "k.wgsl"), []byte(testKernel), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "helpers.wgsl"), []byte("fn helper(x: u32) -> u32 {\n  return 1.5;\n}\n"), 0o644))
	err := runMain([]string{"-dir", dir}, &bytes.Buffer{})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "kind k")
	assert.Contains(t, err.Error(), "helpers.wgsl:2:")
}

func TestMissingTools(t *testing.T) {
	_, err := FindToolchain(filepath.Join(t.TempDir(), "naga"), "")
	require.Error(t, err)
	assert.Contains(t, err.Error(), "naga not found")
	assert.Contains(t, err.Error(), "cargo install")

	t.Setenv("PATH", t.TempDir())
	_, err = findTool("", "spirv-val", spirvValHint)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "apt-get install spirv-tools")
}

func TestNoKinds(t *testing.T) {
	err := runMain([]string{"-dir", t.TempDir()}, &bytes.Buffer{})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "no kernel kinds")
}
