package tensor

import (
	"encoding/binary"
	"math"
	"unsafe"

	"github.com/shaderflow/shaderflow/tensor/device"
)

// Creation and readback of Int64, Float64, Uint8 and Int8 tensors, and the
// host-side decoding that readback into any Go type uses.

// FromInt64s makes an Int64 tensor of shape from data (copied); with no
// shape it is 1-D. The device must support Int64 (see Device.Supports).
func FromInt64s(d *Device, data []int64, shape ...int) *Tensor {
	if shape == nil {
		shape = []int{len(data)}
	}
	checkCount("FromInt64s", len(data), shape)
	return fromBytes("FromInt64s", d, Int64, unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(data))), 8*len(data)), shape)
}

// FromFloat64s makes a Float64 tensor of shape from data (copied); with no
// shape it is 1-D. The device must support Float64.
func FromFloat64s(d *Device, data []float64, shape ...int) *Tensor {
	if shape == nil {
		shape = []int{len(data)}
	}
	checkCount("FromFloat64s", len(data), shape)
	return fromBytes("FromFloat64s", d, Float64, unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(data))), 8*len(data)), shape)
}

// FromUint8s makes a Uint8 tensor of shape from data (copied): image
// pixels, quantized weights. The device must support Uint8.
func FromUint8s(d *Device, data []uint8, shape ...int) *Tensor {
	if shape == nil {
		shape = []int{len(data)}
	}
	checkCount("FromUint8s", len(data), shape)
	return fromBytes("FromUint8s", d, Uint8, append([]byte(nil), data...), shape)
}

// FromInt8s makes an Int8 tensor of shape from data (copied). The device
// must support Int8.
func FromInt8s(d *Device, data []int8, shape ...int) *Tensor {
	if shape == nil {
		shape = []int{len(data)}
	}
	checkCount("FromInt8s", len(data), shape)
	raw := make([]byte, len(data))
	for i, v := range data {
		raw[i] = byte(v)
	}
	return fromBytes("FromInt8s", d, Int8, raw, shape)
}

// Int64s realizes the tensor and returns its elements as int64: integers
// exactly, floats truncated toward zero (NaN as 0, saturating), as Cast(Int64).
func (t *Tensor) Int64s() ([]int64, error) {
	t.check("Int64s")
	raw, err := t.Bytes()
	if err != nil {
		return nil, err
	}
	out := make([]int64, t.NumElements())
	for i := range out {
		out[i] = hostInt64(raw, t.n.dtype, i)
	}
	return out, nil
}

// Float64s realizes the tensor and returns its elements as float64: floats
// exactly, integers rounded to nearest beyond 2^53.
func (t *Tensor) Float64s() ([]float64, error) {
	t.check("Float64s")
	raw, err := t.Bytes()
	if err != nil {
		return nil, err
	}
	out := make([]float64, t.NumElements())
	for i := range out {
		out[i] = hostFloat64(raw, t.n.dtype, i)
	}
	return out, nil
}

// Uint8s realizes the tensor and returns its elements as uint8, as
// Cast(Uint8) converts them: integers keep their low byte (PyTorch's
// wrapping), floats are truncated toward zero first.
func (t *Tensor) Uint8s() ([]uint8, error) {
	v, err := t.Int64s()
	if err != nil {
		return nil, err
	}
	out := make([]uint8, len(v))
	for i, x := range v {
		out[i] = uint8(x)
	}
	return out, nil
}

// Int8s realizes the tensor and returns its elements as int8, as
// Cast(Int8) converts them (see Uint8s).
func (t *Tensor) Int8s() ([]int8, error) {
	v, err := t.Int64s()
	if err != nil {
		return nil, err
	}
	out := make([]int8, len(v))
	for i, x := range v {
		out[i] = int8(x)
	}
	return out, nil
}

// hostFloat64 decodes element i of raw, of type dt, as float64.
func hostFloat64(raw []byte, dt DType, i int) float64 {
	le := binary.LittleEndian
	switch dt {
	case Float32:
		return float64(math.Float32frombits(le.Uint32(raw[4*i:])))
	case Float16:
		return float64(device.Float16ToFloat32(le.Uint16(raw[2*i:])))
	case BFloat16:
		return float64(device.BFloat16ToFloat32(le.Uint16(raw[2*i:])))
	case Float64:
		return math.Float64frombits(le.Uint64(raw[8*i:]))
	}
	return float64(hostInt64(raw, dt, i))
}

// hostInt64 decodes element i of raw, of type dt, as int64 (floats as a
// cast converts them).
func hostInt64(raw []byte, dt DType, i int) int64 {
	le := binary.LittleEndian
	switch dt {
	case Int32:
		return int64(int32(le.Uint32(raw[4*i:])))
	case Int64:
		return int64(le.Uint64(raw[8*i:]))
	case Uint8:
		return int64(raw[i])
	case Int8:
		return int64(int8(raw[i]))
	case Bool:
		if raw[i] != 0 {
			return 1
		}
		return 0
	}
	return device.FloatToInt64(hostFloat64(raw, dt, i))
}
