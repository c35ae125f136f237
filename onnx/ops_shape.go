package onnx

import (
	"fmt"
	"slices"

	"github.com/shaderflow/shaderflow/tensor"
	"github.com/shaderflow/shaderflow/tensor/device"
)

// intHost makes an INT64 host value.
func intHost(shape []int, vals ...int) *hostValue {
	h := newHost(Int64, shape)
	for k, v := range vals {
		h.i[k] = int64(v)
	}
	return h
}

func runIdentity(c *call) error {
	if err := c.need(1); err != nil {
		return err
	}
	c.out = append(c.out, c.in[0])
	return nil
}

// runDropout is the identity in inference; the mask output is all true.
func runDropout(c *call) error {
	if err := c.need(1); err != nil {
		return err
	}
	ratio := c.n.attrFloat("ratio", 0.5)
	if c.arg(1) != nil {
		ratio = c.h(1).at(0)
	}
	if v := c.arg(2); v != nil && (v.host == nil || v.host.at(0) != 0) && ratio != 0 {
		return c.unsupported("training mode")
	}
	c.out = append(c.out, c.in[0])
	if len(c.n.Outputs) > 1 {
		shape := c.in[0].shape
		if numel(shape) <= hostLimit {
			h := newHost(Bool, shape)
			for k := range h.i {
				h.i[k] = 1
			}
			c.setHost(h)
		} else {
			c.setDev(Bool, tensor.FullOf(c.m.dev, tensor.Bool, 1, shape...))
		}
	}
	return nil
}

func runConstant(c *call) error {
	var h *hostValue
	var err error
	switch a := c.n.Attributes; {
	case len(a) != 1:
		return fmt.Errorf("%d attributes, want 1", len(a))
	case a[0].Name == "value" && a[0].T != nil:
		if a[0].T.External != nil {
			return c.unsupported("a constant with external data")
		}
		h, err = tensorValue(a[0].T, nil)
	case a[0].Name == "value_float":
		h = newHost(Float, nil)
		h.f[0] = float64(a[0].F)
	case a[0].Name == "value_floats":
		h = newHost(Float, []int{len(a[0].Floats)})
		for k, f := range a[0].Floats {
			h.f[k] = float64(f)
		}
	case a[0].Name == "value_int":
		h = intHost(nil, int(a[0].I))
		h.i[0] = a[0].I
	case a[0].Name == "value_ints":
		h = newHost(Int64, []int{len(a[0].Ints)})
		copy(h.i, a[0].Ints)
	default:
		return c.unsupported("attribute %q", a[0].Name)
	}
	if err != nil {
		return err
	}
	c.out = append(c.out, hostVal(h))
	return nil
}

func runShape(c *call) error {
	if err := c.need(1); err != nil {
		return err
	}
	s := c.in[0].shape
	r := len(s)
	start, end := int(c.n.attrInt("start", 0)), int(c.n.attrInt("end", int64(r)))
	if start < 0 {
		start += r
	}
	if end < 0 {
		end += r
	}
	start, end = min(max(start, 0), r), min(max(end, 0), r)
	end = max(end, start)
	c.out = append(c.out, hostVal(intHost([]int{end - start}, s[start:end]...)))
	return nil
}

func runSize(c *call) error {
	if err := c.need(1); err != nil {
		return err
	}
	c.out = append(c.out, hostVal(intHost(nil, numel(c.in[0].shape))))
	return nil
}

// reshapeTarget resolves Reshape's shape input against the input's shape.
func reshapeTarget(in []int, spec []int, allowZero bool) ([]int, error) {
	out := slices.Clone(spec)
	infer := -1
	known := 1
	for i, d := range out {
		switch {
		case d == 0 && !allowZero:
			if i >= len(in) {
				return nil, fmt.Errorf("shape %v copies dimension %d of %v", spec, i, in)
			}
			out[i] = in[i]
		case d == -1:
			if infer >= 0 {
				return nil, fmt.Errorf("shape %v has two -1", spec)
			}
			infer = i
			continue
		case d < 0:
			return nil, fmt.Errorf("shape %v", spec)
		}
		known *= out[i]
	}
	n := numel(in)
	if infer >= 0 {
		if known == 0 || n%known != 0 {
			return nil, fmt.Errorf("cannot reshape %v to %v", in, spec)
		}
		out[infer] = n / known
	} else if known != n {
		return nil, fmt.Errorf("cannot reshape %v to %v", in, spec)
	}
	return out, nil
}

// setReshaped outputs input 0 in shape.
func (c *call) setReshaped(shape []int) {
	if c.allHost() || c.in[0].t == nil && c.in[0].host.size() <= hostLimit {
		c.out = append(c.out, hostVal(c.h(0).reshaped(shape)))
		return
	}
	c.setDev(c.in[0].dt, c.t(0).Reshape(shape...))
}

func runReshape(c *call) error {
	if err := c.need(2); err != nil {
		return err
	}
	shape, err := reshapeTarget(c.in[0].shape, c.ints(1), c.n.attrInt("allowzero", 0) != 0)
	if err != nil {
		return err
	}
	c.in = c.in[:1]
	c.setReshaped(shape)
	return nil
}

func runFlatten(c *call) error {
	if err := c.need(1); err != nil {
		return err
	}
	s := c.in[0].shape
	a := int(c.n.attrInt("axis", 1))
	if a < 0 {
		a += len(s)
	}
	if a < 0 || a > len(s) {
		return fmt.Errorf("axis %d for rank %d", c.n.attrInt("axis", 1), len(s))
	}
	c.setReshaped([]int{numel(s[:a]), numel(s[a:])})
	return nil
}

// axesArg returns the axes of Squeeze, Unsqueeze, ReduceX and the like:
// the attribute before opset `from`, input 1 from it.
func (c *call) axesArg(from int64) ([]int, bool) {
	if c.m.opset < from {
		if c.n.attr("axes") == nil {
			return nil, false
		}
		return c.n.attrInts("axes"), true
	}
	if c.arg(1) == nil {
		return nil, false
	}
	return c.ints(1), true
}

func runSqueeze(c *call) error {
	if err := c.need(1); err != nil {
		return err
	}
	s := c.in[0].shape
	as, given := c.axesArg(13)
	as, err := axesOf(as, len(s))
	if err != nil {
		return err
	}
	var out []int
	for i, d := range s {
		drop := slices.Contains(as, i)
		if !given && d == 1 {
			drop = true
		}
		if drop && d != 1 {
			return fmt.Errorf("cannot squeeze dimension %d of %v", i, s)
		}
		if !drop {
			out = append(out, d)
		}
	}
	c.in = c.in[:1]
	c.setReshaped(out)
	return nil
}

func runUnsqueeze(c *call) error {
	if err := c.need(1); err != nil {
		return err
	}
	s := c.in[0].shape
	as, _ := c.axesArg(13)
	r := len(s) + len(as)
	as, err := axesOf(as, r)
	if err != nil {
		return err
	}
	out := make([]int, 0, r)
	k := 0
	for i := 0; i < r; i++ {
		if slices.Contains(as, i) {
			out = append(out, 1)
		} else {
			out = append(out, s[k])
			k++
		}
	}
	c.in = c.in[:1]
	c.setReshaped(out)
	return nil
}

func runConcat(c *call) error {
	if len(c.in) == 0 || c.in[0] == nil {
		return fmt.Errorf("no inputs")
	}
	r := c.rank(0)
	a, err := axis(int(c.n.attrInt("axis", 0)), r)
	if err != nil {
		return err
	}
	shape := slices.Clone(c.in[0].shape)
	shape[a] = 0
	for _, v := range c.in {
		if v == nil || v.dt != c.in[0].dt || len(v.shape) != r {
			return fmt.Errorf("inputs of different types or ranks")
		}
		for i := range r {
			if i != a && v.shape[i] != shape[i] {
				return fmt.Errorf("input shapes %v and %v", c.in[0].shape, v.shape)
			}
		}
		shape[a] += v.shape[a]
	}
	if n, ok := checkedCount(shape); ok && n <= hostLimit && c.allHost() {
		out := newHost(c.in[0].dt, shape)
		outer, inner := numel(shape[:a]), numel(shape[a+1:])
		pos := 0
		for o := range outer {
			for i := range c.in {
				h := c.h(i)
				n := h.shape[a] * inner
				for k := range n {
					if out.dt.IsFloat() {
						out.f[pos] = h.f[o*n+k]
					} else {
						out.i[pos] = h.i[o*n+k]
					}
					pos++
				}
			}
		}
		c.setHost(out)
		return nil
	}
	ts := make([]*tensor.Tensor, len(c.in))
	for i := range c.in {
		ts[i] = c.t(i)
	}
	c.setDev(c.in[0].dt, tensor.Cat(a, ts...))
	return nil
}

// sliceAxis describes one sliced dimension: count elements from start,
// step apart (step may be negative).
type sliceAxis struct{ start, step, count int }

// sliceRange applies ONNX Slice's clamping rules.
func sliceRange(dim, start, end, step int) sliceAxis {
	if start < 0 {
		start += dim
	}
	if end < 0 {
		end += dim
	}
	var n int
	if step > 0 {
		start, end = min(max(start, 0), dim), min(max(end, 0), dim)
		n = (end - start + step - 1) / step
	} else {
		start, end = min(max(start, 0), dim-1), min(max(end, -1), dim-1)
		n = (start - end - step - 1) / -step
	}
	return sliceAxis{start, step, max(n, 0)}
}

// sliceTensor takes the sliced view of t along axis a.
func sliceTensor(t *tensor.Tensor, a int, s sliceAxis) *tensor.Tensor {
	if s.count == 0 {
		return t.Slice(a, 0, 0, 1)
	}
	if s.step > 0 {
		return t.Slice(a, s.start, s.start+(s.count-1)*s.step+1, s.step)
	}
	dim := t.Shape()[a]
	f := dim - 1 - s.start
	return t.Flip(a).Slice(a, f, f+(s.count-1)*-s.step+1, -s.step)
}

func runSlice(c *call) error {
	if err := c.need(1); err != nil {
		return err
	}
	s := c.in[0].shape
	var starts, ends, as, steps []int
	if c.m.opset < 10 {
		starts, ends, as = c.n.attrInts("starts"), c.n.attrInts("ends"), c.n.attrInts("axes")
	} else {
		if err := c.need(3); err != nil {
			return err
		}
		starts, ends, as, steps = c.ints(1), c.ints(2), c.ints(3), c.ints(4)
	}
	if as == nil {
		for i := range starts {
			as = append(as, i)
		}
	}
	if steps == nil {
		steps = make([]int, len(starts))
		for i := range steps {
			steps[i] = 1
		}
	}
	if len(ends) != len(starts) || len(as) != len(starts) || len(steps) != len(starts) {
		return fmt.Errorf("starts %v, ends %v, axes %v and steps %v differ in length", starts, ends, as, steps)
	}
	as, err := axesOf(as, len(s))
	if err != nil {
		return err
	}
	ranges := make([]sliceAxis, len(s))
	for i, d := range s {
		ranges[i] = sliceAxis{0, 1, d}
	}
	for i, a := range as {
		if steps[i] == 0 {
			return fmt.Errorf("step 0")
		}
		ranges[a] = sliceRange(s[a], starts[i], ends[i], steps[i])
	}
	out := make([]int, len(s))
	for i, r := range ranges {
		out[i] = r.count
	}
	if c.in[0].host != nil && c.in[0].host.size() <= hostLimit {
		h := c.h(0)
		st := device.ContiguousStrides(s)
		c.out = append(c.out, hostVal(hostPick(h, out, func(idx []int) int {
			k := 0
			for d, i := range idx {
				k += (ranges[d].start + i*ranges[d].step) * st[d]
			}
			return k
		})))
		return nil
	}
	t := c.t(0)
	for _, a := range as {
		t = sliceTensor(t, a, ranges[a])
	}
	c.setDev(c.in[0].dt, t)
	return nil
}

func runTranspose(c *call) error {
	if err := c.need(1); err != nil {
		return err
	}
	r := c.rank(0)
	perm := c.n.attrInts("perm")
	if perm == nil {
		for i := r - 1; i >= 0; i-- {
			perm = append(perm, i)
		}
	}
	if _, err := axesOf(perm, r); err != nil || len(perm) != r {
		return fmt.Errorf("perm %v for rank %d", perm, r)
	}
	if c.allHost() {
		s := c.in[0].shape
		st := device.ContiguousStrides(s)
		out := make([]int, r)
		for i, p := range perm {
			out[i] = s[p]
		}
		c.setHost(hostPick(c.h(0), out, func(idx []int) int {
			k := 0
			for i, p := range perm {
				k += idx[i] * st[p]
			}
			return k
		}))
		return nil
	}
	c.setDev(c.in[0].dt, c.t(0).Permute(perm...))
	return nil
}

func runExpand(c *call) error {
	if err := c.need(2); err != nil {
		return err
	}
	out, err := tensor.BroadcastShapes(c.in[0].shape, c.ints(1))
	if err != nil {
		return err
	}
	if c.in[0].host != nil && numel(out) <= hostLimit {
		st := stridesFor(c.in[0].shape, len(out))
		c.out = append(c.out, hostVal(hostPick(c.h(0), out, func(idx []int) int {
			k := 0
			for i, x := range idx {
				k += x * st[i]
			}
			return k
		})))
		return nil
	}
	c.setDev(c.in[0].dt, c.t(0).Expand(out...))
	return nil
}

func runGather(c *call) error {
	if err := c.need(2); err != nil {
		return err
	}
	s := c.in[0].shape
	a, err := axis(int(c.n.attrInt("axis", 0)), len(s))
	if err != nil {
		return err
	}
	idxShape := c.in[1].shape
	out := append(append(slices.Clone(s[:a]), idxShape...), s[a+1:]...)
	dim := s[a]
	if c.in[1].host != nil {
		idx := c.h(1).ints()
		norm := make([]int, len(idx))
		for k, v := range idx {
			if v < 0 {
				v += int64(dim)
			}
			if v < 0 || v >= int64(dim) {
				return fmt.Errorf("index %d out of range for dimension %d of size %d", idx[k], a, dim)
			}
			norm[k] = int(v)
		}
		if c.in[0].host != nil && numel(out) <= hostLimit {
			st := device.ContiguousStrides(s)
			ni := len(idxShape)
			ist := device.ContiguousStrides(idxShape)
			c.setHost(hostPick(c.h(0), out, func(ix []int) int {
				k := 0
				for d := 0; d < a; d++ {
					k += ix[d] * st[d]
				}
				j := 0
				for d := 0; d < ni; d++ {
					j += ix[a+d] * ist[d]
				}
				k += norm[j] * st[a]
				for d := a + 1; d < len(s); d++ {
					k += ix[d+ni-1] * st[d]
				}
				return k
			}))
			return nil
		}
		t := c.t(0)
		if len(idxShape) == 0 {
			c.setDev(c.in[0].dt, t.Select(a, norm[0]))
			return nil
		}
		i32 := make([]int32, len(norm))
		for k, v := range norm {
			i32[k] = int32(v)
		}
		ix := tensor.FromInt32s(c.m.dev, i32, len(i32))
		c.setDev(c.in[0].dt, t.IndexSelect(a, ix).Reshape(out...))
		return nil
	}
	ix := c.t(1)
	if ix.DType() != tensor.Int32 {
		return fmt.Errorf("indices of type %v", c.in[1].dt)
	}
	ix = tensor.Where(ix.LtScalar(0), ix.AddScalar(float64(dim)), ix).Reshape(-1)
	c.setDev(c.in[0].dt, c.t(0).IndexSelect(a, ix).Reshape(out...))
	return nil
}

func runConstantOfShape(c *call) error {
	if err := c.need(1); err != nil {
		return err
	}
	shape := c.ints(0)
	for _, d := range shape {
		if d < 0 {
			return fmt.Errorf("shape %v", shape)
		}
	}
	val := newHost(Float, nil)
	if a := c.n.attr("value"); a != nil && a.T != nil {
		h, err := tensorValue(a.T, nil)
		if err != nil {
			return err
		}
		if h.size() != 1 {
			return fmt.Errorf("value of %d elements", h.size())
		}
		val = h
	}
	n, ok := checkedCount(shape)
	if !ok {
		return fmt.Errorf("shape %v overflows", shape)
	}
	if n <= hostLimit {
		h := newHost(val.dt, shape)
		for k := range n {
			h.set(k, val.at(0))
		}
		c.setHost(h)
		return nil
	}
	dt, err := deviceType(val.dt)
	if err != nil {
		return err
	}
	c.setDev(val.dt, tensor.FullOf(c.m.dev, dt, val.at(0), shape...))
	return nil
}

func runRange(c *call) error {
	if err := c.need(3); err != nil {
		return err
	}
	dt := c.in[0].dt
	start, limit, delta := c.h(0).at(0), c.h(1).at(0), c.h(2).at(0)
	if delta == 0 {
		return fmt.Errorf("delta 0")
	}
	n := int(max(0, ceilDiv(limit-start, delta)))
	if n > 1<<31 {
		return fmt.Errorf("%d elements", n)
	}
	if n <= hostLimit {
		h := newHost(dt, []int{n})
		for k := range n {
			if dt.IsFloat() {
				h.set(k, start+float64(k)*delta)
			} else {
				h.i[k] = c.h(0).i[0] + int64(k)*c.h(2).i[0]
			}
		}
		c.setHost(h)
		return nil
	}
	t := tensor.Arange(c.m.dev, start, start+float64(n)*delta, delta).Narrow(0, 0, n)
	if want, err := deviceType(dt); err != nil {
		return err
	} else if want != tensor.Float32 {
		t = t.Cast(want)
	}
	c.setDev(dt, t)
	return nil
}

func runSplit(c *call) error {
	if err := c.need(1); err != nil {
		return err
	}
	s := c.in[0].shape
	a, err := axis(int(c.n.attrInt("axis", 0)), len(s))
	if err != nil {
		return err
	}
	var sizes []int
	if c.m.opset < 13 {
		sizes = c.n.attrInts("split")
	} else if c.arg(1) != nil {
		sizes = c.ints(1)
	}
	if sizes == nil {
		k := len(c.n.Outputs)
		if c.n.attr("num_outputs") != nil {
			k = int(c.n.attrInt("num_outputs", 0))
		}
		if k <= 0 {
			return fmt.Errorf("%d outputs", k)
		}
		part := (s[a] + k - 1) / k
		for left := s[a]; len(sizes) < k; left -= part {
			sizes = append(sizes, min(part, max(left, 0)))
		}
	}
	total := 0
	for _, v := range sizes {
		if v < 0 {
			return fmt.Errorf("split %v", sizes)
		}
		total += v
	}
	if total != s[a] {
		return fmt.Errorf("split %v of dimension %d of %v", sizes, a, s)
	}
	if c.allHost() {
		st := device.ContiguousStrides(s)
		off := 0
		for _, n := range sizes {
			out := slices.Clone(s)
			out[a] = n
			o := off
			c.setHost(hostPick(c.h(0), out, func(idx []int) int {
				k := 0
				for d, i := range idx {
					if d == a {
						i += o
					}
					k += i * st[d]
				}
				return k
			}))
			off += n
		}
		return nil
	}
	c.setDev(c.in[0].dt, c.t(0).SplitSizes(sizes, a)...)
	return nil
}

func runTrilu(c *call) error {
	if err := c.need(1); err != nil {
		return err
	}
	k := 0
	if c.arg(1) != nil {
		k = int(c.h(1).ints()[0])
	}
	t := c.t(0)
	if c.n.attrInt("upper", 1) != 0 {
		t = t.Triu(k)
	} else {
		t = t.Tril(k)
	}
	c.setDev(c.in[0].dt, t)
	return nil
}

func runPad(c *call) error {
	if err := c.need(1); err != nil {
		return err
	}
	r := c.rank(0)
	var pads []int
	value := 0.0
	var as []int
	if c.m.opset < 11 {
		pads = c.n.attrInts("pads")
		value = c.n.attrFloat("value", 0)
	} else {
		if err := c.need(2); err != nil {
			return err
		}
		pads = c.ints(1)
		if v := c.arg(2); v != nil && numel(v.shape) > 0 {
			value = c.h(2).at(0)
		}
		as = c.ints(3)
	}
	if as == nil {
		for i := range r {
			as = append(as, i)
		}
	}
	as, err := axesOf(as, r)
	if err != nil {
		return err
	}
	if len(pads) != 2*len(as) {
		return fmt.Errorf("pads %v for %d axes", pads, len(as))
	}
	before, after := make([]int, r), make([]int, r)
	for i, a := range as {
		before[a], after[a] = pads[i], pads[i+len(as)]
	}
	var mode tensor.PadMode
	switch m := c.n.attrString("mode", "constant"); m {
	case "constant":
		mode = tensor.PadConstant
	case "reflect":
		mode = tensor.PadReflect
	case "edge":
		mode = tensor.PadReplicate
	default:
		return c.unsupported("mode %q", m)
	}
	tp := make([]int, 0, 2*r)
	for a := r - 1; a >= 0; a-- {
		tp = append(tp, before[a], after[a])
	}
	c.setDev(c.in[0].dt, c.t(0).Pad(tp, mode, value))
	return nil
}

func runTile(c *call) error {
	if err := c.need(2); err != nil {
		return err
	}
	reps := c.ints(1)
	if len(reps) != c.rank(0) {
		return fmt.Errorf("repeats %v for rank %d", reps, c.rank(0))
	}
	c.setDev(c.in[0].dt, c.t(0).Tile(reps...))
	return nil
}
