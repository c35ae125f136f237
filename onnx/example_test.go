package onnx_test

import (
	"encoding/binary"
	"fmt"
	"log"
	"math"

	"github.com/shaderflow/shaderflow/onnx"
	"github.com/shaderflow/shaderflow/tensor"
	_ "github.com/shaderflow/shaderflow/tensor/backends"
)

// Example builds a one-node model in memory (a file exported by PyTorch
// loads the same way, with onnx.Load(dev, "model.onnx")) and runs it.
func Example() {
	w := make([]byte, 4*6)
	for i, v := range []float32{1, -2, 3, 4, -5, 6} {
		binary.LittleEndian.PutUint32(w[4*i:], math.Float32bits(v))
	}
	model := &onnx.ModelProto{
		IRVersion: 8, Opsets: []onnx.OpsetID{{Version: 17}}, HasGraph: true,
		Graph: onnx.GraphProto{
			Nodes:        []onnx.NodeProto{{Name: "mm", OpType: "MatMul", Inputs: []string{"x", "w"}, Outputs: []string{"y"}}},
			Initializers: []onnx.TensorProto{{Name: "w", DataType: onnx.Float, Dims: []int64{3, 2}, Raw: w}},
			Inputs:       []onnx.ValueInfo{{Name: "x", ElemType: onnx.Float}},
			Outputs:      []onnx.ValueInfo{{Name: "y", ElemType: onnx.Float}},
		},
	}
	dev, err := tensor.Open("cpu")
	if err != nil {
		log.Fatal(err)
	}
	defer dev.Close()
	m, err := onnx.LoadBytes(dev, onnx.Encode(model), "")
	if err != nil {
		log.Fatal(err)
	}
	outs, err := m.Run(tensor.FromFloat32s(dev, []float32{1, 2, 3}, 1, 3))
	if err != nil {
		log.Fatal(err)
	}
	y, _ := outs[0].Float32s()
	fmt.Println(outs[0].Shape(), y)
	// Output: [1 2] [-8 24]
}
