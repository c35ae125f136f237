//go:build cgo

package vulkan

import (
	"errors"
	"os"
	"os/exec"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/shaderflow/shaderflow/tensor/device"
)

// TestNoDriver runs Adapters in a child process whose Vulkan loader finds
// no driver (or that has no loader at all) and checks the error: it wraps
// device.ErrUnavailable and says what to install.
func TestNoDriver(t *testing.T) {
	if os.Getenv("SHADERFLOW_VULKAN_NODRIVER_CHILD") == "1" {
		_, err := Backend{}.Adapters()
		if err == nil {
			t.Fatal("Adapters succeeded without a driver")
		}
		if !errors.Is(err, device.ErrUnavailable) {
			t.Fatalf("error does not wrap ErrUnavailable: %v", err)
		}
		_, err = Backend{}.Open(0)
		if !errors.Is(err, device.ErrUnavailable) {
			t.Fatalf("Open: %v", err)
		}
		os.Stdout.WriteString("CHILD-ERROR: " + err.Error() + "\n")
		return
	}
	cmd := exec.Command(os.Args[0], "-test.run", "^TestNoDriver$", "-test.v")
	cmd.Env = append(os.Environ(),
		"SHADERFLOW_VULKAN_NODRIVER_CHILD=1",
		"VK_ICD_FILENAMES=/nonexistent/shaderflow-no-icd.json",
		"VK_DRIVER_FILES=/nonexistent/shaderflow-no-icd.json",
		"SHADERFLOW_VULKAN_VALIDATION=",
	)
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "%s", out)
	assert.Contains(t, string(out), "CHILD-ERROR: ")
	assert.Contains(t, string(out), "apt-get install")
	t.Logf("%s", out)
}
