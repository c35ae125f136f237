package onnx

import (
	"testing"

	"github.com/shaderflow/shaderflow/tensor"
	"github.com/stretchr/testify/require"
)

// binaryIntModel is y = op(a, b) over INT32 inputs given at run time, so
// that the operation runs on the device.
func binaryIntModel(op string, attrs ...AttributeProto) *ModelProto {
	return &ModelProto{IRVersion: 8, Opsets: []OpsetID{{Version: 17}}, HasGraph: true, Graph: GraphProto{
		Nodes:   []NodeProto{{Name: "n", OpType: op, Inputs: []string{"a", "b"}, Outputs: []string{"y"}, Attributes: attrs}},
		Inputs:  []ValueInfo{{Name: "a", ElemType: Int32}, {Name: "b", ElemType: Int32}},
		Outputs: []ValueInfo{{Name: "y", ElemType: Int32}},
	}}
}

// TestIntegerDivAndModAreExact checks ONNX's integer Div (truncating) and
// Mod (the divisor's sign, or C fmod) on the device with operands beyond
// 2^24, where a float32 detour loses the low bits.
func TestIntegerDivAndModAreExact(t *testing.T) {
	dev := openBackend(t, "cpu")
	a := []int32{16777217, -7, 7, -7, 2147483647, -2147483647, 9, 0}
	b := []int32{1, 2, -2, -2, 3, 16777216, 3, 5}
	for _, c := range []struct {
		name  string
		model *ModelProto
		want  []int32
	}{
		{"Div", binaryIntModel("Div"), []int32{16777217, -3, -3, 3, 715827882, -127, 3, 0}},
		{"Mod", binaryIntModel("Mod"), []int32{0, 1, -1, -1, 1, 1, 0, 0}},
		{"Mod(fmod=1)", binaryIntModel("Mod", AttributeProto{Name: "fmod", Type: AttrInt, I: 1}), []int32{0, -1, 1, -1, 1, -16777215, 0, 0}},
	} {
		m, err := LoadBytes(dev, Encode(c.model), "")
		require.NoError(t, err, c.name)
		outs, err := m.Run(tensor.FromInt32s(dev, a, len(a)), tensor.FromInt32s(dev, b, len(b)))
		require.NoError(t, err, c.name)
		got, err := outs[0].Int32s()
		require.NoError(t, err, c.name)
		require.Equal(t, c.want, got, c.name)
	}
}

// TestWideIntegerMaxPoolIsRefused checks that MaxPool of INT32 values, which
// would pool through float32 and lose bits above 2^24, is an unsupported
// error rather than a rounded result.
func TestWideIntegerMaxPoolIsRefused(t *testing.T) {
	dev := openBackend(t, "cpu")
	p := &ModelProto{IRVersion: 8, Opsets: []OpsetID{{Version: 17}}, HasGraph: true, Graph: GraphProto{
		Nodes: []NodeProto{{Name: "pool", OpType: "MaxPool", Inputs: []string{"x"}, Outputs: []string{"y"},
			Attributes: []AttributeProto{{Name: "kernel_shape", Type: AttrInts, Ints: []int64{2}}}}},
		Inputs:  []ValueInfo{{Name: "x", ElemType: Int32}},
		Outputs: []ValueInfo{{Name: "y", ElemType: Int32}},
	}}
	m, err := LoadBytes(dev, Encode(p), "")
	require.NoError(t, err)
	_, err = m.Run(tensor.FromInt32s(dev, []int32{16777217, 3, 5, 16777219}, 1, 1, 4))
	var ue *UnsupportedError
	require.ErrorAs(t, err, &ue)
	require.Contains(t, err.Error(), "INT32")
}

// TestIntegerPowIsExact checks integer Pow with a constant exponent beyond
// 2^24 (3^17 = 129140163) and that a tensor exponent is unsupported rather
// than computed through float32.
func TestIntegerPowIsExact(t *testing.T) {
	dev := openBackend(t, "cpu")
	model := func(exp *TensorProto) *ModelProto {
		p := binaryIntModel("Pow")
		if exp != nil {
			p.Graph.Initializers = []TensorProto{*exp}
			p.Graph.Inputs = p.Graph.Inputs[:1]
		}
		return p
	}
	m, err := LoadBytes(dev, Encode(model(&TensorProto{Name: "b", DataType: Int32, Ints: []int64{17}})), "")
	require.NoError(t, err)
	outs, err := m.Run(tensor.FromInt32s(dev, []int32{3, -3, 1, 0}, 4))
	require.NoError(t, err)
	got, err := outs[0].Int32s()
	require.NoError(t, err)
	require.Equal(t, []int32{129140163, -129140163, 1, 0}, got)

	m, err = LoadBytes(dev, Encode(model(nil)), "")
	require.NoError(t, err)
	_, err = m.Run(tensor.FromInt32s(dev, []int32{3}, 1), tensor.FromInt32s(dev, []int32{17}, 1))
	var ue *UnsupportedError
	require.ErrorAs(t, err, &ue)
}
