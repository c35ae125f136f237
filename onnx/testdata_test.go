package onnx

import (
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/shaderflow/shaderflow/tensor"
	"github.com/stretchr/testify/require"
)

// onnxTestData is where Debian's libonnx-testdata puts ONNX's backend node
// tests: one directory per case with model.onnx and test_data_set_*/ of
// input_*.pb and output_*.pb TensorProto files.
const onnxTestData = "/usr/share/libonnx-testdata/data/node"

// nodeCase is one backend node test whose operations are all supported.
type nodeCase struct {
	name, dir string
	ops       []string
}

// nodeCases lists the cases of the data set that use only supported
// operations, or skips saying why there are none.
func nodeCases(t *testing.T) []nodeCase {
	entries, err := os.ReadDir(onnxTestData)
	if err != nil {
		if os.Getenv("SHADERFLOW_REQUIRE_ONNX_TESTDATA") == "1" {
			t.Fatalf("SHADERFLOW_REQUIRE_ONNX_TESTDATA=1: %v", err)
		}
		t.Skipf("ONNX backend test data not found (Debian: libonnx-testdata): %v", err)
	}
	var cases []nodeCase
	for _, e := range entries {
		dir := filepath.Join(onnxTestData, e.Name())
		b, err := os.ReadFile(filepath.Join(dir, "model.onnx"))
		if err != nil {
			continue
		}
		m, err := Decode(b)
		require.NoError(t, err, e.Name())
		var opTypes []string
		ok := len(m.Graph.Nodes) > 0
		for _, n := range m.Graph.Nodes {
			_, known := ops[n.OpType]
			ok = ok && known && (n.Domain == "" || n.Domain == "ai.onnx")
			opTypes = append(opTypes, n.OpType)
		}
		if ok {
			cases = append(cases, nodeCase{e.Name(), dir, opTypes})
		}
	}
	return cases
}

// issueOps are the operations that PyTorch 1.13's exporter produces for
// MLPs, CNNs, ResNet-18 and GPT-style transformers, and those users of other
// Go importers ask for: each must pass at least one case of the data set.
var issueOps = []string{"Add", "BatchNormalization", "Cast", "Concat", "Constant", "ConstantOfShape",
	"Conv", "Div", "Equal", "Erf", "Flatten", "Gather", "Gemm", "GlobalAveragePool", "Identity",
	"LayerNormalization", "MatMul", "MaxPool", "Mul", "Pow", "Range", "ReduceMean", "Relu", "Reshape",
	"Shape", "Slice", "Softmax", "Split", "Sqrt", "Sub", "Tanh", "Transpose", "Trilu", "Unsqueeze",
	"Where", "AveragePool", "Pad", "Sigmoid", "Min", "Max", "Clip", "ReduceSum", "Squeeze", "Expand",
	"LeakyRelu"}

// knownGaps are cases of supported operations that this package refuses
// or computes differently, with the reason. Every other case must pass.
var knownGaps = map[string]string{
	"test_cast_BFLOAT16_to_FLOAT":              bf16Bits,
	"test_cast_FLOAT_to_BFLOAT16":              bf16Bits,
	"test_castlike_BFLOAT16_to_FLOAT_expanded": bf16Bits,
	"test_castlike_FLOAT_to_BFLOAT16_expanded": bf16Bits,
}

const bf16Bits = "the data set stores BFLOAT16 values as UINT16 bits (NumPy has no bfloat16)"

// TestONNXBackendNodeCases runs every node test of ONNX's backend test data
// (libonnx-testdata) whose operations this package implements, on the CPU
// backend. A case is skipped, with the reason, only when it needs a type
// the device does not hold (DOUBLE, INT64 values beyond Int32, strings) or
// an attribute value the package refuses with an UnsupportedError.
func TestONNXBackendNodeCases(t *testing.T) {
	cases := nodeCases(t)
	dev := openBackend(t, "cpu")
	covered := map[string]int{}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if why, ok := knownGaps[c.name]; ok {
				t.Skip(why)
			}
			skip, err := runNodeCase(dev, c.dir, false)
			if skip != "" {
				t.Skip(skip)
			}
			require.NoError(t, err)
			// Again with the inputs as constants, which runs the host
			// implementations (shape arithmetic) where there are any.
			skip, err = runNodeCase(dev, c.dir, true)
			if skip == "" {
				require.NoError(t, err, "inputs as constants")
			}
			for _, op := range c.ops {
				covered[op]++
			}
		})
	}
	if t.Failed() {
		return
	}
	for _, op := range issueOps {
		if covered[op] == 0 {
			t.Errorf("no case of %s passed", op)
		}
	}
	var names []string
	for op, n := range covered {
		names = append(names, fmt.Sprintf("%s:%d", op, n))
	}
	slices.Sort(names)
	t.Logf("%d cases; passing cases per operation: %s", len(cases), strings.Join(names, " "))
}

// runNodeCase runs a case's test data sets, returning a reason to skip or
// an error describing the first mismatch. With constants, the inputs become
// initializers of the graph instead of tensors given to Run.
func runNodeCase(dev *tensor.Device, dir string, constants bool) (skip string, err error) {
	b, err := os.ReadFile(filepath.Join(dir, "model.onnx"))
	if err != nil {
		return "", err
	}
	m, err := LoadBytes(dev, b, dir)
	if err != nil {
		return "", err
	}
	for _, in := range m.Inputs() {
		if in.ElemType == Undefined {
			return fmt.Sprintf("input %q is not a tensor (sequence or optional)", in.Name), nil
		}
	}
	sets, _ := filepath.Glob(filepath.Join(dir, "test_data_set_*"))
	for _, set := range sets {
		ins, err := readPBFiles(set, "input")
		var want []*hostValue
		if err == nil {
			want, err = readPBFiles(set, "output")
		}
		if errors.Is(err, ErrMalformed) && strings.Contains(err.Error(), "string tensors") {
			return err.Error(), nil
		}
		if err != nil {
			return "", err
		}
		if constants {
			p, err := Decode(b)
			if err != nil {
				return "", err
			}
			for i, in := range m.Inputs() {
				if i < len(ins) {
					p.Graph.Initializers = append(p.Graph.Initializers, TensorProto{
						Name: in.Name, DataType: ins[i].dt, Dims: int64s(ins[i].shape), Raw: hostBytes(ins[i])})
				}
			}
			if m, err = LoadBytes(dev, Encode(p), dir); err != nil {
				return "", err
			}
			ins = nil
		}
		var ts []*tensor.Tensor
		for _, h := range ins {
			if _, err := deviceType(h.dt); err != nil {
				return fmt.Sprintf("input of type %v", h.dt), nil
			}
			x, err := toDevice(dev, h)
			if err != nil {
				return err.Error(), nil
			}
			ts = append(ts, x)
		}
		for _, h := range want {
			if _, err := deviceType(h.dt); err != nil {
				return fmt.Sprintf("output of type %v", h.dt), nil
			}
		}
		outs, err := m.Run(ts...)
		var u *UnsupportedError
		if errors.As(err, &u) {
			return err.Error(), nil
		}
		if err != nil {
			if strings.Contains(err.Error(), "not supported on the device") || strings.Contains(err.Error(), "does not fit the device's Int32") {
				return err.Error(), nil
			}
			return "", err
		}
		if len(outs) != len(want) {
			return "", fmt.Errorf("%d outputs, want %d", len(outs), len(want))
		}
		for i := range want {
			if err := compareNode(outs[i], want[i]); err != nil {
				return "", fmt.Errorf("%s output %d: %w", filepath.Base(set), i, err)
			}
		}
	}
	return "", nil
}

// readPBFiles reads set/prefix_0.pb, ... until one is missing.
func readPBFiles(set, prefix string) ([]*hostValue, error) {
	var out []*hostValue
	for i := 0; ; i++ {
		b, err := os.ReadFile(filepath.Join(set, fmt.Sprintf("%s_%d.pb", prefix, i)))
		if err != nil {
			return out, nil
		}
		tp, err := decodeTensor(b)
		if err != nil {
			return nil, err
		}
		h, err := tensorValue(&tp, nil)
		if err != nil {
			return nil, err
		}
		out = append(out, h)
	}
}

// compareNode compares with the backend tests' tolerance (ONNX's runner
// uses rtol 1e-3, atol 1e-7; atol is 1e-5 here, float32's resolution near
// the small results of some cases).
func compareNode(got *tensor.Tensor, want *hostValue) error {
	if !slices.Equal(got.Shape(), want.shape) {
		return fmt.Errorf("shape %v, want %v", got.Shape(), want.shape)
	}
	g, err := fromDevice(want.dt, got)
	if err != nil {
		return err
	}
	for k := range want.size() {
		w, x := want.at(k), g.at(k)
		if math.IsNaN(w) && math.IsNaN(x) || w == x {
			continue
		}
		if !(math.Abs(w-x) <= 1e-5+1e-3*math.Abs(w)) {
			return fmt.Errorf("element %d is %g, want %g", k, x, w)
		}
	}
	return nil
}

func int64s(v []int) []int64 {
	out := make([]int64, len(v))
	for i, x := range v {
		out[i] = int64(x)
	}
	return out
}
