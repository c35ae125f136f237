//go:build cgo && linux

package webgpu

import (
	"bytes"
	"os"
	"os/exec"
	"testing"

	"github.com/shaderflow/shaderflow/gpu/gputest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestQuietProbe opens the backend in a child process with no
// XDG_RUNTIME_DIR: by default nothing reaches stderr, and with
// SHADERFLOW_LOG=1 the driver's own messages do (so the first half would
// notice them if the silencing stopped working).
func TestQuietProbe(t *testing.T) {
	if os.Getenv("SHADERFLOW_QUIET_CHILD") == "1" {
		gputest.Open(t, Name)
		return
	}
	gputest.Open(t, Name) // skips, with the reason, where there is no adapter
	child := func(extra ...string) string {
		cmd := exec.Command(os.Args[0], "-test.run=^TestQuietProbe$", "-test.count=1")
		var env []string
		for _, kv := range os.Environ() {
			if !bytes.HasPrefix([]byte(kv), []byte("XDG_RUNTIME_DIR=")) && !bytes.HasPrefix([]byte(kv), []byte("SHADERFLOW_LOG=")) {
				env = append(env, kv)
			}
		}
		cmd.Env = append(append(env, "SHADERFLOW_QUIET_CHILD=1"), extra...)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		require.NoError(t, cmd.Run(), "child: %s", stderr.String())
		return stderr.String()
	}
	assert.Empty(t, child(), "a probe of the adapters wrote to stderr")
	if loud := child("SHADERFLOW_LOG=1"); loud == "" {
		t.Log("with SHADERFLOW_LOG=1 the drivers printed nothing here either")
	}
}
