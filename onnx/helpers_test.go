package onnx

import (
	"encoding/binary"
	"math"
)

// rawF32 returns the little-endian bytes of vals.
func rawF32(vals ...float32) []byte {
	b := make([]byte, 4*len(vals))
	for i, v := range vals {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(v))
	}
	return b
}

// sampleModel is a small valid model: y = Relu(x @ w + b) reshaped by an
// int64 initializer, with attributes of several types.
func sampleModel() *ModelProto {
	return &ModelProto{
		IRVersion:    8,
		ProducerName: "test",
		Opsets:       []OpsetID{{Domain: "", Version: 17}},
		HasGraph:     true,
		Graph: GraphProto{
			Name: "g",
			Nodes: []NodeProto{
				{Name: "mm", OpType: "MatMul", Inputs: []string{"x", "w"}, Outputs: []string{"xw"}},
				{Name: "add", OpType: "Add", Inputs: []string{"xw", "b"}, Outputs: []string{"s"}},
				{Name: "relu", OpType: "Relu", Inputs: []string{"s"}, Outputs: []string{"r"}},
				{Name: "reshape", OpType: "Reshape", Inputs: []string{"r", "shape"}, Outputs: []string{"y"}},
				{Name: "sm", OpType: "Softmax", Inputs: []string{"y"}, Outputs: []string{"z"},
					Attributes: []AttributeProto{{Name: "axis", Type: AttrInt, I: -1}}},
				{Name: "c", OpType: "Constant", Outputs: []string{"k"},
					Attributes: []AttributeProto{{Name: "value", Type: AttrTensor,
						T: &TensorProto{DataType: Float, Dims: []int64{2}, Raw: rawF32(1, 2)}}}},
				{Name: "lr", OpType: "LeakyRelu", Inputs: []string{"z"}, Outputs: []string{"out"},
					Attributes: []AttributeProto{{Name: "alpha", Type: AttrFloat, F: 0.5},
						{Name: "ints", Type: AttrInts, Ints: []int64{1, -2}},
						{Name: "floats", Type: AttrFloats, Floats: []float32{1.5}},
						{Name: "s", Type: AttrString, S: []byte("abc")}}},
			},
			Initializers: []TensorProto{
				{Name: "w", DataType: Float, Dims: []int64{3, 2}, Raw: rawF32(1, -2, 3, 4, -5, 6)},
				{Name: "b", DataType: Float, Dims: []int64{2}, Raw: rawF32(0.5, -0.5)},
				{Name: "shape", DataType: Int64, Dims: []int64{2}, Ints: []int64{-1, 2}},
			},
			Inputs:  []ValueInfo{{Name: "x", ElemType: Float, HasShape: true, Dims: []int64{-1, 3}, Params: []string{"N", ""}}},
			Outputs: []ValueInfo{{Name: "out", ElemType: Float, HasShape: true, Dims: []int64{-1, 2}, Params: []string{"N", ""}}},
		},
	}
}
