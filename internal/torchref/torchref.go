package torchref

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"github.com/shaderflow/shaderflow/nn"
)

// gptSource is the Python module of the GPT (class GPT(sizes)).
//
//go:embed gpt.py
var gptSource string

// GPTModule is the name a script imports the GPT's module by
// ("from shaderflow_gpt import GPT").
const GPTModule = "shaderflow_gpt"

// WriteGPT writes the GPT's module into dir, the directory of the script
// that imports it (Python searches the script's directory first).
func WriteGPT(dir string) error {
	return os.WriteFile(filepath.Join(dir, GPTModule+".py"), []byte(gptSource), 0o600)
}

// GPTSizes is the JSON object the Python GPT is built from: the sizes of
// cfg under the names vocab, context, layers, heads and model. Dropout is
// not carried: the Python model has none.
type GPTSizes struct {
	Vocab   int `json:"vocab"`
	Context int `json:"context"`
	Layers  int `json:"layers"`
	Heads   int `json:"heads"`
	Model   int `json:"model"`
}

// SizesOf returns cfg's GPTSizes. It panics when cfg has dropout, which the
// Python model does not have.
func SizesOf(cfg nn.GPTConfig) GPTSizes {
	if cfg.Dropout != 0 {
		panic(fmt.Sprintf("torchref: the PyTorch GPT has no dropout; the config has %g", cfg.Dropout))
	}
	return GPTSizes{Vocab: cfg.Vocab, Context: cfg.Context, Layers: cfg.Layers, Heads: cfg.Heads, Model: cfg.Model}
}

// JSON returns s as the JSON object a script reads.
func (s GPTSizes) JSON() string {
	b, _ := json.Marshal(s) // five ints cannot fail to marshal
	return string(b)
}
