package torchref

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/shaderflow/shaderflow/nn"
	"github.com/stretchr/testify/require"
)

func TestGPTSizesAndModule(t *testing.T) {
	cfg := nn.GPTConfig{Vocab: 73, Context: 128, Layers: 4, Heads: 4, Model: 128}
	require.JSONEq(t, `{"vocab":73,"context":128,"layers":4,"heads":4,"model":128}`, SizesOf(cfg).JSON())
	cfg.Dropout = 0.1
	require.Panics(t, func() { SizesOf(cfg) }, "the Python model has no dropout")

	dir := t.TempDir()
	require.NoError(t, WriteGPT(dir))
	src, err := os.ReadFile(filepath.Join(dir, GPTModule+".py"))
	require.NoError(t, err)
	for _, k := range []string{"vocab", "context", "layers", "heads", "model"} {
		require.Contains(t, string(src), "'"+k+"'", "the module reads every size SizesOf writes")
	}
}
