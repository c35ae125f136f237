package onnx

import (
	"errors"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/shaderflow/shaderflow/tensor"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// mlpModel is out = Relu(x @ w + b) with w [3, 2] and b [2] initializers.
func mlpModel(w TensorProto) *ModelProto {
	return &ModelProto{
		IRVersion: 8, Opsets: []OpsetID{{Version: 17}}, HasGraph: true,
		Graph: GraphProto{
			Nodes: []NodeProto{
				{Name: "mm", OpType: "MatMul", Inputs: []string{"x", "w"}, Outputs: []string{"xw"}},
				{Name: "add", OpType: "Add", Inputs: []string{"xw", "b"}, Outputs: []string{"s"}},
				{Name: "relu", OpType: "Relu", Inputs: []string{"s"}, Outputs: []string{"out"}},
			},
			Initializers: []TensorProto{w, {Name: "b", DataType: Float, Dims: []int64{2}, Raw: rawF32(0.5, -0.5)}},
			Inputs:       []ValueInfo{{Name: "x", ElemType: Float, HasShape: true, Dims: []int64{-1, 3}, Params: []string{"N", ""}}},
			Outputs:      []ValueInfo{{Name: "out", ElemType: Float}},
		},
	}
}

var mlpWeights = []float32{1, -2, 3, 4, -5, 6}

func runMLP(t *testing.T, dev *tensor.Device, m *Model) []float32 {
	t.Helper()
	outs, err := m.Run(tensor.FromFloat32s(dev, []float32{1, 2, 3, -1, 0, 1}, 2, 3))
	require.NoError(t, err)
	got, err := outs[0].Float32s()
	require.NoError(t, err)
	return got
}

// want is Relu(x @ w + b) computed by hand.
var mlpWant = []float32{0, 23.5, 0, 7.5}

func TestRunComputesAGraph(t *testing.T) {
	dev := openBackend(t, "cpu")
	m, err := LoadBytes(dev, Encode(mlpModel(TensorProto{Name: "w", DataType: Float, Dims: []int64{3, 2}, Raw: rawF32(mlpWeights...)})), "")
	require.NoError(t, err)
	assert.Equal(t, mlpWant, runMLP(t, dev, m))
}

func TestExternalDataIsReadFromTheModelsDirectory(t *testing.T) {
	dev := openBackend(t, "cpu")
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "w.bin"), append([]byte("header.."), rawF32(mlpWeights...)...), 0o644))
	w := TensorProto{Name: "w", DataType: Float, Dims: []int64{3, 2}, External: &ExternalData{Location: "w.bin", Offset: 8, Length: 24}}
	path := filepath.Join(dir, "m.onnx")
	require.NoError(t, os.WriteFile(path, Encode(mlpModel(w)), 0o644))
	m, err := Load(dev, path)
	require.NoError(t, err)
	assert.Equal(t, mlpWant, runMLP(t, dev, m))

	// Locations outside the directory are refused, through a link too.
	outside := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(outside, "w.bin"), rawF32(mlpWeights...), 0o644))
	require.NoError(t, os.Symlink(filepath.Join(outside, "w.bin"), filepath.Join(dir, "link.bin")))
	for _, loc := range []string{"../w.bin", filepath.Join(outside, "w.bin"), "link.bin", "missing.bin"} {
		w.External = &ExternalData{Location: loc, Length: -1}
		require.NoError(t, os.WriteFile(path, Encode(mlpModel(w)), 0o644))
		_, err := Load(dev, path)
		assert.Error(t, err, loc)
	}
	// A range beyond the file's end.
	w.External = &ExternalData{Location: "w.bin", Offset: 16, Length: 24}
	require.NoError(t, os.WriteFile(path, Encode(mlpModel(w)), 0o644))
	_, err = Load(dev, path)
	assert.ErrorIs(t, err, ErrMalformed)
}

func TestUnsupportedOpNamesTypeNodeAndOpset(t *testing.T) {
	dev := openBackend(t, "cpu")
	p := mlpModel(TensorProto{Name: "w", DataType: Float, Dims: []int64{3, 2}, Raw: rawF32(mlpWeights...)})
	p.Graph.Nodes[2].OpType = "NonMaxSuppression"
	m, err := LoadBytes(dev, Encode(p), "")
	require.NoError(t, err)
	_, err = m.Run(tensor.Zeros(dev, 2, 3))
	var u *UnsupportedError
	require.True(t, errors.As(err, &u), "%v", err)
	assert.Equal(t, "NonMaxSuppression", u.OpType)
	assert.Equal(t, "relu", u.Node)
	assert.Equal(t, int64(17), u.Opset)
	assert.Contains(t, err.Error(), `NonMaxSuppression (node "relu", opset 17)`)
}

func TestRunChecksItsInputs(t *testing.T) {
	dev := openBackend(t, "cpu")
	m, err := LoadBytes(dev, Encode(mlpModel(TensorProto{Name: "w", DataType: Float, Dims: []int64{3, 2}, Raw: rawF32(mlpWeights...)})), "")
	require.NoError(t, err)
	for name, in := range map[string][]*tensor.Tensor{
		"count": {},
		"dtype": {tensor.FromInt32s(dev, make([]int32, 6), 2, 3)},
		"shape": {tensor.Zeros(dev, 2, 4)},
		"nil":   {nil},
	} {
		_, err := m.Run(in...)
		assert.Error(t, err, name)
	}
	// A shape the graph cannot take is an error naming the node, not a panic.
	p := mlpModel(TensorProto{Name: "w", DataType: Float, Dims: []int64{3, 2}, Raw: rawF32(mlpWeights...)})
	p.Graph.Inputs[0].HasShape = false
	m, err = LoadBytes(dev, Encode(p), "")
	require.NoError(t, err)
	_, err = m.Run(tensor.Zeros(dev, 2, 4))
	require.Error(t, err)
	assert.Contains(t, err.Error(), `node "mm"`)
}

// TestInt64BeyondInt32IsAnError checks that an INT64 value the device's
// Int32 cannot hold is refused rather than truncated.
func TestInt64BeyondInt32IsAnError(t *testing.T) {
	dev := openBackend(t, "cpu")
	p := &ModelProto{IRVersion: 8, Opsets: []OpsetID{{Version: 17}}, HasGraph: true, Graph: GraphProto{
		Nodes:        []NodeProto{{Name: "add", OpType: "Add", Inputs: []string{"x", "big"}, Outputs: []string{"y"}}},
		Initializers: []TensorProto{{Name: "big", DataType: Int64, Dims: []int64{1}, Ints: []int64{math.MaxInt32 + 1}}},
		Inputs:       []ValueInfo{{Name: "x", ElemType: Int64}},
		Outputs:      []ValueInfo{{Name: "y", ElemType: Int64}},
	}}
	m, err := LoadBytes(dev, Encode(p), "")
	require.NoError(t, err)
	_, err = m.Run(tensor.FromInt32s(dev, []int32{1}, 1))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "does not fit")
}

func TestHostShapeArithmetic(t *testing.T) {
	// y = Reshape(x, Concat(Gather(Shape(x), 0), [-1])): the shape is
	// computed on the host for x's shape.
	dev := openBackend(t, "cpu")
	p := &ModelProto{IRVersion: 8, Opsets: []OpsetID{{Version: 17}}, HasGraph: true, Graph: GraphProto{
		Nodes: []NodeProto{
			{Name: "shape", OpType: "Shape", Inputs: []string{"x"}, Outputs: []string{"s"}},
			{Name: "gather", OpType: "Gather", Inputs: []string{"s", "zero"}, Outputs: []string{"n"}},
			{Name: "unsq", OpType: "Unsqueeze", Inputs: []string{"n", "axes"}, Outputs: []string{"n1"}},
			{Name: "concat", OpType: "Concat", Inputs: []string{"n1", "minus1"}, Outputs: []string{"target"},
				Attributes: []AttributeProto{{Name: "axis", Type: AttrInt, I: 0}}},
			{Name: "reshape", OpType: "Reshape", Inputs: []string{"x", "target"}, Outputs: []string{"y"}},
		},
		Initializers: []TensorProto{
			{Name: "zero", DataType: Int64, Ints: []int64{0}},
			{Name: "axes", DataType: Int64, Dims: []int64{1}, Ints: []int64{0}},
			{Name: "minus1", DataType: Int64, Dims: []int64{1}, Ints: []int64{-1}},
		},
		Inputs:  []ValueInfo{{Name: "x", ElemType: Float}},
		Outputs: []ValueInfo{{Name: "y", ElemType: Float}},
	}}
	m, err := LoadBytes(dev, Encode(p), "")
	require.NoError(t, err)
	for _, shape := range [][]int{{2, 3, 4}, {5, 2, 1, 2}} {
		outs, err := m.Run(tensor.Zeros(dev, shape...))
		require.NoError(t, err)
		assert.Equal(t, []int{shape[0], numel(shape) / shape[0]}, outs[0].Shape())
	}
}

// TestRunInsideScopes runs a model whose small weights are uploaded in each
// run inside one scope after another: nothing a scope released is reused.
func TestRunInsideScopes(t *testing.T) {
	dev := openBackend(t, "cpu")
	m, err := LoadBytes(dev, Encode(mlpModel(TensorProto{Name: "w", DataType: Float, Dims: []int64{3, 2}, Raw: rawF32(mlpWeights...)})), "")
	require.NoError(t, err)
	for range 3 {
		dev.Scope(func() {
			outs, err := m.Run(tensor.FromFloat32s(dev, []float32{1, 2, 3, -1, 0, 1}, 2, 3))
			require.NoError(t, err)
			got, err := outs[0].Float32s()
			require.NoError(t, err)
			assert.Equal(t, mlpWant, got)
		})
	}
}

// TestLargeBroadcastOfConstantsRunsOnTheDevice checks that constants whose
// broadcast is large (here 4096 x 4096) are combined on the device rather
// than in host memory.
func TestLargeBroadcastOfConstantsRunsOnTheDevice(t *testing.T) {
	dev := openBackend(t, "cpu")
	col, row := make([]int64, 4096), make([]int64, 4096)
	for i := range col {
		col[i], row[i] = int64(i), int64(i)
	}
	p := &ModelProto{IRVersion: 8, Opsets: []OpsetID{{Version: 17}}, HasGraph: true, Graph: GraphProto{
		Nodes: []NodeProto{
			{Name: "ge", OpType: "GreaterOrEqual", Inputs: []string{"col", "row"}, Outputs: []string{"mask"}},
			{Name: "sum", OpType: "Cast", Inputs: []string{"mask"}, Outputs: []string{"y"},
				Attributes: []AttributeProto{{Name: "to", Type: AttrInt, I: int64(Float)}}},
		},
		Initializers: []TensorProto{
			{Name: "col", DataType: Int64, Dims: []int64{4096, 1}, Ints: col},
			{Name: "row", DataType: Int64, Dims: []int64{1, 4096}, Ints: row},
		},
		Outputs: []ValueInfo{{Name: "y", ElemType: Float}},
	}}
	m, err := LoadBytes(dev, Encode(p), "")
	require.NoError(t, err)
	outs, err := m.Run()
	require.NoError(t, err)
	s, err := outs[0].Sum().Item()
	require.NoError(t, err)
	assert.Equal(t, float64(4096*4097/2), s)
}

// TestAllHostRefusesLargeBroadcasts checks the decision itself: two small
// host operands whose broadcast exceeds hostLimit go to the device.
func TestAllHostRefusesLargeBroadcasts(t *testing.T) {
	small := &call{in: []*value{hostVal(newHost(Int64, []int{4, 1})), hostVal(newHost(Int64, []int{1, 4}))}}
	assert.True(t, small.allHost())
	large := &call{in: []*value{hostVal(newHost(Int64, []int{4096, 1})), hostVal(newHost(Int64, []int{1, 4096}))}}
	assert.False(t, large.allHost())
}

// TestEmptyValueBeyondTheDeviceExtentIsAnError checks that a value with no
// elements whose other dimensions span more than the device indexes (found
// by FuzzLoadRun as a graph output) is an error from Run, not a panic.
func TestEmptyValueBeyondTheDeviceExtentIsAnError(t *testing.T) {
	dev := openBackend(t, "cpu")
	dims := []int64{48, 48, 48, 48, 48, 48, 48, 48, 48, 0, 48, 48, 48}
	p := &ModelProto{IRVersion: 8, Opsets: []OpsetID{{Version: 17}}, HasGraph: true, Graph: GraphProto{
		Initializers: []TensorProto{{Name: "e", DataType: Float, Dims: dims}},
		Outputs:      []ValueInfo{{Name: "e", ElemType: Float}},
	}}
	m, err := LoadBytes(dev, Encode(p), "")
	require.NoError(t, err)
	require.NotPanics(t, func() { _, err = m.Run() })
	require.Error(t, err)
	assert.Contains(t, err.Error(), "spans more than")
}
