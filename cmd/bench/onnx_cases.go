package main

import (
	_ "embed"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"

	"github.com/shaderflow/shaderflow/onnx"
	"github.com/shaderflow/shaderflow/tensor"
)

//go:embed onnx_export.py
var onnxExportScript string

// resnetMACs is the multiply-adds of ResNet-18's forward pass on one
// 224×224 image (torchvision's figure, 1.814 GMACs), counted as direct
// convolutions: where the CPU backend uses Winograd's products, which
// multiply less, the rate derived from it overstates the work done.
const resnetMACs = 1.814e9

// resnetModel is the ONNX file prepareONNX exported, "" before it ran.
var resnetModel string

// resnetCase is inference of torchvision's ResNet-18, exported by PyTorch
// to ONNX and run through onnx.Load and Model.Run, on a batch of 224×224
// images; PyTorch runs the same architecture (its own random weights) in
// eval mode under no_grad.
func resnetCase(batch int) benchCase {
	return benchCase{
		Name: fmt.Sprintf("onnx resnet18 batch %d", batch), Kind: "onnx_resnet18", N: batch, Threads: []int{1, 2},
		flops: 2 * resnetMACs * float64(batch), limit: limitFMA,
		build: func(dev *tensor.Device) (func() *tensor.Tensor, []*tensor.Tensor) {
			m, err := onnx.Load(dev, resnetModel)
			if err != nil {
				panic(&tensor.UsageError{Op: "onnx.Load", Msg: err.Error()})
			}
			x := tensor.Randn(dev, batch, 3, 224, 224)
			return func() *tensor.Tensor {
				outs, err := m.Run(x)
				if err != nil {
					panic(&tensor.UsageError{Op: "onnx.Run", Msg: err.Error()})
				}
				return outs[0]
			}, ins(x)
		},
	}
}

// prepareONNX exports the ONNX benchmarks' model with PyTorch when cs has
// any; without python3, torch, torchvision or onnx it leaves those
// benchmarks out and says why. cleanup removes the exported file.
func prepareONNX(cs []benchCase, stderr io.Writer) (kept []benchCase, cleanup func()) {
	cleanup = func() {}
	need := false
	for _, c := range cs {
		need = need || c.Kind == "onnx_resnet18"
	}
	if !need {
		return cs, cleanup
	}
	dir, err := os.MkdirTemp("", "shaderflow-onnx-")
	if err == nil {
		cleanup = func() { os.RemoveAll(dir) }
		script := filepath.Join(dir, "export.py")
		resnetModel = filepath.Join(dir, "resnet18.onnx")
		if err = os.WriteFile(script, []byte(onnxExportScript), 0o600); err == nil {
			var out []byte
			if out, err = exec.Command(python, script, resnetModel).CombinedOutput(); err != nil {
				err = fmt.Errorf("%v: %s", err, lastLines(out))
			}
		}
	}
	if err == nil {
		return cs, cleanup
	}
	fmt.Fprintln(stderr, "no ONNX benchmarks: exporting ResNet-18 needs python3 with torch, torchvision and onnx:", err)
	for _, c := range cs {
		if c.Kind != "onnx_resnet18" {
			kept = append(kept, c)
		}
	}
	return kept, cleanup
}

// lastLines keeps the end of a command's output for an error message.
func lastLines(b []byte) string {
	if len(b) > 400 {
		b = b[len(b)-400:]
	}
	return string(b)
}
