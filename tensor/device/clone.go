package device

import "slices"

// Kernel structs are not retained by a backend after a call returns (see
// Device), so a backend that runs kernels later, on another goroutine, keeps
// a deep copy: the Clone methods below. Buffers are shared, not copied.

// cloner copies the slices of one kernel, carving its shapes and strides out
// of one int arena to keep a copy to a few allocations.
type cloner struct{ ints []int }

func newCloner() *cloner { return &cloner{ints: make([]int, 0, 64)} }

func (c *cloner) intsOf(s []int) []int {
	if s == nil {
		return nil
	}
	n := len(c.ints)
	c.ints = append(c.ints, s...)
	return c.ints[n:len(c.ints):len(c.ints)]
}

func (c *cloner) view(v View) View {
	v.Shape, v.Strides = c.intsOf(v.Shape), c.intsOf(v.Strides)
	return v
}

func (c *cloner) views(vs []View) []View {
	if vs == nil {
		return nil
	}
	out := make([]View, len(vs))
	for i, v := range vs {
		out[i] = c.view(v)
	}
	return out
}

func (c *cloner) geometry(g ConvGeometry) ConvGeometry {
	g.In, g.Kernel, g.Out = c.intsOf(g.In), c.intsOf(g.Kernel), c.intsOf(g.Out)
	g.Stride, g.Padding, g.Dilation = c.intsOf(g.Stride), c.intsOf(g.Padding), c.intsOf(g.Dilation)
	return g
}

func cloneProgram(p Program) Program {
	return Program{Code: slices.Clone(p.Code), Outputs: slices.Clone(p.Outputs)}
}

// Clone returns a deep copy of k.
func (k *ElementwiseKernel) Clone() *ElementwiseKernel {
	c := newCloner()
	return &ElementwiseKernel{Shape: c.intsOf(k.Shape), Inputs: c.views(k.Inputs), Program: cloneProgram(k.Program), Outputs: c.views(k.Outputs)}
}

// Clone returns a deep copy of k.
func (k *ReduceKernel) Clone() *ReduceKernel {
	c := newCloner()
	return &ReduceKernel{Op: k.Op, OutShape: c.intsOf(k.OutShape), RedShape: c.intsOf(k.RedShape), Inputs: c.views(k.Inputs),
		Prologue: cloneProgram(k.Prologue), EpilogueInputs: c.views(k.EpilogueInputs), Epilogue: cloneProgram(k.Epilogue), Outputs: c.views(k.Outputs)}
}

// Clone returns a deep copy of k.
func (k *MatMulKernel) Clone() *MatMulKernel {
	c := newCloner()
	return &MatMulKernel{Batch: c.intsOf(k.Batch), M: k.M, N: k.N, K: k.K, A: c.view(k.A), B: c.view(k.B),
		EpilogueInputs: c.views(k.EpilogueInputs), Epilogue: cloneProgram(k.Epilogue), Outputs: c.views(k.Outputs)}
}

// Clone returns a deep copy of k.
func (k *ConvKernel) Clone() *ConvKernel {
	c := newCloner()
	return &ConvKernel{Mode: k.Mode, Geom: c.geometry(k.Geom), A: c.view(k.A), B: c.view(k.B),
		EpilogueInputs: c.views(k.EpilogueInputs), Epilogue: cloneProgram(k.Epilogue), Outputs: c.views(k.Outputs)}
}

// Clone returns a deep copy of k.
func (k *PoolKernel) Clone() *PoolKernel {
	c, out := newCloner(), *k
	out.Geom, out.X, out.Out, out.Indices = c.geometry(k.Geom), c.view(k.X), c.view(k.Out), c.view(k.Indices)
	return &out
}

// Clone returns a deep copy of k.
func (k *GatherKernel) Clone() *GatherKernel {
	c, out := newCloner(), *k
	out.Src, out.Index, out.Out = c.view(k.Src), c.view(k.Index), c.view(k.Out)
	return &out
}

// Clone returns a deep copy of k.
func (k *ScatterKernel) Clone() *ScatterKernel {
	c, out := newCloner(), *k
	out.Dst, out.Index, out.Src = c.view(k.Dst), c.view(k.Index), c.view(k.Src)
	return &out
}

// Clone returns a deep copy of k.
func (k *CopyKernel) Clone() *CopyKernel {
	c := newCloner()
	return &CopyKernel{Dst: c.view(k.Dst), Src: c.view(k.Src)}
}

// Clone returns a deep copy of k.
func (k *SoftmaxKernel) Clone() *SoftmaxKernel {
	c, out := newCloner(), *k
	out.In, out.Out = c.view(k.In), c.view(k.Out)
	return &out
}

// Clone returns a deep copy of k.
func (k *SoftmaxBackwardKernel) Clone() *SoftmaxBackwardKernel {
	c, out := newCloner(), *k
	out.Y, out.G, out.Out = c.view(k.Y), c.view(k.G), c.view(k.Out)
	return &out
}

// Clone returns a deep copy of k.
func (k *NormalizeKernel) Clone() *NormalizeKernel {
	c, out := newCloner(), *k
	out.In, out.Out = c.view(k.In), c.view(k.Out)
	return &out
}

// Clone returns a deep copy of k.
func (k *NormalizeBackwardKernel) Clone() *NormalizeBackwardKernel {
	c, out := newCloner(), *k
	out.X, out.G, out.Out = c.view(k.X), c.view(k.G), c.view(k.Out)
	return &out
}

// Clone returns a deep copy of k.
func (k *AttentionKernel) Clone() *AttentionKernel {
	c, out := newCloner(), *k
	out.Q, out.K, out.V, out.Out, out.LSE = c.view(k.Q), c.view(k.K), c.view(k.V), c.view(k.Out), c.view(k.LSE)
	return &out
}

// Clone returns a deep copy of k.
func (k *AttentionBackwardKernel) Clone() *AttentionBackwardKernel {
	c, out := newCloner(), *k
	out.Q, out.K, out.V = c.view(k.Q), c.view(k.K), c.view(k.V)
	out.Out, out.LSE, out.GradOut = c.view(k.Out), c.view(k.LSE), c.view(k.GradOut)
	out.GradQ, out.GradK, out.GradV = c.view(k.GradQ), c.view(k.GradK), c.view(k.GradV)
	return &out
}

// Clone returns a deep copy of k.
func (k *SortKernel) Clone() *SortKernel {
	c, out := newCloner(), *k
	out.X, out.Out = c.view(k.X), c.view(k.Out)
	return &out
}

// Clone returns a deep copy of k.
func (k *CumsumKernel) Clone() *CumsumKernel {
	c, out := newCloner(), *k
	out.X, out.Out = c.view(k.X), c.view(k.Out)
	return &out
}
