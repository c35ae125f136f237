package onnx

import (
	"encoding/binary"
	"fmt"
	"math"

	"github.com/shaderflow/shaderflow/internal/checked"
	"github.com/shaderflow/shaderflow/tensor/device"
)

// hostValue is a tensor held in Go memory: constants, initializers of
// integer type and the results of shape computations. Floating-point
// elements are in f, integer and boolean ones in i (booleans as 0 and 1).
type hostValue struct {
	dt    DataType
	shape []int
	f     []float64
	i     []int64
}

// numel returns the number of elements of shape (which is checked).
func numel(shape []int) int {
	n, _ := checked.Product(shape...)
	return n
}

// size returns the number of elements.
func (h *hostValue) size() int { return numel(h.shape) }

// at returns element k as a float64.
func (h *hostValue) at(k int) float64 {
	if h.dt.IsFloat() {
		return h.f[k]
	}
	return float64(h.i[k])
}

// ints returns the elements as int64s (integer types only).
func (h *hostValue) ints() []int64 {
	if h.dt.IsFloat() {
		out := make([]int64, len(h.f))
		for k, v := range h.f {
			out[k] = int64(v)
		}
		return out
	}
	return h.i
}

// newHost makes a zero host value of type dt and shape.
func newHost(dt DataType, shape []int) *hostValue {
	h := &hostValue{dt: dt, shape: shape}
	if dt.IsFloat() {
		h.f = make([]float64, numel(shape))
	} else {
		h.i = make([]int64, numel(shape))
	}
	return h
}

// set stores v (rounded to dt) as element k.
func (h *hostValue) set(k int, v float64) {
	if h.dt.IsFloat() {
		h.f[k] = roundTo(h.dt, v)
		return
	}
	h.i[k] = castInt(h.dt, v)
}

// roundTo rounds v to the precision of the float type dt.
func roundTo(dt DataType, v float64) float64 {
	switch dt {
	case Float:
		return float64(float32(v))
	case Float16:
		return float64(device.Float16ToFloat32(device.Float32ToFloat16(float32(v))))
	case BFloat16:
		return float64(device.BFloat16ToFloat32(device.Float32ToBFloat16(float32(v))))
	}
	return v
}

// castInt converts v to the integer type dt as ONNX's Cast does
// (truncation toward zero; booleans are v != 0).
func castInt(dt DataType, v float64) int64 {
	if dt == Bool {
		if v != 0 {
			return 1
		}
		return 0
	}
	if math.IsNaN(v) {
		return 0
	}
	t := math.Trunc(v)
	switch {
	case t >= math.MaxInt64:
		return math.MaxInt64
	case t <= math.MinInt64:
		return math.MinInt64
	}
	return wrapInt(dt, int64(t))
}

// wrapInt keeps the bits of x that the integer type dt holds, as a C cast
// does (booleans are x != 0).
func wrapInt(dt DataType, x int64) int64 {
	switch dt {
	case Bool:
		if x != 0 {
			return 1
		}
		return 0
	case Int32:
		return int64(int32(x))
	case Int16:
		return int64(int16(x))
	case Int8:
		return int64(int8(x))
	case Uint8:
		return int64(uint8(x))
	case Uint16:
		return int64(uint16(x))
	case Uint32:
		return int64(uint32(x))
	}
	return x
}

// tensorValue decodes a TensorProto's data (data holds the bytes of an
// external tensor) into a host value.
func tensorValue(t *TensorProto, data []byte) (*hostValue, error) {
	n, err := t.count()
	if err != nil {
		return nil, err
	}
	h := &hostValue{dt: t.DataType, shape: t.Shape()}
	raw := t.Raw
	if t.External != nil {
		raw = data
		if len(raw) != n*t.DataType.Size() {
			return nil, malformed("tensor %q: %d external bytes for %d elements of %v", t.Name, len(raw), n, t.DataType)
		}
	}
	switch {
	case t.Floats != nil:
		h.f = make([]float64, n)
		for k, v := range t.Floats {
			h.f[k] = float64(v)
		}
	case t.Doubles != nil:
		h.f = append([]float64(nil), t.Doubles...)
	case raw != nil || n == 0:
		if h.dt.IsFloat() {
			h.f = make([]float64, n)
		} else {
			h.i = make([]int64, n)
		}
		sz := t.DataType.Size()
		for k := 0; k < n; k++ {
			b := raw[k*sz : (k+1)*sz]
			switch t.DataType {
			case Float:
				h.f[k] = float64(math.Float32frombits(binary.LittleEndian.Uint32(b)))
			case Double:
				h.f[k] = math.Float64frombits(binary.LittleEndian.Uint64(b))
			case Float16:
				h.f[k] = float64(device.Float16ToFloat32(binary.LittleEndian.Uint16(b)))
			case BFloat16:
				h.f[k] = float64(device.BFloat16ToFloat32(binary.LittleEndian.Uint16(b)))
			case Int8:
				h.i[k] = int64(int8(b[0]))
			case Uint8:
				h.i[k] = int64(b[0])
			case Bool:
				h.i[k] = int64(min(b[0], 1))
			case Int16:
				h.i[k] = int64(int16(binary.LittleEndian.Uint16(b)))
			case Uint16:
				h.i[k] = int64(binary.LittleEndian.Uint16(b))
			case Int32:
				h.i[k] = int64(int32(binary.LittleEndian.Uint32(b)))
			case Uint32:
				h.i[k] = int64(binary.LittleEndian.Uint32(b))
			case Int64, Uint64:
				h.i[k] = int64(binary.LittleEndian.Uint64(b))
			default:
				return nil, fmt.Errorf("onnx: tensor %q has unsupported type %v", t.Name, t.DataType)
			}
		}
	default: // integer fields
		switch t.DataType {
		case Float16:
			h.f = make([]float64, n)
			for k, v := range t.Ints {
				h.f[k] = float64(device.Float16ToFloat32(uint16(v)))
			}
		case BFloat16:
			h.f = make([]float64, n)
			for k, v := range t.Ints {
				h.f[k] = float64(device.BFloat16ToFloat32(uint16(v)))
			}
		default:
			h.i = make([]int64, n)
			for k, v := range t.Ints {
				h.i[k] = wrapInt(t.DataType, v)
			}
		}
	}
	return h, nil
}

// checkedCount returns the product of shape and whether it fits.
func checkedCount(shape []int) (int, bool) { return checked.Product(shape...) }

// ceilDiv is ceil(a/b) in float64.
func ceilDiv(a, b float64) float64 { return math.Ceil(a / b) }

func f16bits(f float32) uint16  { return device.Float32ToFloat16(f) }
func bf16bits(f float32) uint16 { return device.Float32ToBFloat16(f) }
