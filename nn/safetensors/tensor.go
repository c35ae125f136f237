package safetensors

import (
	"encoding/binary"
	"fmt"
	"math"
	"slices"

	"github.com/shaderflow/shaderflow/tensor/device"
)

// Tensor is one named tensor: Shape's elements of DType, row-major, stored
// little-endian in Data (len(Data) == product(Shape) * DType.Size()). An
// empty Shape is a scalar of one element.
type Tensor struct {
	Name  string
	DType DType
	Shape []int
	Data  []byte
}

// NumElements returns the product of Shape.
func (t Tensor) NumElements() int {
	n := 1
	for _, s := range t.Shape {
		n *= s
	}
	return n
}

// check reports whether Data, Shape and DType agree, without overflowing.
func (t Tensor) check() error {
	if !t.DType.Valid() {
		return fmt.Errorf("tensor %q: unknown dtype %q", t.Name, string(t.DType))
	}
	n, err := byteCount(t.DType, t.Shape)
	if err != nil {
		return fmt.Errorf("tensor %q: %w", t.Name, err)
	}
	if int64(len(t.Data)) != n {
		return fmt.Errorf("tensor %q: %d data bytes for %s shape %v, want %d", t.Name, len(t.Data), t.DType, t.Shape, n)
	}
	return nil
}

// byteCount returns product(shape)*dt.Size(), or an error for a negative
// dimension or a count that overflows int64.
func byteCount(dt DType, shape []int) (int64, error) {
	n := int64(dt.Size())
	for _, s := range shape {
		if s < 0 {
			return 0, fmt.Errorf("negative dimension in shape %v", shape)
		}
		if s == 0 {
			n = 0
		}
	}
	if n == 0 {
		return 0, nil
	}
	for _, s := range shape {
		if int64(s) > math.MaxInt64/n {
			return 0, fmt.Errorf("shape %v of %s overflows a 64-bit byte count", shape, dt)
		}
		n *= int64(s)
	}
	return n, nil
}

// FromFloat32 returns a tensor of dtype dt (F32, F16, BF16 or F64) holding
// vals converted with round-to-nearest-even. It panics if dt is another type,
// a dimension is negative, or len(vals) differs from product(shape).
func FromFloat32(name string, dt DType, shape []int, vals []float32) Tensor {
	t := Tensor{Name: name, DType: dt, Shape: slices.Clone(shape)}
	t.Data = make([]byte, checkedLen("FromFloat32", t, len(vals))*dt.Size())
	switch dt {
	case F32:
		for i, v := range vals {
			binary.LittleEndian.PutUint32(t.Data[4*i:], math.Float32bits(v))
		}
	case F16:
		for i, v := range vals {
			binary.LittleEndian.PutUint16(t.Data[2*i:], device.Float32ToFloat16(v))
		}
	case BF16:
		for i, v := range vals {
			binary.LittleEndian.PutUint16(t.Data[2*i:], device.Float32ToBFloat16(v))
		}
	case F64:
		for i, v := range vals {
			binary.LittleEndian.PutUint64(t.Data[8*i:], math.Float64bits(float64(v)))
		}
	default:
		panic(fmt.Sprintf("safetensors: FromFloat32(%q): dtype %q is not F32, F16, BF16 or F64", name, string(dt)))
	}
	return t
}

// FromInt32 returns an I32 tensor holding vals. It panics if a dimension is
// negative or len(vals) differs from product(shape).
func FromInt32(name string, shape []int, vals []int32) Tensor {
	t := Tensor{Name: name, DType: I32, Shape: slices.Clone(shape)}
	t.Data = make([]byte, 4*checkedLen("FromInt32", t, len(vals)))
	for i, v := range vals {
		binary.LittleEndian.PutUint32(t.Data[4*i:], uint32(v))
	}
	return t
}

// checkedLen panics unless t.Shape is valid and holds n elements; it returns n.
func checkedLen(op string, t Tensor, n int) int {
	for _, s := range t.Shape {
		if s < 0 {
			panic(fmt.Sprintf("safetensors: %s(%q): negative dimension in shape %v", op, t.Name, t.Shape))
		}
	}
	if want := t.NumElements(); want != n {
		panic(fmt.Sprintf("safetensors: %s(%q): %d values for shape %v, want %d", op, t.Name, n, t.Shape, want))
	}
	return n
}

// Float32 returns the elements of an F32, F16, BF16 or F64 tensor as
// float32 (F64 rounded to nearest). Other dtypes, and a tensor whose Data does
// not match its shape, return an error.
func (t Tensor) Float32() ([]float32, error) {
	if err := t.check(); err != nil {
		return nil, fmt.Errorf("safetensors: Float32: %w", err)
	}
	if !t.DType.isFloat() || t.DType.Size() == 1 {
		return nil, fmt.Errorf("safetensors: Float32 of tensor %q: dtype %s is not F32, F16, BF16 or F64", t.Name, t.DType)
	}
	out := make([]float32, len(t.Data)/t.DType.Size())
	switch t.DType {
	case F32:
		for i := range out {
			out[i] = math.Float32frombits(binary.LittleEndian.Uint32(t.Data[4*i:]))
		}
	case F16:
		for i := range out {
			out[i] = device.Float16ToFloat32(binary.LittleEndian.Uint16(t.Data[2*i:]))
		}
	case BF16:
		for i := range out {
			out[i] = device.BFloat16ToFloat32(binary.LittleEndian.Uint16(t.Data[2*i:]))
		}
	case F64:
		for i := range out {
			out[i] = float32(math.Float64frombits(binary.LittleEndian.Uint64(t.Data[8*i:])))
		}
	}
	return out, nil
}

// Int32 returns the elements of an integer or BOOL tensor as int32. I32 is
// copied; BOOL, U8, I8, I16 and U16 widen; U32, I64 and U64 elements must fit
// in int32 or an error names the first that does not. Float dtypes, and a
// tensor whose Data does not match its shape, return an error.
func (t Tensor) Int32() ([]int32, error) {
	if err := t.check(); err != nil {
		return nil, fmt.Errorf("safetensors: Int32: %w", err)
	}
	if t.DType.isFloat() {
		return nil, fmt.Errorf("safetensors: Int32 of tensor %q: dtype %s is not an integer type", t.Name, t.DType)
	}
	out := make([]int32, len(t.Data)/t.DType.Size())
	d := t.Data
	for i := range out {
		var v int64
		switch t.DType {
		case Bool, U8:
			v = int64(d[i])
		case I8:
			v = int64(int8(d[i]))
		case I16:
			v = int64(int16(binary.LittleEndian.Uint16(d[2*i:])))
		case U16:
			v = int64(binary.LittleEndian.Uint16(d[2*i:]))
		case I32:
			v = int64(int32(binary.LittleEndian.Uint32(d[4*i:])))
		case U32:
			v = int64(binary.LittleEndian.Uint32(d[4*i:]))
		case I64:
			v = int64(binary.LittleEndian.Uint64(d[8*i:]))
		case U64:
			u := binary.LittleEndian.Uint64(d[8*i:])
			v = int64(min(u, math.MaxInt64))
		}
		if v < math.MinInt32 || v > math.MaxInt32 {
			return nil, fmt.Errorf("safetensors: Int32 of tensor %q: element %d = %d does not fit in int32", t.Name, i, v)
		}
		out[i] = int32(v)
	}
	return out, nil
}
