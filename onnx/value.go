package onnx

import (
	"fmt"
	"math"
	"slices"

	"github.com/shaderflow/shaderflow/internal/checked"
	"github.com/shaderflow/shaderflow/tensor"
)

// value is a tensor flowing through the graph during a run: on the host,
// on the device, or both. dt is its ONNX type (an INT64 value lives on the
// device as Int32).
type value struct {
	dt    DataType
	shape []int
	host  *hostValue
	t     *tensor.Tensor
	// pure says the value depends only on constants and the shapes of the
	// graph's inputs (not on their data), so a run with inputs of the same
	// shapes computes the same value.
	pure bool
}

// hostVal wraps a host value (its purity is set by runNode).
func hostVal(h *hostValue) *value {
	return &value{dt: h.dt, shape: h.shape, host: h}
}

// devVal wraps a device tensor holding a value of ONNX type dt.
func devVal(dt DataType, t *tensor.Tensor) *value {
	return &value{dt: dt, shape: t.Shape(), t: t}
}

// deviceType returns the device type that holds ONNX type dt.
func deviceType(dt DataType) (tensor.DType, error) {
	switch dt {
	case Float:
		return tensor.Float32, nil
	case Float16:
		return tensor.Float16, nil
	case BFloat16:
		return tensor.BFloat16, nil
	case Bool:
		return tensor.Bool, nil
	case Int8, Uint8, Int16, Uint16, Int32, Int64, Uint32, Uint64:
		return tensor.Int32, nil
	}
	return 0, fmt.Errorf("onnx: %v tensors are not supported on the device", dt)
}

// onnxType returns the ONNX type of a device type.
func onnxType(dt tensor.DType) DataType {
	switch dt {
	case tensor.Float32:
		return Float
	case tensor.Float16:
		return Float16
	case tensor.BFloat16:
		return BFloat16
	case tensor.Bool:
		return Bool
	case tensor.Int32:
		return Int32
	}
	return Undefined
}

// toDevice uploads a host value. Integers must fit Int32: a value that does
// not is an error rather than a truncation.
func toDevice(d *tensor.Device, h *hostValue) (*tensor.Tensor, error) {
	dt, err := deviceType(h.dt)
	if err != nil {
		return nil, err
	}
	shape := h.shape
	if shape == nil {
		shape = []int{} // a scalar, not a vector
	}
	if n, ok := checked.Extent(shape...); !ok || n > tensor.MaxElements {
		// Empty values count their empty dimensions as one, as the device does.
		return nil, fmt.Errorf("onnx: a value of shape %v spans more than the %d elements a device indexes", shape, tensor.MaxElements)
	}
	switch dt {
	case tensor.Bool:
		b := make([]bool, len(h.i))
		for k, v := range h.i {
			b[k] = v != 0
		}
		return tensor.FromBools(d, b, shape...), nil
	case tensor.Int32:
		v := make([]int32, len(h.i))
		for k, x := range h.i {
			if x < math.MinInt32 || x > math.MaxInt32 {
				return nil, fmt.Errorf("onnx: %v value %d does not fit the device's Int32", h.dt, x)
			}
			v[k] = int32(x)
		}
		return tensor.FromInt32s(d, v, shape...), nil
	}
	f := make([]float32, len(h.f))
	for k, x := range h.f {
		f[k] = float32(x)
	}
	return tensor.FromFloat32sAs(d, dt, f, shape...), nil
}

// fromDevice reads a device tensor back as a host value of ONNX type dt.
func fromDevice(dt DataType, t *tensor.Tensor) (*hostValue, error) {
	h := &hostValue{dt: dt, shape: slices.Clone(t.Shape())}
	switch t.DType() {
	case tensor.Bool:
		b, err := t.Bools()
		if err != nil {
			return nil, err
		}
		h.i = make([]int64, len(b))
		for k, x := range b {
			if x {
				h.i[k] = 1
			}
		}
	case tensor.Int32:
		v, err := t.Int32s()
		if err != nil {
			return nil, err
		}
		h.i = make([]int64, len(v))
		for k, x := range v {
			h.i[k] = int64(x)
		}
	default:
		v, err := t.Cast(tensor.Float32).Float32s()
		if err != nil {
			return nil, err
		}
		h.f = make([]float64, len(v))
		for k, x := range v {
			h.f[k] = float64(x)
		}
	}
	if !dt.IsFloat() && h.f != nil {
		h.i = make([]int64, len(h.f))
		for k, x := range h.f {
			h.i[k] = castInt(dt, x)
		}
		h.f = nil
	}
	return h, nil
}

// upload places an initializer on the device, straight from the file's
// bytes where the layout allows.
func (m *Model) upload(t *TensorProto, ext []byte) (*tensor.Tensor, error) {
	raw := t.Raw
	if t.External != nil {
		raw = ext
	}
	if raw != nil && (t.DataType == Float || t.DataType == Float16 || t.DataType == BFloat16) {
		dt, _ := deviceType(t.DataType)
		return tensor.FromBytes(m.dev, dt, raw, t.Shape()...)
	}
	h, err := tensorValue(t, ext)
	if err != nil {
		return nil, err
	}
	return toDevice(m.dev, h)
}
