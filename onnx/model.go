package onnx

import (
	"fmt"
	"os"
	"path/filepath"
	"sync"

	"github.com/shaderflow/shaderflow/tensor"
)

// Option configures Load.
type Option func(*options)

type options struct {
	trainable bool
}

// Trainable makes the model's floating-point initializers parameters that
// require gradients (tensor.SetRequiresGrad), so that a loss computed from
// Run's outputs back-propagates into them and an optimizer can update them
// (Parameters lists them). Without it, weights are constants.
func Trainable() Option { return func(o *options) { o.trainable = true } }

// Model is an ONNX model loaded onto a device. Run may be called from
// several goroutines; runs are serialized.
type Model struct {
	dev    *tensor.Device
	proto  *ModelProto
	file   []byte // the model file, which initializers alias
	opset  int64
	inits  map[string]*initializer
	params []Parameter
	inputs []ValueInfo // graph inputs that are not initializers
	mu     sync.Mutex
	// plans holds, for each set of input shapes seen, the pure host values
	// of the nodes computed on the host (shape arithmetic), so that they are
	// evaluated once per shape rather than once per run.
	plans    map[string]map[int][]*hostValue
	planHits int // nodes taken from plans, for tests
}

// Parameter is a floating-point initializer held on the device.
type Parameter struct {
	Name   string
	Tensor *tensor.Tensor
}

// initializer is a graph initializer: its host form when it is small or
// not floating-point, its device form otherwise (made at Load).
type initializer struct {
	proto *TensorProto
	ext   []byte // its bytes when stored in an external file
	host  *hostValue
	dev   *tensor.Tensor
}

// hostFloatLimit is the largest floating-point initializer also kept on the
// host, where shape computations and constant folding can read it.
const hostFloatLimit = 64

// Load reads the ONNX model at path and places its weights on dev. External
// data files are read from path's directory. Call it outside any Scope of
// dev (or Keep the parameters), since the weights must outlive the scope.
func Load(dev *tensor.Device, path string, opts ...Option) (*Model, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("onnx: %w", err)
	}
	return LoadBytes(dev, b, filepath.Dir(path), opts...)
}

// LoadBytes is Load for a model held in memory (b must not be modified while
// the model is in use); dir is where its external data files are, "" if it
// has none.
func LoadBytes(dev *tensor.Device, b []byte, dir string, opts ...Option) (*Model, error) {
	if dev == nil {
		return nil, fmt.Errorf("onnx: Load needs a device")
	}
	var o options
	for _, f := range opts {
		f(&o)
	}
	p, err := Decode(b)
	if err != nil {
		return nil, err
	}
	if !p.HasGraph {
		return nil, malformed("the model has no graph")
	}
	m := &Model{dev: dev, proto: p, file: b, inits: map[string]*initializer{}, plans: map[string]map[int][]*hostValue{}}
	for _, op := range p.Opsets {
		if op.Domain == "" || op.Domain == "ai.onnx" {
			m.opset = op.Version
		}
	}
	if m.opset == 0 {
		return nil, malformed("the model imports no version of the default operator set")
	}
	ext, err := readExternal(p, dir)
	if err != nil {
		return nil, err
	}
	stats := runningStats(&p.Graph)
	for i := range p.Graph.Initializers {
		t := &p.Graph.Initializers[i]
		if _, dup := m.inits[t.Name]; dup || t.Name == "" {
			return nil, malformed("initializer name %q empty or repeated", t.Name)
		}
		in := &initializer{proto: t, ext: ext[t.Name]}
		m.inits[t.Name] = in
		n, _ := t.count()
		if !t.DataType.IsFloat() || (n <= hostFloatLimit && !o.trainable) {
			if in.host, err = tensorValue(t, in.ext); err != nil {
				return nil, err
			}
			continue
		}
		if in.dev, err = m.upload(t, in.ext); err != nil {
			return nil, err
		}
		if o.trainable && !stats[t.Name] {
			in.dev.SetRequiresGrad(true)
		}
		m.params = append(m.params, Parameter{Name: t.Name, Tensor: in.dev})
	}
	for _, vi := range p.Graph.Inputs {
		if _, ok := m.inits[vi.Name]; !ok {
			m.inputs = append(m.inputs, vi)
		}
	}
	return m, nil
}

// Inputs describes the inputs Run takes, in order.
func (m *Model) Inputs() []ValueInfo { return m.inputs }

// Outputs describes the outputs Run returns, in order.
func (m *Model) Outputs() []ValueInfo { return m.proto.Graph.Outputs }

// Opset is the version of the default operator set the model imports.
func (m *Model) Opset() int64 { return m.opset }

// Parameters returns the floating-point initializers held on the device (all
// of them when loaded with Trainable; otherwise those of more than a few
// elements), in the file's order.
func (m *Model) Parameters() []Parameter { return m.params }

// TrainableTensors returns the parameters that require gradients (those of
// a model loaded with Trainable), for an optimizer.
func (m *Model) TrainableTensors() []*tensor.Tensor {
	var ts []*tensor.Tensor
	for _, p := range m.params {
		if p.Tensor.RequiresGrad() {
			ts = append(ts, p.Tensor)
		}
	}
	return ts
}

// Proto returns the decoded model.
func (m *Model) Proto() *ModelProto { return m.proto }

// runningStats returns the names of BatchNormalization's running mean and
// variance inputs, which are statistics rather than trainable weights.
func runningStats(g *GraphProto) map[string]bool {
	s := map[string]bool{}
	for _, n := range g.Nodes {
		if n.OpType == "BatchNormalization" {
			for _, i := range []int{3, 4} {
				if i < len(n.Inputs) {
					s[n.Inputs[i]] = true
				}
			}
		}
	}
	return s
}
