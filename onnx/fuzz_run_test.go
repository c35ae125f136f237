package onnx

import (
	"testing"

	"github.com/shaderflow/shaderflow/tensor"
)

// FuzzLoadRun loads fuzzed models and runs them on small inputs of the
// declared types and shapes (symbolic dimensions 2): whatever the model, Load
// and Run return errors and never panic.
func FuzzLoadRun(f *testing.F) {
	f.Add(Encode(sampleModel()))
	f.Add(Encode(mlpModel(TensorProto{Name: "w", DataType: Float, Dims: []int64{3, 2}, Raw: rawF32(mlpWeights...)})))
	dev, err := tensor.Open("cpu")
	if err != nil {
		f.Skip(err)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		m, err := LoadBytes(dev, data, "")
		if err != nil {
			return
		}
		var ins []*tensor.Tensor
		for _, vi := range m.Inputs() {
			dt, err := deviceType(vi.ElemType)
			if err != nil || len(vi.Dims) > 4 {
				return
			}
			shape := make([]int, len(vi.Dims))
			for i, d := range vi.Dims {
				if d > 16 {
					return
				}
				shape[i] = int(max(d, 2))
				if d == 0 {
					shape[i] = 0
				}
			}
			ins = append(ins, tensor.FullOf(dev, dt, 1, shape...))
		}
		for _, n := range m.Proto().Graph.Nodes {
			// Operations that allocate what their inputs say are left out:
			// a fuzzed shape could ask the device for any size.
			switch n.OpType {
			case "ConstantOfShape", "Expand", "Range", "Tile", "Pad", "Reshape", "Resize":
				return
			}
		}
		dev.Scope(func() { _, _ = m.Run(ins...) })
	})
}
