package device

import (
	"fmt"
	"math"
	"math/bits"
)

// Kernel validation. Every backend calls a kernel's Validate method before it
// does anything else with it, so no malformed argument (a view reaching outside
// its buffer, a register read before it is written, inconsistent convolution
// geometry) can reach a driver. Validation allocates nothing unless it fails.

// maxElements bounds shapes and strides so that element arithmetic cannot
// overflow int64.
const maxElements = 1 << 50

// Validate checks the program against the dtypes of the buffers its inputs
// load: every register argument is defined before it is read, every Input
// index is in range and typed as its input's compute type, every op is
// applied to the types it accepts (float ops on Float32; Neg, Abs, Sign, Add,
// Sub, Mul, Div, Max, Min and comparisons on Float32 or Int32; Not, And, Or
// on Bool; comparisons and IsNaN yield Bool; Where's condition is Bool; on
// Int64 and Float64 registers the ops WideOK lists), the
// highest input loaded is the last of inputTypes, and the outputs are
// non-empty and name existing registers.
func (p Program) Validate(inputTypes []DType) error {
	if err := p.validate(inputTypes); err != nil {
		return fmt.Errorf("device: %w", err)
	}
	return nil
}

// validate is Validate without the package prefix, for kernels to wrap.
func (p Program) validate(inputTypes []DType) error {
	if len(p.Outputs) == 0 {
		return fmt.Errorf("program has no outputs")
	}
	for i, in := range p.Code {
		if err := p.validateInstr(i, in, inputTypes); err != nil {
			return fmt.Errorf("program instruction r%d (%s:%s): %w", i, in.Op, in.Type, err)
		}
	}
	if n := p.NumInputs(); n != len(inputTypes) {
		return fmt.Errorf("program loads %d inputs, kernel has %d", n, len(inputTypes))
	}
	for j, r := range p.Outputs {
		if r < 0 || int(r) >= len(p.Code) {
			return fmt.Errorf("program output %d names register r%d of %d", j, r, len(p.Code))
		}
	}
	return nil
}

// validateInstr checks instruction i of p.
func (p Program) validateInstr(i int, in Instr, inputTypes []DType) error {
	ar := in.Op.Arity()
	if ar < 0 {
		return fmt.Errorf("unknown op %d", uint8(in.Op))
	}
	if !in.Type.IsRegister() {
		return fmt.Errorf("result type %s is not a register type (float32, int32, bool, int64, float64)", in.Type)
	}
	var at [3]DType
	for a := 0; a < ar; a++ {
		r := in.Args[a]
		if r < 0 || int(r) >= i {
			return fmt.Errorf("argument %d reads r%d, not defined before r%d", a, r, i)
		}
		at[a] = p.Code[r].Type
	}
	if in.Op == OpInput {
		if in.Index < 0 || in.Index >= len(inputTypes) {
			return fmt.Errorf("input index %d out of range [0,%d)", in.Index, len(inputTypes))
		}
		dt := inputTypes[in.Index]
		if !dt.Valid() {
			return fmt.Errorf("input %d has invalid dtype %s", in.Index, dt)
		}
		if in.Type != dt.ComputeType() {
			return fmt.Errorf("input %d of dtype %s loads as %s, not %s", in.Index, dt, dt.ComputeType(), in.Type)
		}
		return nil
	}
	if in.Op == OpConst {
		return validateConst(in)
	}
	if w := wideType(in.Type, at[:ar]); w != Invalid && !WideOK(in.Op, w) {
		return fmt.Errorf("%s is not defined on %s registers", in.Op, w)
	}
	if ok, what := typesOK(in.Op, in.Type, at); !ok {
		args := make([]DType, ar)
		copy(args, at[:ar])
		return fmt.Errorf("%s (arguments %v)", what, args)
	}
	return nil
}

// typesOK checks an op's result type t and argument types at, and says what
// the op needs when they do not fit.
func typesOK(op Op, t DType, at [3]DType) (bool, string) {
	switch op.Info().Types {
	case TypesIndex:
		return t == Int32, "index must be int32"
	case TypesRandom:
		return t == Float32, "random numbers must be float32"
	case TypesNumeric:
		ok := t != Bool
		for a := 0; a < op.Arity(); a++ {
			ok = ok && at[a] == t
		}
		return ok, "needs numeric arguments of the result type"
	case TypesFloat:
		ok := t == Float32 || t == Float64
		for a := 0; a < op.Arity(); a++ {
			ok = ok && at[a] == t
		}
		return ok, "needs float32 (or float64) arguments of the result type"
	case TypesTest:
		return t == Bool && (at[0] == Float32 || at[0] == Float64), "needs a float argument and yields bool"
	case TypesLogic:
		ok := t == Bool
		for a := 0; a < op.Arity(); a++ {
			ok = ok && at[a] == Bool
		}
		return ok, "needs bool"
	case TypesCompare:
		return t == Bool && at[0] != Bool && at[0] == at[1], "needs two numeric arguments of one type and yields bool"
	case TypesSelect:
		return at[0] == Bool && at[1] == t && at[2] == t, "needs a bool condition and two arguments of the result type"
	}
	return true, "" // TypesCast: every register type converts to every other
}

// baseEpilogue checks that a matmul or convolution epilogue stays within
// BaseDTypes (views and registers): the wider types are computed in
// elementwise and reduce kernels only, so backends need no wide epilogue
// inside their products.
func baseEpilogue(kernel string, p Program, views ...[]View) error {
	for _, vs := range views {
		for _, v := range vs {
			if !BaseDTypes.Has(v.DType) {
				return fmt.Errorf("device: %s: epilogue view of dtype %s (epilogues of products use %s)", kernel, v.DType, BaseDTypes)
			}
		}
	}
	for i, in := range p.Code {
		if !BaseDTypes.Has(in.Type) {
			return fmt.Errorf("device: %s: epilogue register r%d of type %s (epilogues of products use %s)", kernel, i, in.Type, BaseDTypes)
		}
	}
	return nil
}

// wideType returns the wide register type (Int64 or Float64) among an
// instruction's result and argument types, or Invalid when there is none.
func wideType(t DType, args []DType) DType {
	if t == Int64 || t == Float64 {
		return t
	}
	for _, a := range args {
		if a == Int64 || a == Float64 {
			return a
		}
	}
	return Invalid
}

// validateConst checks that a constant is representable in its type.
func validateConst(in Instr) error {
	switch in.Type {
	case Int32:
		if in.Imm != math.Trunc(in.Imm) || in.Imm < math.MinInt32 || in.Imm > math.MaxInt32 {
			return fmt.Errorf("int32 constant %g is not an int32", in.Imm)
		}
	case Int64:
		if in.Imm != math.Trunc(in.Imm) || in.Imm < -(1<<63) || in.Imm >= 1<<63 {
			return fmt.Errorf("int64 constant %g is not an int64", in.Imm)
		}
	case Bool:
		if in.Imm != 0 && in.Imm != 1 {
			return fmt.Errorf("bool constant %g is not 0 or 1", in.Imm)
		}
	}
	return nil
}

// validateStores checks that the program's outputs can be stored to views of
// the given dtypes: Float32 registers to Float32, Float16 or BFloat16, Int32
// to Int32, Bool to Bool.
func validateStores(kernel string, p Program, outs []View) error {
	if len(outs) != len(p.Outputs) {
		return fmt.Errorf("device: %s: program has %d outputs, kernel has %d", kernel, len(p.Outputs), len(outs))
	}
	for j, r := range p.Outputs {
		rt, dt := p.Code[r].Type, outs[j].DType
		if dt.ComputeType() != rt {
			return fmt.Errorf("device: %s: output %d stores a %s register (r%d) to a %s view", kernel, j, rt, r, dt)
		}
	}
	return nil
}

// checkShape checks that the shape made of parts concatenated has no
// negative size and a bounded product.
func checkShape(kernel, what string, parts ...[]int) error {
	n := 1
	for _, p := range parts {
		for _, s := range p {
			if s < 0 || s > maxElements || !mulFits(n, s) {
				return fmt.Errorf("device: %s: %s shape %v has a negative or too large size", kernel, what, concat(parts...))
			}
			n *= s
		}
	}
	return nil
}

// mulFits reports whether a*b <= maxElements for 0 <= a, b <= maxElements.
func mulFits(a, b int) bool {
	hi, lo := bits.Mul64(uint64(a), uint64(b))
	return hi == 0 && lo <= maxElements
}

// checkView checks that a view is well formed and lies inside its buffer.
func checkView(kernel, what string, v View) error {
	if v.Buf == nil {
		return fmt.Errorf("device: %s: %s has no buffer", kernel, what)
	}
	if !v.DType.Valid() {
		return fmt.Errorf("device: %s: %s has invalid dtype %s", kernel, what, v.DType)
	}
	if len(v.Strides) != len(v.Shape) {
		return fmt.Errorf("device: %s: %s has shape %v but strides %v", kernel, what, v.Shape, v.Strides)
	}
	if err := checkShape(kernel, what, v.Shape); err != nil {
		return err
	}
	if NumElements(v.Shape) == 0 {
		return nil
	}
	// The shape's product is at most maxElements, so at most 50 dimensions
	// exceed one and lo and hi stay far from overflow.
	lo, hi := v.Offset, v.Offset+1
	for i, s := range v.Shape {
		st := v.Strides[i]
		ast := st
		if ast < 0 {
			ast = -ast
		}
		if ast > maxElements || !mulFits(s, ast) {
			return fmt.Errorf("device: %s: %s has shape %v and strides %v out of range", kernel, what, v.Shape, v.Strides)
		}
		if d := (s - 1) * st; d < 0 {
			lo += d
		} else {
			hi += d
		}
	}
	if size := v.Buf.Bytes() / int64(v.DType.Size()); v.Offset < 0 || v.Offset > maxElements || lo < 0 || int64(hi) > size {
		return fmt.Errorf("device: %s: %s (offset %d, shape %v, strides %v) spans elements [%d,%d), outside its buffer of %d %s elements",
			kernel, what, v.Offset, v.Shape, v.Strides, lo, hi, size, v.DType)
	}
	return nil
}

// sameShape reports whether got equals the concatenation of parts.
func sameShape(got []int, parts ...[]int) bool {
	i := 0
	for _, p := range parts {
		for _, s := range p {
			if i >= len(got) || got[i] != s {
				return false
			}
			i++
		}
	}
	return i == len(got)
}

// concat returns the concatenation of parts, for error messages.
func concat(parts ...[]int) []int {
	var s []int
	for _, p := range parts {
		s = append(s, p...)
	}
	return s
}

// checkViewShape checks a view and that its shape is the concatenation of parts.
func checkViewShape(kernel, what string, v View, parts ...[]int) error {
	if err := checkView(kernel, what, v); err != nil {
		return err
	}
	if !sameShape(v.Shape, parts...) {
		return fmt.Errorf("device: %s: %s has shape %v, want %v", kernel, what, v.Shape, concat(parts...))
	}
	return nil
}

// checkOutput checks an output view: well formed, contiguous, of the given shape.
func checkOutput(kernel, what string, v View, parts ...[]int) error {
	if err := checkViewShape(kernel, what, v, parts...); err != nil {
		return err
	}
	if !v.IsContiguous() {
		return fmt.Errorf("device: %s: %s (shape %v, strides %v) is not contiguous", kernel, what, v.Shape, v.Strides)
	}
	return nil
}

// checkDType checks a view's dtype.
func checkDType(kernel, what string, v View, want DType) error {
	if v.DType != want {
		return fmt.Errorf("device: %s: %s has dtype %s, want %s", kernel, what, v.DType, want)
	}
	return nil
}

// validateEpilogue checks an epilogue program whose input 0 is a register of
// type first and whose other inputs are views of shape, plus its outputs
// (contiguous views of shape).
func validateEpilogue(kernel string, first DType, inputs []View, p Program, outs []View, shape ...[]int) error {
	for i, v := range inputs {
		if err := checkViewShape(kernel, epilogueInputName(i), v, shape...); err != nil {
			return err
		}
	}
	var buf [16]DType
	types := append(buf[:0], first)
	for _, v := range inputs {
		types = append(types, v.DType)
	}
	if err := p.validate(types); err != nil {
		return fmt.Errorf("device: %s: epilogue: %w", kernel, err)
	}
	return validateOutputs(kernel, p, outs, shape...)
}

// validateOutputs checks a program's output views.
func validateOutputs(kernel string, p Program, outs []View, shape ...[]int) error {
	if err := validateStores(kernel, p, outs); err != nil {
		return err
	}
	for j, v := range outs {
		if err := checkOutput(kernel, outputName(j), v, shape...); err != nil {
			return err
		}
	}
	return nil
}

// Names of the first few inputs and outputs, built once so that validation
// of a good kernel allocates nothing.
var (
	inputNames         = nameTable("input ")
	outputNames        = nameTable("output ")
	epilogueInputNames = nameTable("epilogue input ")
)

func nameTable(prefix string) []string {
	t := make([]string, 16)
	for i := range t {
		t[i] = fmt.Sprintf("%s%d", prefix, i)
	}
	return t
}

// indexed returns table[i], or builds the name for large i.
func indexed(table []string, i int) string {
	if i < len(table) {
		return table[i]
	}
	return table[0][:len(table[0])-1] + fmt.Sprint(i)
}

func inputName(i int) string         { return indexed(inputNames, i) }
func outputName(i int) string        { return indexed(outputNames, i) }
func epilogueInputName(i int) string { return indexed(epilogueInputNames, i) }

// Validate checks the kernel (see the package's validation rules).
func (k *ElementwiseKernel) Validate() error {
	const kn = "elementwise"
	if k == nil {
		return fmt.Errorf("device: %s: nil kernel", kn)
	}
	if err := checkShape(kn, "iteration", k.Shape); err != nil {
		return err
	}
	var buf [16]DType
	types := buf[:0]
	for i, v := range k.Inputs {
		if err := checkViewShape(kn, inputName(i), v, k.Shape); err != nil {
			return err
		}
		types = append(types, v.DType)
	}
	if err := k.Program.validate(types); err != nil {
		return fmt.Errorf("device: %s: %w", kn, err)
	}
	return validateOutputs(kn, k.Program, k.Outputs, k.Shape)
}

// Validate checks the kernel (see the package's validation rules).
func (k *ReduceKernel) Validate() error {
	const kn = "reduce"
	if k == nil {
		return fmt.Errorf("device: %s: nil kernel", kn)
	}
	if k.Op > ReduceArgMin {
		return fmt.Errorf("device: %s: unknown reduction %d", kn, uint8(k.Op))
	}
	if err := checkShape(kn, "iteration", k.OutShape, k.RedShape); err != nil {
		return err
	}
	if NumElements(k.RedShape) == 0 && k.Op != ReduceSum && k.Op != ReduceProd {
		return fmt.Errorf("device: %s: %s over the empty shape %v has no identity", kn, k.Op, k.RedShape)
	}
	var buf [16]DType
	types := buf[:0]
	for i, v := range k.Inputs {
		if err := checkViewShape(kn, inputName(i), v, k.OutShape, k.RedShape); err != nil {
			return err
		}
		types = append(types, v.DType)
	}
	if err := k.Prologue.validate(types); err != nil {
		return fmt.Errorf("device: %s: prologue: %w", kn, err)
	}
	if len(k.Prologue.Outputs) != 1 {
		return fmt.Errorf("device: %s: prologue must have exactly one output, has %d", kn, len(k.Prologue.Outputs))
	}
	first := k.Accumulator()
	if first == Bool {
		return fmt.Errorf("device: %s: prologue yields bool, which is not reduced (cast it to a number)", kn)
	}
	if k.Op == ReduceArgMax || k.Op == ReduceArgMin {
		first = Int32
	}
	return validateEpilogue(kn, first, k.EpilogueInputs, k.Epilogue, k.Outputs, k.OutShape)
}

// Validate checks the kernel (see the package's validation rules).
func (k *MatMulKernel) Validate() error {
	const kn = "matmul"
	if k == nil {
		return fmt.Errorf("device: %s: nil kernel", kn)
	}
	if k.M < 0 || k.N < 0 || k.K < 0 || k.M > maxElements || k.N > maxElements || k.K > maxElements {
		return fmt.Errorf("device: %s: bad sizes M=%d N=%d K=%d", kn, k.M, k.N, k.K)
	}
	if err := checkShape(kn, "batch", k.Batch); err != nil {
		return err
	}
	mk, kn2, mn := [2]int{k.M, k.K}, [2]int{k.K, k.N}, [2]int{k.M, k.N}
	if err := checkViewShape(kn, "A", k.A, k.Batch, mk[:]); err != nil {
		return err
	}
	if err := checkViewShape(kn, "B", k.B, k.Batch, kn2[:]); err != nil {
		return err
	}
	if err := checkDType(kn, "A", k.A, Float32); err != nil {
		return err
	}
	if err := checkDType(kn, "B", k.B, Float32); err != nil {
		return err
	}
	if err := checkShape(kn, "result", k.Batch, mn[:]); err != nil {
		return err
	}
	if err := baseEpilogue(kn, k.Epilogue, k.EpilogueInputs, k.Outputs); err != nil {
		return err
	}
	return validateEpilogue(kn, Float32, k.EpilogueInputs, k.Epilogue, k.Outputs, k.Batch, mn[:])
}

// Validate checks the kernel (see the package's validation rules).
func (k *ConvKernel) Validate() error {
	const kn = "conv"
	if k == nil {
		return fmt.Errorf("device: %s: nil kernel", kn)
	}
	if k.Mode > ConvBackwardWeight {
		return fmt.Errorf("device: %s: unknown mode %d", kn, uint8(k.Mode))
	}
	g := k.Geom
	if err := g.validate(kn, false); err != nil {
		return err
	}
	x := [2]int{g.N, g.C}
	w := [2]int{g.O, g.C / g.Groups}
	y := [2]int{g.N, g.O}
	names := [3]string{"A (X)", "B (W)", "result (Y)"}
	aShape, bShape, rShape := [2][]int{x[:], g.In}, [2][]int{w[:], g.Kernel}, [2][]int{y[:], g.Out}
	switch k.Mode {
	case ConvBackwardInput:
		names = [3]string{"A (dY)", "B (W)", "result (dX)"}
		aShape, rShape = [2][]int{y[:], g.Out}, [2][]int{x[:], g.In}
	case ConvBackwardWeight:
		names = [3]string{"A (dY)", "B (X)", "result (dW)"}
		aShape, bShape, rShape = [2][]int{y[:], g.Out}, [2][]int{x[:], g.In}, [2][]int{w[:], g.Kernel}
	}
	if err := checkViewShape(kn, names[0], k.A, aShape[:]...); err != nil {
		return err
	}
	if err := checkViewShape(kn, names[1], k.B, bShape[:]...); err != nil {
		return err
	}
	if err := checkDType(kn, "A", k.A, Float32); err != nil {
		return err
	}
	if err := checkDType(kn, "B", k.B, Float32); err != nil {
		return err
	}
	if err := checkShape(kn, names[2], rShape[:]...); err != nil {
		return err
	}
	if err := baseEpilogue(kn, k.Epilogue, k.EpilogueInputs, k.Outputs); err != nil {
		return err
	}
	return validateEpilogue(kn, Float32, k.EpilogueInputs, k.Epilogue, k.Outputs, rShape[:]...)
}

// validate checks the geometry: 1 to 3 spatial dimensions, positive kernel,
// stride and dilation, non-negative padding, channels divisible by Groups and
// Out = floor((In + 2*Padding - Dilation*(Kernel-1) - 1) / Stride) + 1. With
// adaptive set (adaptive pooling) only In and Out are checked.
func (g ConvGeometry) validate(kn string, adaptive bool) error {
	nsp := len(g.In)
	if nsp < 1 || nsp > 3 {
		return fmt.Errorf("device: %s: %d spatial dimensions (In %v), want 1 to 3", kn, nsp, g.In)
	}
	if g.N < 0 || g.C < 0 || g.O < 0 || g.N > maxElements || g.C > maxElements || g.O > maxElements {
		return fmt.Errorf("device: %s: bad sizes N=%d C=%d O=%d", kn, g.N, g.C, g.O)
	}
	if g.Groups < 1 || g.C%g.Groups != 0 || g.O%g.Groups != 0 {
		return fmt.Errorf("device: %s: channels C=%d and O=%d must be divisible by Groups=%d >= 1", kn, g.C, g.O, g.Groups)
	}
	if len(g.Out) != nsp {
		return fmt.Errorf("device: %s: In %v but Out %v", kn, g.In, g.Out)
	}
	for i := 0; i < nsp; i++ {
		if g.In[i] < 0 || g.Out[i] < 0 || g.In[i] > maxElements || g.Out[i] > maxElements {
			return fmt.Errorf("device: %s: bad spatial sizes In %v Out %v", kn, g.In, g.Out)
		}
		if adaptive && g.Out[i] > 0 && g.In[i] == 0 {
			return fmt.Errorf("device: %s: adaptive output %v from empty input %v", kn, g.Out, g.In)
		}
	}
	if adaptive {
		return nil
	}
	if len(g.Kernel) != nsp || len(g.Stride) != nsp || len(g.Padding) != nsp || len(g.Dilation) != nsp {
		return fmt.Errorf("device: %s: In %v, Kernel %v, Stride %v, Padding %v, Dilation %v must all have %d entries",
			kn, g.In, g.Kernel, g.Stride, g.Padding, g.Dilation, nsp)
	}
	for i := 0; i < nsp; i++ {
		k, s, p, d := g.Kernel[i], g.Stride[i], g.Padding[i], g.Dilation[i]
		if k < 1 || s < 1 || d < 1 || p < 0 || k > maxElements || s > maxElements || d > maxElements || p > maxElements {
			return fmt.Errorf("device: %s: need Kernel, Stride, Dilation >= 1 and Padding >= 0, have %v %v %v %v",
				kn, g.Kernel, g.Stride, g.Dilation, g.Padding)
		}
		if d > maxElements/k {
			return fmt.Errorf("device: %s: dilated kernel %v*%v too large", kn, g.Dilation, g.Kernel)
		}
		want := floorDiv(g.In[i]+2*p-d*(k-1)-1, s) + 1
		if want < 0 {
			want = 0
		}
		if g.Out[i] != want {
			return fmt.Errorf("device: %s: Out %v inconsistent with In %v, Kernel %v, Stride %v, Padding %v, Dilation %v (dimension %d should be %d)",
				kn, g.Out, g.In, g.Kernel, g.Stride, g.Padding, g.Dilation, i, want)
		}
	}
	return nil
}

// floorDiv divides rounding toward negative infinity (b > 0).
func floorDiv(a, b int) int {
	q := a / b
	if a%b != 0 && a < 0 {
		q--
	}
	return q
}

// Validate checks the kernel (see the package's validation rules). Pooling
// requires O = C and Groups = C, and, as PyTorch does, padding at most half
// the window.
func (k *PoolKernel) Validate() error {
	const kn = "pool"
	if k == nil {
		return fmt.Errorf("device: %s: nil kernel", kn)
	}
	if k.Op > PoolAvg {
		return fmt.Errorf("device: %s: unknown pooling op %d", kn, uint8(k.Op))
	}
	g := k.Geom
	if g.O != g.C || (g.Groups != g.C && g.C > 0) {
		return fmt.Errorf("device: %s: pooling needs O = Groups = C, have C=%d O=%d Groups=%d", kn, g.C, g.O, g.Groups)
	}
	if g.C == 0 {
		g.Groups = 1 // an empty pooling; any divisibility holds
	}
	if err := g.validate(kn, k.Adaptive); err != nil {
		return err
	}
	if !k.Adaptive {
		for i, p := range g.Padding {
			if 2*p > g.Kernel[i] {
				return fmt.Errorf("device: %s: padding %v must be at most half of the window %v", kn, g.Padding, g.Kernel)
			}
		}
	}
	nc := []int{g.N, g.C}
	xs, os := g.In, g.Out
	if k.Backward {
		xs, os = g.Out, g.In
	}
	if err := checkViewShape(kn, "X", k.X, nc[:], xs); err != nil {
		return err
	}
	if err := checkDType(kn, "X", k.X, Float32); err != nil {
		return err
	}
	if err := checkOutput(kn, "Out", k.Out, nc[:], os); err != nil {
		return err
	}
	if err := checkDType(kn, "Out", k.Out, Float32); err != nil {
		return err
	}
	if k.Op != PoolMax || (k.Indices.Buf == nil && !k.Backward) {
		return nil
	}
	if k.Indices.Buf == nil {
		return fmt.Errorf("device: %s: max pooling backward needs Indices", kn)
	}
	check := checkViewShape
	if !k.Backward {
		check = checkOutput
	}
	if err := check(kn, "Indices", k.Indices, nc[:], g.Out); err != nil {
		return err
	}
	return checkDType(kn, "Indices", k.Indices, Int32)
}

// checkIndexed checks the shared rules of Gather and Scatter: an axis in
// range, an Int32 index of the data's rank, no larger than the data outside
// the axis.
func checkIndexed(kn string, axis int, data, index View, dataName string) error {
	if err := checkView(kn, "Index", index); err != nil {
		return err
	}
	if err := checkDType(kn, "Index", index, Int32); err != nil {
		return err
	}
	if len(data.Shape) != len(index.Shape) {
		return fmt.Errorf("device: %s: Index shape %v and %s shape %v differ in rank", kn, index.Shape, dataName, data.Shape)
	}
	if axis < 0 || axis >= len(index.Shape) {
		return fmt.Errorf("device: %s: axis %d out of range for rank %d", kn, axis, len(index.Shape))
	}
	for d, s := range index.Shape {
		if d != axis && s > data.Shape[d] {
			return fmt.Errorf("device: %s: Index shape %v exceeds %s shape %v in dimension %d", kn, index.Shape, dataName, data.Shape, d)
		}
	}
	return nil
}

// Validate checks the kernel (see the package's validation rules).
func (k *GatherKernel) Validate() error {
	const kn = "gather"
	if k == nil {
		return fmt.Errorf("device: %s: nil kernel", kn)
	}
	if err := checkView(kn, "Src", k.Src); err != nil {
		return err
	}
	if err := checkIndexed(kn, k.Axis, k.Src, k.Index, "Src"); err != nil {
		return err
	}
	if err := checkOutput(kn, "Out", k.Out, k.Index.Shape); err != nil {
		return err
	}
	return checkDType(kn, "Out", k.Out, k.Src.DType)
}

// Validate checks the kernel (see the package's validation rules).
func (k *ScatterKernel) Validate() error {
	const kn = "scatter"
	if k == nil {
		return fmt.Errorf("device: %s: nil kernel", kn)
	}
	if err := checkView(kn, "Dst", k.Dst); err != nil {
		return err
	}
	if !k.Dst.IsContiguous() {
		return fmt.Errorf("device: %s: Dst (shape %v, strides %v) is not contiguous", kn, k.Dst.Shape, k.Dst.Strides)
	}
	if err := checkDType(kn, "Dst", k.Dst, Float32); err != nil {
		return err
	}
	if err := checkIndexed(kn, k.Axis, k.Dst, k.Index, "Dst"); err != nil {
		return err
	}
	if err := checkViewShape(kn, "Src", k.Src, k.Index.Shape); err != nil {
		return err
	}
	return checkDType(kn, "Src", k.Src, Float32)
}

// Validate checks the kernel (see the package's validation rules). Dst may be
// strided but must not address one element twice through a zero stride.
func (k *CopyKernel) Validate() error {
	const kn = "copy"
	if k == nil {
		return fmt.Errorf("device: %s: nil kernel", kn)
	}
	if err := checkView(kn, "Src", k.Src); err != nil {
		return err
	}
	if err := checkViewShape(kn, "Dst", k.Dst, k.Src.Shape); err != nil {
		return err
	}
	if err := checkDType(kn, "Dst", k.Dst, k.Src.DType); err != nil {
		return err
	}
	for i, s := range k.Dst.Shape {
		if s > 1 && k.Dst.Strides[i] == 0 && k.Dst.NumElements() > 0 {
			return fmt.Errorf("device: %s: Dst (shape %v, strides %v) writes one element twice", kn, k.Dst.Shape, k.Dst.Strides)
		}
	}
	return nil
}

// Validate checks the kernel (see the package's validation rules).
func (k *SoftmaxKernel) Validate() error {
	const kn = "softmax"
	if k == nil {
		return fmt.Errorf("device: %s: nil kernel", kn)
	}
	if err := checkRows(kn, "In", k.In); err != nil {
		return err
	}
	if err := checkOutput(kn, "Out", k.Out, k.In.Shape); err != nil {
		return err
	}
	return checkDType(kn, "Out", k.Out, Float32)
}

// Validate checks the kernel (see the package's validation rules).
func (k *SoftmaxBackwardKernel) Validate() error {
	const kn = "softmax backward"
	if k == nil {
		return fmt.Errorf("device: %s: nil kernel", kn)
	}
	if err := checkRows(kn, "Y", k.Y); err != nil {
		return err
	}
	if err := checkViewShape(kn, "G", k.G, k.Y.Shape); err != nil {
		return err
	}
	if err := checkDType(kn, "G", k.G, Float32); err != nil {
		return err
	}
	if err := checkOutput(kn, "Out", k.Out, k.Y.Shape); err != nil {
		return err
	}
	return checkDType(kn, "Out", k.Out, Float32)
}

// Validate checks the kernel (see the package's validation rules).
func (k *NormalizeKernel) Validate() error {
	const kn = "normalize"
	if k == nil {
		return fmt.Errorf("device: %s: nil kernel", kn)
	}
	if err := checkRows(kn, "In", k.In); err != nil {
		return err
	}
	if err := checkEps(kn, k.Eps); err != nil {
		return err
	}
	if err := checkOutput(kn, "Out", k.Out, k.In.Shape); err != nil {
		return err
	}
	return checkDType(kn, "Out", k.Out, Float32)
}

// Validate checks the kernel (see the package's validation rules).
func (k *NormalizeBackwardKernel) Validate() error {
	const kn = "normalize backward"
	if k == nil {
		return fmt.Errorf("device: %s: nil kernel", kn)
	}
	if err := checkRows(kn, "X", k.X); err != nil {
		return err
	}
	if err := checkEps(kn, k.Eps); err != nil {
		return err
	}
	if err := checkViewShape(kn, "G", k.G, k.X.Shape); err != nil {
		return err
	}
	if err := checkDType(kn, "G", k.G, Float32); err != nil {
		return err
	}
	if err := checkOutput(kn, "Out", k.Out, k.X.Shape); err != nil {
		return err
	}
	return checkDType(kn, "Out", k.Out, Float32)
}

// checkRows checks a row kernel's Float32 input view with a non-empty last
// dimension.
func checkRows(kernel, what string, v View) error {
	if err := checkView(kernel, what, v); err != nil {
		return err
	}
	if err := checkDType(kernel, what, v, Float32); err != nil {
		return err
	}
	if len(v.Shape) == 0 || v.Shape[len(v.Shape)-1] == 0 {
		return fmt.Errorf("device: %s: %s (shape %v) has no rows: its last dimension must be non-empty", kernel, what, v.Shape)
	}
	return nil
}

// checkEps checks a normalization's epsilon: finite and non-negative.
func checkEps(kernel string, eps float64) error {
	if !(eps >= 0) || math.IsInf(eps, 1) {
		return fmt.Errorf("device: %s: Eps %v must be finite and non-negative", kernel, eps)
	}
	return nil
}
