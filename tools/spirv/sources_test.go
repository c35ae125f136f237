package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestIsKernel(t *testing.T) {
	assert.True(t, IsKernel("@compute @workgroup_size(64) fn main() {}"))
	assert.True(t, IsKernel("@ compute\n@workgroup_size(1) fn main() {}"))
	assert.False(t, IsKernel("fn helper() {} // @compute in a comment"))
	assert.False(t, IsKernel("/* @compute /* nested */ still comment */ fn f() {}"))
	assert.False(t, IsKernel("fn computed() {}"))
}

func TestKindsAndCompose(t *testing.T) {
	srcs := []Source{
		{Name: "common.wgsl", Text: "fn a() {}\nfn b() {}"},
		{Name: "elementwise.wgsl", Text: "@compute @workgroup_size(64)\nfn main() {}\n"},
		{Name: "hooks.wgsl", Text: "fn ew_program() {}\n"},
		{Name: "reduce.wgsl", Text: "@compute @workgroup_size(64)\nfn main() {}\n"},
	}
	kinds := Kinds(srcs)
	require.Len(t, kinds, 2)
	assert.Equal(t, "elementwise", kinds[0].Name)
	assert.Equal(t, "reduce", kinds[1].Name)
	assert.Len(t, kinds[0].Helpers, 2)

	c := kinds[0].Compose()
	lines := strings.Split(c.Text, "\n")
	assert.Equal(t, "// ---- elementwise.wgsl ----", lines[0])
	for _, tc := range []struct {
		line int
		file string
		at   int
	}{{2, "elementwise.wgsl", 1}, {3, "elementwise.wgsl", 2}, {5, "common.wgsl", 1}, {6, "common.wgsl", 2}, {8, "hooks.wgsl", 1}} {
		name, l, ok := c.Locate(tc.line)
		require.True(t, ok, "line %d", tc.line)
		assert.Equal(t, tc.file, name, "line %d", tc.line)
		assert.Equal(t, tc.at, l, "line %d", tc.line)
		assert.Equal(t, srcLine(srcs, tc.file, tc.at), lines[tc.line-1])
	}
	_, _, ok := c.Locate(4) // the marker line of common.wgsl
	assert.False(t, ok)

	msg := c.RewritePositions("error\n  ┌─ /tmp/x/elementwise.composed.wgsl:6:3\n", "/tmp/x/elementwise.composed.wgsl")
	assert.Contains(t, msg, "common.wgsl:2:3")
}

func srcLine(srcs []Source, name string, line int) string {
	for _, s := range srcs {
		if s.Name == name {
			return strings.Split(s.Text, "\n")[line-1]
		}
	}
	return ""
}

func TestReadSources(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "b.wgsl"), []byte("b"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "a.wgsl"), []byte("a"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "c.txt"), []byte("c"), 0o644))
	srcs, err := ReadSources(dir)
	require.NoError(t, err)
	assert.Equal(t, []Source{{"a.wgsl", "a"}, {"b.wgsl", "b"}}, srcs)
}
