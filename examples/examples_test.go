package examples_test

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/shaderflow/shaderflow/nn/data"
	"github.com/stretchr/testify/require"
)

// TestExamplesRun builds every example and runs it for a few steps on the
// CPU, checking that it exits cleanly and prints what it trained.
func TestExamplesRun(t *testing.T) {
	bin := t.TempDir()
	build := exec.Command("go", "build", "-o", bin+string(filepath.Separator), "./fashion", "./regression", "./customloop")
	out, err := build.CombinedOutput()
	require.NoError(t, err, "%s", out)

	_, _, dataErr := data.LoadFashionMNIST("")
	ckpt := filepath.Join(t.TempDir(), "model.safetensors")
	for _, c := range []struct {
		name     string
		args     []string
		needData bool
		want     string
	}{
		{"fashion", []string{"--steps", "5", "--eval", "256", "--checkpoint", ckpt}, true, "test accuracy"},
		{"fashion", []string{"--steps", "5", "--eval", "256", "--checkpoint", ckpt, "--resume"}, true, "resumed from"},
		{"fashion", []string{"--model", "cnn", "--steps", "2", "--eval", "64", "--checkpoint", ckpt + ".cnn"}, true, "test accuracy"},
		{"regression", []string{"--steps", "20"}, false, "step 20: mean squared error"},
		{"customloop", []string{"--steps", "20"}, false, "step 20: loss"},
	} {
		t.Run(c.name, func(t *testing.T) {
			if c.needData && errors.Is(dataErr, data.ErrDatasetNotFound) {
				t.Skipf("Fashion-MNIST not installed: %v", dataErr)
			}
			cmd := exec.Command(filepath.Join(bin, c.name), append([]string{"--backend", "cpu"}, c.args...)...)
			cmd.Env = os.Environ()
			out, err := cmd.CombinedOutput()
			require.NoError(t, err, "%s", out)
			require.Contains(t, string(out), c.want)
		})
	}
	_, err = os.Stat(ckpt)
	if dataErr == nil {
		require.NoError(t, err, "fashion --model mlp wrote its checkpoint")
	}
}

// TestExamplesReportMissingData runs the Fashion-MNIST examples against an
// empty directory: they must fail with a message, not a panic.
func TestExamplesReportMissingData(t *testing.T) {
	bin := t.TempDir()
	out, err := exec.Command("go", "build", "-o", bin+string(filepath.Separator), "./fashion").CombinedOutput()
	require.NoError(t, err, "%s", out)
	cmd := exec.Command(filepath.Join(bin, "fashion"), "--backend", "cpu", "--data", t.TempDir())
	out, err = cmd.CombinedOutput()
	var exit *exec.ExitError
	require.ErrorAs(t, err, &exit, "%s", out)
	require.Equal(t, 2, exit.ExitCode(), "%s", out)
	require.Contains(t, string(out), "fashion: ")
	require.NotContains(t, string(out), "panic")
}
