package onnx

import (
	"errors"
	"fmt"
	"slices"

	"github.com/shaderflow/shaderflow/tensor"
)

// UnsupportedError reports a node whose operation this package cannot run.
type UnsupportedError struct {
	OpType, Domain, Node string
	Opset                int64
	Reason               string
}

// Error names the operation, the node and the opset.
func (e *UnsupportedError) Error() string {
	op := e.OpType
	if e.Domain != "" && e.Domain != "ai.onnx" {
		op = e.Domain + "." + op
	}
	s := fmt.Sprintf("onnx: unsupported operation %s (node %q, opset %d)", op, e.Node, e.Opset)
	if e.Reason != "" {
		s += ": " + e.Reason
	}
	return s
}

// hostLimit is the largest value computed on the host when all of an
// operation's inputs are there (shape arithmetic, small constants); larger
// ones go to the device.
const hostLimit = 1 << 16

// call is one node being run: its inputs and the helpers operations use.
type call struct {
	m   *Model
	n   *NodeProto
	in  []*value // nil for an omitted optional input
	out []*value
}

// opFunc runs one kind of node.
type opFunc func(c *call) error

// Run computes the model's outputs for the given inputs, in the order of
// Inputs(). Float inputs are Float32 (or Float16/BFloat16 where the model
// says so); INT64 and INT32 inputs are Int32; BOOL inputs are Bool. The
// outputs are realized device tensors of the same correspondence. Shape
// computations (Shape, Gather, Concat, Range, ...) run on the host for the
// inputs' shapes. An operation this package does not support is an
// *UnsupportedError naming the node.
func (m *Model) Run(inputs ...*tensor.Tensor) (outs []*tensor.Tensor, err error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if len(inputs) != len(m.inputs) {
		return nil, fmt.Errorf("onnx: Run got %d inputs, the model takes %d (%s)", len(inputs), len(m.inputs), inputNames(m.inputs))
	}
	env := map[string]*value{}
	plan := m.plan(inputs)
	for i, vi := range m.inputs {
		v, err := m.input(vi, inputs[i])
		if err != nil {
			return nil, err
		}
		env[vi.Name] = v
	}
	for k := range m.proto.Graph.Nodes {
		n := &m.proto.Graph.Nodes[k]
		if hs, ok := plan[k]; ok {
			// Shape arithmetic computed by an earlier run for these shapes.
			m.planHits++
			for i, name := range n.Outputs {
				if name != "" {
					v := hostVal(hs[i])
					v.pure = true
					env[name] = v
				}
			}
			continue
		}
		if err := m.runNode(n, env); err != nil {
			return nil, err
		}
		if hs := pureOutputs(n, env); hs != nil {
			plan[k] = hs
		}
	}
	for _, o := range m.proto.Graph.Outputs {
		v, err := m.lookup(env, o.Name)
		if err != nil {
			return nil, err
		}
		t, err := m.device(v)
		if err != nil {
			return nil, err
		}
		outs = append(outs, t)
	}
	if err := tensor.Catch(func() { err = tensor.Realize(outs...) }); err != nil {
		return nil, err
	}
	return outs, err
}

// maxPlans bounds how many input shapes the model remembers the shape
// arithmetic of.
const maxPlans = 16

// plan returns the host values that earlier runs with inputs of these
// shapes and types computed, by node index (to be filled by this run).
func (m *Model) plan(inputs []*tensor.Tensor) map[int][]*hostValue {
	key := ""
	for _, t := range inputs {
		if t != nil {
			key += fmt.Sprint(t.DType(), t.Shape(), ";")
		}
	}
	if p, ok := m.plans[key]; ok {
		return p
	}
	if len(m.plans) >= maxPlans {
		clear(m.plans)
	}
	p := map[int][]*hostValue{}
	m.plans[key] = p
	return p
}

// pureOutputs returns the outputs of node n when all of them are pure host
// values, nil otherwise.
func pureOutputs(n *NodeProto, env map[string]*value) []*hostValue {
	hs := make([]*hostValue, len(n.Outputs))
	for i, name := range n.Outputs {
		if name == "" {
			continue
		}
		v := env[name]
		if v == nil || !v.pure || v.host == nil {
			return nil
		}
		hs[i] = v.host
	}
	return hs
}

func inputNames(vs []ValueInfo) string {
	s := ""
	for i, v := range vs {
		if i > 0 {
			s += ", "
		}
		s += v.Name
	}
	return s
}

// input checks a tensor given for graph input vi.
func (m *Model) input(vi ValueInfo, t *tensor.Tensor) (*value, error) {
	if t == nil {
		return nil, fmt.Errorf("onnx: input %q is nil", vi.Name)
	}
	if t.Device() != m.dev {
		return nil, fmt.Errorf("onnx: input %q is on another device", vi.Name)
	}
	want, err := deviceType(vi.ElemType)
	if err != nil {
		return nil, fmt.Errorf("onnx: input %q: %w", vi.Name, err)
	}
	if t.DType() != want {
		return nil, fmt.Errorf("onnx: input %q is %v, want %v for %v", vi.Name, t.DType(), want, vi.ElemType)
	}
	if vi.HasShape {
		shape := t.Shape()
		ok := len(shape) == len(vi.Dims)
		for i := 0; ok && i < len(shape); i++ {
			ok = vi.Dims[i] < 0 || vi.Dims[i] == int64(shape[i]) || (vi.Dims[i] == 0 && vi.Params[i] == "")
		}
		if !ok {
			return nil, fmt.Errorf("onnx: input %q has shape %v, the model declares %v", vi.Name, shape, dimsString(vi))
		}
	}
	return devVal(vi.ElemType, t), nil
}

func dimsString(vi ValueInfo) string {
	s := "["
	for i, d := range vi.Dims {
		if i > 0 {
			s += " "
		}
		if d >= 0 {
			s += fmt.Sprint(d)
		} else if vi.Params[i] != "" {
			s += vi.Params[i]
		} else {
			s += "?"
		}
	}
	return s + "]"
}

// lookup finds a value by name: computed, or an initializer.
func (m *Model) lookup(env map[string]*value, name string) (*value, error) {
	if v, ok := env[name]; ok {
		return v, nil
	}
	in, ok := m.inits[name]
	if !ok {
		return nil, malformed("value %q is used before it is computed", name)
	}
	v := &value{dt: in.proto.DataType, shape: in.proto.Shape(), host: in.host, t: in.dev, pure: in.dev == nil}
	env[name] = v
	return v, nil
}

// runNode runs one node, turning a panic of the tensor front end (a shape
// the model gets wrong) into an error that names the node.
func (m *Model) runNode(n *NodeProto, env map[string]*value) (err error) {
	if n.Domain != "" && n.Domain != "ai.onnx" {
		return &UnsupportedError{OpType: n.OpType, Domain: n.Domain, Node: n.Name, Opset: m.opset, Reason: "only the default domain is supported"}
	}
	f, ok := ops[n.OpType]
	if !ok {
		return &UnsupportedError{OpType: n.OpType, Node: n.Name, Opset: m.opset}
	}
	c := &call{m: m, n: n}
	for _, name := range n.Inputs {
		if name == "" {
			c.in = append(c.in, nil)
			continue
		}
		v, err := m.lookup(env, name)
		if err != nil {
			return err
		}
		c.in = append(c.in, v)
	}
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("onnx: node %q (%s): %v", n.Name, n.OpType, r)
		}
	}()
	if err := f(c); err != nil {
		var u *UnsupportedError
		if errors.As(err, &u) {
			return err
		}
		return fmt.Errorf("onnx: node %q (%s, opset %d): %w", n.Name, n.OpType, m.opset, err)
	}
	if len(c.out) < len(n.Outputs) {
		for i := len(c.out); i < len(n.Outputs); i++ {
			if n.Outputs[i] != "" {
				return &UnsupportedError{OpType: n.OpType, Node: n.Name, Opset: m.opset, Reason: fmt.Sprintf("output %d is not computed", i)}
			}
		}
	}
	// A node's host outputs are pure when its inputs are, and Shape and
	// Size read only shapes.
	pure := n.OpType == "Shape" || n.OpType == "Size"
	if !pure {
		pure = true
		for _, v := range c.in {
			pure = pure && (v == nil || v.pure)
		}
	}
	for i, name := range n.Outputs {
		if name != "" {
			if o := c.out[i]; o.t == nil && o.host != nil && !o.pure {
				o.pure = pure
			}
			env[name] = c.out[i]
		}
	}
	return nil
}

// device returns v on the device, uploading a host value. Uploads are not
// kept from one run to the next: a run may be inside a Scope that releases
// them (they are small: shapes, indices, constants).
func (m *Model) device(v *value) (*tensor.Tensor, error) {
	if v.t != nil {
		return v.t, nil
	}
	t, err := toDevice(m.dev, v.host)
	if err != nil {
		return nil, err
	}
	v.t = t
	return t, nil
}

// --- helpers operations use ---

// unsupported returns an UnsupportedError for this node.
func (c *call) unsupported(format string, args ...any) error {
	return &UnsupportedError{OpType: c.n.OpType, Node: c.n.Name, Opset: c.m.opset, Reason: fmt.Sprintf(format, args...)}
}

// arg returns input i, or nil when it is absent.
func (c *call) arg(i int) *value {
	if i < len(c.in) {
		return c.in[i]
	}
	return nil
}

// need checks that inputs 0..k-1 are present.
func (c *call) need(k int) error {
	for i := 0; i < k; i++ {
		if c.arg(i) == nil {
			return fmt.Errorf("input %d is missing", i)
		}
	}
	return nil
}

// allHost reports whether every present input is on the host and small,
// and so is their broadcast (the result of an elementwise operation).
func (c *call) allHost() bool {
	var shapes [][]int
	for _, v := range c.in {
		if v != nil && (v.host == nil || v.host.size() > hostLimit) {
			return false
		}
		if v != nil {
			shapes = append(shapes, v.shape)
		}
	}
	if out, err := tensor.BroadcastShapes(shapes...); err == nil {
		n, ok := checkedCount(out)
		return ok && n <= hostLimit
	}
	return true // shapes that do not broadcast: not an elementwise operation
}

// t returns input i on the device.
func (c *call) t(i int) *tensor.Tensor {
	t, err := c.m.device(c.in[i])
	if err != nil {
		panic(err)
	}
	return t
}

// h returns input i on the host, reading it back from the device if need be.
func (c *call) h(i int) *hostValue {
	v := c.in[i]
	if v.host == nil {
		h, err := fromDevice(v.dt, v.t)
		if err != nil {
			panic(err)
		}
		v.host = h
	}
	return v.host
}

// ints returns input i (a host integer tensor) as ints, or nil if absent.
func (c *call) ints(i int) []int {
	if c.arg(i) == nil {
		return nil
	}
	v := c.h(i).ints()
	out := make([]int, len(v))
	for k, x := range v {
		out[k] = clampInt(x)
	}
	return out
}

// clampInt converts x to int, saturating (ONNX uses INT64_MAX for "to the
// end" in Slice).
func clampInt(x int64) int {
	const lim = 1 << 40
	return int(max(min(x, lim), -lim))
}

// setHost sets the outputs to host values.
func (c *call) setHost(hs ...*hostValue) {
	for _, h := range hs {
		c.out = append(c.out, hostVal(h))
	}
}

// setDev sets the outputs to device tensors of ONNX type dt.
func (c *call) setDev(dt DataType, ts ...*tensor.Tensor) {
	for _, t := range ts {
		c.out = append(c.out, devVal(dt, t))
	}
}

// rank returns the rank of input i.
func (c *call) rank(i int) int { return len(c.in[i].shape) }

// axis normalizes a possibly negative axis for rank r.
func axis(a, r int) (int, error) {
	if a < -r || a >= max(r, 1) {
		return 0, fmt.Errorf("axis %d out of range for rank %d", a, r)
	}
	if a < 0 {
		a += r
	}
	return a, nil
}

// axes normalizes a list of axes.
func axesOf(as []int, r int) ([]int, error) {
	out := make([]int, len(as))
	for i, a := range as {
		x, err := axis(a, r)
		if err != nil {
			return nil, err
		}
		out[i] = x
	}
	if len(out) != len(slices.Compact(slices.Sorted(slices.Values(out)))) {
		return nil, fmt.Errorf("repeated axis in %v", as)
	}
	return out, nil
}
