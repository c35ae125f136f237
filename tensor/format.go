package tensor

import (
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
)

// Printing follows PyTorch: values nested in brackets, rows aligned,
// tensors of more than printThreshold elements elided to printEdge items at
// each end of every long dimension; unlike PyTorch, long rows are not
// wrapped at 80 columns.
const (
	printThreshold = 1000
	printEdge      = 3
)

// Format prints the tensor's values for fmt's %v and %s verbs, as PyTorch
// prints a tensor: "tensor([[1., 2.],\n        [3., 4.]], device=cpu:0)",
// with ", dtype=int32" for dtypes other than float32. %+v adds the shape.
// Printing realizes the tensor (a failed computation prints its error) but
// records nothing for autograd. %#v prints String's description, which
// realizes nothing.
func (t *Tensor) Format(f fmt.State, verb rune) {
	switch {
	case verb == 'v' && f.Flag('#'):
		_, _ = io.WriteString(f, t.String())
		return
	case verb != 'v' && verb != 's':
		fmt.Fprintf(f, "%%!%c(%s)", verb, t.String())
		return
	case t == nil || t.h == nil || t.h.released.Load():
		_, _ = io.WriteString(f, t.String())
		return
	}
	_, _ = io.WriteString(f, t.valueString(verb == 'v' && f.Flag('+')))
}

// valueString renders the values, the device and, where it is not float32,
// the dtype; withShape adds the shape.
func (t *Tensor) valueString(withShape bool) string {
	shown, elided := t.Detach(), make([]bool, t.Dim())
	if t.NumElements() > printThreshold {
		for d, n := range t.shape {
			if n > 2*printEdge {
				shown = Cat(d, shown.Narrow(d, 0, printEdge), shown.Narrow(d, n-printEdge, printEdge))
				elided[d] = true
			}
		}
	}
	var sb strings.Builder
	sb.WriteString("tensor(")
	if cells, err := formatCells(shown); err != nil {
		fmt.Fprintf(&sb, "<error: %v>", err)
	} else {
		writeNested(&sb, cells, shown.shape, elided, len("tensor("))
	}
	if withShape {
		fmt.Fprintf(&sb, ", shape=%v", t.shape)
	}
	fmt.Fprintf(&sb, ", device=%s", t.n.dev.Name())
	if t.n.dtype != Float32 {
		fmt.Fprintf(&sb, ", dtype=%s", t.n.dtype)
	}
	sb.WriteString(")")
	return sb.String()
}

// formatCells reads t and formats each element, right-aligned to a common
// width.
func formatCells(t *Tensor) ([]string, error) {
	var cells []string
	switch t.n.dtype {
	case Int32:
		v, err := t.Int32s()
		if err != nil {
			return nil, err
		}
		for _, x := range v {
			cells = append(cells, strconv.Itoa(int(x)))
		}
	case Bool:
		v, err := t.Float32s()
		if err != nil {
			return nil, err
		}
		for _, x := range v {
			cells = append(cells, map[bool]string{true: "True", false: "False"}[x != 0])
		}
	default:
		v, err := t.Float32s()
		if err != nil {
			return nil, err
		}
		cells = formatFloats(v)
	}
	width := 0
	for _, c := range cells {
		if c != "nan" && c != "inf" && c != "-inf" { // PyTorch sizes columns by the finite values
			width = max(width, len(c))
		}
	}
	for i, c := range cells {
		cells[i] = strings.Repeat(" ", max(width-len(c), 0)) + c
	}
	return cells, nil
}

// formatFloats picks one notation for all values as PyTorch does:
// scientific when the finite nonzero magnitudes span more than 1000× or
// reach 1e8 (or, unless all are whole, fall below 1e-4), else whole numbers
// as "2." and others with four decimals.
func formatFloats(v []float32) []string {
	whole, lo, hi := true, math.Inf(1), 0.0
	for _, x := range v {
		a := math.Abs(float64(x))
		if math.IsNaN(a) || math.IsInf(a, 0) {
			continue
		}
		whole = whole && a == math.Trunc(a)
		if a != 0 {
			lo, hi = min(lo, a), max(hi, a)
		}
	}
	sci := hi > 0 && (hi/lo > 1000 || hi >= 1e8 || (!whole && lo < 1e-4))
	out := make([]string, len(v))
	for i, x := range v {
		f := float64(x)
		switch {
		case math.IsNaN(f):
			out[i] = "nan"
		case math.IsInf(f, 1):
			out[i] = "inf"
		case math.IsInf(f, -1):
			out[i] = "-inf"
		case sci:
			out[i] = strconv.FormatFloat(f, 'e', 4, 64)
		case whole:
			out[i] = strconv.FormatFloat(f, 'f', 0, 64) + "."
		default:
			out[i] = strconv.FormatFloat(f, 'f', 4, 64)
		}
	}
	return out
}

// writeNested writes cells (row-major over shape) in nested brackets, rows
// on their own lines indented by indent plus their depth, with "..." where
// a dimension was elided.
func writeNested(sb *strings.Builder, cells []string, shape []int, elided []bool, indent int) {
	if len(shape) == 0 {
		sb.WriteString(cells[0])
		return
	}
	sb.WriteString("[")
	n, inner := shape[0], len(cells)/max(shape[0], 1)
	sep := ", "
	if len(shape) > 1 {
		sep = "," + strings.Repeat("\n", len(shape)-1) + strings.Repeat(" ", indent+1)
	}
	for i := range n {
		if i > 0 {
			sb.WriteString(sep)
		}
		if elided[0] && i == printEdge {
			if len(shape) == 1 {
				sb.WriteString(" ..." + sep)
			} else {
				sb.WriteString("..." + sep)
			}
		}
		writeNested(sb, cells[i*inner:(i+1)*inner], shape[1:], elided[1:], indent+1)
	}
	sb.WriteString("]")
}
