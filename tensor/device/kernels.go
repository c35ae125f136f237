package device

// ElementwiseKernel runs Program once per element of Shape. Input views have
// Shape (broadcast dimensions have stride 0); outputs are contiguous views of
// Shape, one per Program output, written with conversion to their dtype.
type ElementwiseKernel struct {
	Shape   []int
	Inputs  []View
	Program Program
	Outputs []View
}

// ReduceOp is the combining operation of a Reduce kernel.
type ReduceOp uint8

// The reductions. Max and Min propagate NaN; ArgMax and ArgMin return the
// row-major position inside the reduced sub-shape of the first extreme
// element (a NaN counts as extreme) as Int32.
const (
	ReduceSum ReduceOp = iota
	ReduceProd
	ReduceMax
	ReduceMin
	ReduceArgMax
	ReduceArgMin
)

var reduceNames = [...]string{"sum", "prod", "max", "min", "argmax", "argmin"}

// String returns the reduction's name.
func (r ReduceOp) String() string {
	if int(r) < len(reduceNames) {
		return reduceNames[r]
	}
	return "reduce?"
}

// ReduceKernel reduces the iteration space OutShape ++ RedShape over its
// trailing RedShape dimensions. Each Input view has shape OutShape ++
// RedShape; Prologue computes, from them, the one value that is reduced, in
// the accumulator type (Accumulator: Float32 on every backend; Int32, Int64
// or Float64 where Info.Accumulators lists it). Epilogue then runs once per
// output element: its input 0 is the reduced value (of the accumulator type,
// or Int32 for ArgMax/ArgMin) and its input i+1 is
// EpilogueInputs[i] (views of OutShape); its outputs are stored to Outputs,
// contiguous views of OutShape. An empty RedShape product is allowed only for
// Sum (0) and Prod (1).
type ReduceKernel struct {
	Op             ReduceOp
	OutShape       []int
	RedShape       []int
	Inputs         []View
	Prologue       Program
	EpilogueInputs []View
	Epilogue       Program
	Outputs        []View
}

// MatMulKernel computes, for every index of Batch, the product of A
// (Batch ++ [M, K]) and B (Batch ++ [K, N]) in Float32, then runs Epilogue per
// element of Batch ++ [M, N]: its input 0 is the dot product and its input i+1
// is EpilogueInputs[i] (views of Batch ++ [M, N]). A and B are Float32 views
// with any strides, so transposes and broadcast batch dimensions are free.
type MatMulKernel struct {
	Batch          []int
	M, N, K        int
	A, B           View
	EpilogueInputs []View
	Epilogue       Program
	Outputs        []View
}

// OutShape returns Batch ++ [M, N].
func (k *MatMulKernel) OutShape() []int { return append(append([]int{}, k.Batch...), k.M, k.N) }

// ConvMode selects what a Conv kernel computes.
type ConvMode uint8

// The convolution modes. With X of [N, C, in...], W of [O, C/Groups, k...]
// and Y of [N, O, out...]:
//
//	ConvForward:        A=X,  B=W  -> Y
//	ConvBackwardInput:  A=dY, B=W  -> dX  (the transposed convolution)
//	ConvBackwardWeight: A=dY, B=X  -> dW
const (
	ConvForward ConvMode = iota
	ConvBackwardInput
	ConvBackwardWeight
)

// ConvGeometry describes a grouped, strided, padded, dilated convolution or
// pooling window over len(In) spatial dimensions (1 to 3).
type ConvGeometry struct {
	N, C, O  int // batch, input channels, output channels (O = C for pooling)
	Groups   int
	In       []int // input spatial size
	Kernel   []int // window size
	Out      []int // output spatial size
	Stride   []int
	Padding  []int
	Dilation []int
}

// ConvKernel is a convolution in one of three modes (see ConvMode) with an
// epilogue over the result (input 0: the accumulated value; input i+1:
// EpilogueInputs[i], views of the result shape). A and B are Float32.
type ConvKernel struct {
	Mode           ConvMode
	Geom           ConvGeometry
	A, B           View
	EpilogueInputs []View
	Epilogue       Program
	Outputs        []View
}

// ResultShape returns the shape the kernel's mode produces.
func (k *ConvKernel) ResultShape() []int {
	g := k.Geom
	switch k.Mode {
	case ConvBackwardInput:
		return append([]int{g.N, g.C}, g.In...)
	case ConvBackwardWeight:
		return append([]int{g.O, g.C / g.Groups}, g.Kernel...)
	}
	return append([]int{g.N, g.O}, g.Out...)
}

// PoolOp selects the pooling function.
type PoolOp uint8

// The pooling functions.
const (
	PoolMax PoolOp = iota
	PoolAvg
)

// PoolKernel pools X ([N, C, in...], Float32) over windows described by Geom
// (O = C, Groups = C). With Adaptive set, the window of output position i along
// a dimension spans [floor(i*in/out), ceil((i+1)*in/out)) and Kernel, Stride,
// Padding and Dilation are ignored. For average pooling, padded positions
// count in the divisor when CountIncludePad is set (PyTorch's default).
//
// Forward (Backward false) writes Out ([N, C, out...]) and, for max pooling
// when Indices.Buf is not nil, the winning input spatial position (row-major,
// Int32) to Indices. Backward reads the output gradient from X ([N, C,
// out...]) and, for max pooling, the winners from Indices, and writes the
// input gradient to Out ([N, C, in...]). A max window that lies wholly in
// the padding (a dilation can step over the whole input) has the value -Inf
// and the index NoWinner, whose gradient reaches no input (PyTorch's values).
type PoolKernel struct {
	Op              PoolOp
	Backward        bool
	Adaptive        bool
	CountIncludePad bool
	Geom            ConvGeometry
	X               View
	Out             View
	Indices         View
}

// NoWinner is the max-pooling index of a window with no input element.
const NoWinner int32 = -1

// GatherKernel is torch.gather: Out[i] = Src[i with i[Axis] replaced by
// Index[i]] for every index i of Index's shape. Src has Index's rank; Out is
// contiguous with Index's shape. An index outside [0, Src.Shape[Axis]) is an
// error, never an out-of-bounds access.
type GatherKernel struct {
	Axis  int
	Src   View
	Index View
	Out   View
}

// ScatterKernel is torch.scatter_add_: Dst[i with i[Axis] replaced by
// Index[i]] += Src[i] for every index i of Index's shape (Src has that shape).
// Dst is a contiguous Float32 view written in place.
type ScatterKernel struct {
	Axis  int
	Dst   View
	Index View
	Src   View
}

// CopyKernel copies Src to Dst element by element (both views of one shape,
// of one dtype); Dst may be strided, as when a
// concatenation writes into a region of its result.
type CopyKernel struct {
	Dst, Src View
}

// Accumulator returns the register type the reduction accumulates in: the
// type of the prologue's output. Sum and Prod of an integer type wrap on
// overflow; a backend accepts the types its Info.Accumulators lists.
func (k *ReduceKernel) Accumulator() DType {
	if len(k.Prologue.Outputs) != 1 {
		return Invalid
	}
	r := k.Prologue.Outputs[0]
	if r < 0 || int(r) >= len(k.Prologue.Code) {
		return Invalid
	}
	return k.Prologue.Code[r].Type
}

// SoftmaxKernel computes, for every row along the last dimension of In, the
// softmax exp(x-m) / sum(exp(x-m)) with m the row's maximum, or with Log the
// log-softmax (x-m) - log(sum(exp(x-m))), in one kernel that reads each row
// once. In is a Float32 view of any strides with a non-empty last dimension;
// Out is a contiguous Float32 view of In's shape. As in PyTorch, a row that
// holds a NaN or +Inf, or is all -Inf, gives NaN everywhere.
type SoftmaxKernel struct {
	In  View
	Out View
	Log bool
}

// SoftmaxBackwardKernel computes, for every row along the last dimension,
// the gradient of a softmax row's input from the row's output Y and the
// gradient G of that output: Y·(G − Σ G·Y) for softmax, or with Log
// G − exp(Y)·Σ G for log-softmax (Y then the log-probabilities), the sum
// over the row, in one kernel that reads each row once. Y and G are Float32
// views of any strides of one shape with a non-empty last dimension; Out is
// a contiguous Float32 view of that shape. NaN propagates as the formulas
// say: a NaN in a row's products makes its sum, and so the row, NaN.
type SoftmaxBackwardKernel struct {
	Y, G, Out View
	Log       bool
}

// RowSoftmaxer is implemented by devices with a one-pass softmax row kernel.
// The front end uses it when the device has it and otherwise builds softmax
// from a maximum, a sum and a division (three kernels that each read the
// rows).
type RowSoftmaxer interface {
	// Softmax runs a softmax or log-softmax over rows.
	Softmax(k *SoftmaxKernel) error
}

// RowSoftmaxGrader is implemented by devices with a one-pass kernel for the
// gradient of a softmax row. The front end uses it when the device has it
// and otherwise builds the gradient from a sum and an elementwise product
// (two kernels that each read the rows).
type RowSoftmaxGrader interface {
	// SoftmaxBackward runs the gradient of a softmax or log-softmax over rows.
	SoftmaxBackward(k *SoftmaxBackwardKernel) error
}

// NormalizeKernel computes, for every row along the last dimension of In,
// (x − mean) / sqrt(var + Eps) with the row's mean and biased variance (layer
// normalization without its affine part), in one kernel that reads each row
// once. In is a Float32 view of any strides with a non-empty last
// dimension; Out is a contiguous Float32 view of In's shape; Eps is
// non-negative. A row holding NaN or ±Inf gives NaN everywhere.
type NormalizeKernel struct {
	In, Out View
	Eps     float64
}

// NormalizeBackwardKernel computes the gradient of a NormalizeKernel's
// input from that input X and the gradient G of its output, row by row:
// rstd·(G − mean(G) − x̂·mean(G·x̂)) with x̂ the normalized row and rstd
// 1/sqrt(var + Eps), recomputed from X. X and G are Float32 views of any
// strides of one shape with a non-empty last dimension; Out is a contiguous
// Float32 view of that shape.
type NormalizeBackwardKernel struct {
	X, G, Out View
	Eps       float64
}

// RowNormalizer is implemented by devices with one-pass row normalization
// kernels. The front end uses them for layer, group and instance norm over
// the last dimension when the device has them, and otherwise builds the
// normalization from two means and a product, and its gradient by the
// chain rule through them.
type RowNormalizer interface {
	// Normalize runs a row normalization.
	Normalize(k *NormalizeKernel) error
	// NormalizeBackward runs the gradient of a row normalization.
	NormalizeBackward(k *NormalizeBackwardKernel) error
}
