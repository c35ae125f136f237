package onnx

import (
	"encoding/binary"
	"fmt"
	"math"
	"os"

	"github.com/shaderflow/shaderflow/nn/safetensors"
	"github.com/shaderflow/shaderflow/tensor"
	"google.golang.org/protobuf/encoding/protowire"
)

// weightBytes returns an initializer's current value as little-endian bytes
// of its ONNX type: a parameter's from the device, others from the file.
func (m *Model) weightBytes(in *initializer) ([]byte, error) {
	t := in.proto
	if in.dev != nil {
		dt, _ := deviceType(t.DataType)
		if in.dev.DType() == dt && (dt == tensor.Float32 || dt == tensor.Float16 || dt == tensor.BFloat16) {
			return in.dev.Bytes()
		}
		h, err := fromDevice(t.DataType, in.dev)
		if err != nil {
			return nil, err
		}
		return hostBytes(h), nil
	}
	if t.Raw != nil {
		return t.Raw, nil
	}
	if t.External != nil {
		return in.ext, nil
	}
	return hostBytes(in.host), nil
}

// hostBytes encodes a host value as little-endian bytes of its type.
func hostBytes(h *hostValue) []byte {
	sz := h.dt.Size()
	b := make([]byte, h.size()*sz)
	for k := range h.size() {
		p := b[k*sz:]
		switch h.dt {
		case Float:
			binary.LittleEndian.PutUint32(p, math.Float32bits(float32(h.f[k])))
		case Double:
			binary.LittleEndian.PutUint64(p, math.Float64bits(h.f[k]))
		case Float16, BFloat16:
			var bits uint16
			if h.dt == Float16 {
				bits = f16bits(float32(h.f[k]))
			} else {
				bits = bf16bits(float32(h.f[k]))
			}
			binary.LittleEndian.PutUint16(p, bits)
		default:
			switch sz {
			case 1:
				p[0] = byte(h.i[k])
			case 2:
				binary.LittleEndian.PutUint16(p, uint16(h.i[k]))
			case 4:
				binary.LittleEndian.PutUint32(p, uint32(h.i[k]))
			default:
				binary.LittleEndian.PutUint64(p, uint64(h.i[k]))
			}
		}
	}
	return b
}

// safetensorsType maps an ONNX type to its safetensors name.
var safetensorsType = map[DataType]safetensors.DType{
	Float: safetensors.F32, Float16: safetensors.F16, BFloat16: safetensors.BF16, Double: safetensors.F64,
	Int8: safetensors.I8, Uint8: safetensors.U8, Int16: safetensors.I16, Uint16: safetensors.U16,
	Int32: safetensors.I32, Uint32: safetensors.U32, Int64: safetensors.I64, Uint64: safetensors.U64,
	Bool: safetensors.Bool,
}

// SaveSafetensors writes every initializer's current value (the trained
// parameters included) to a safetensors file, under its ONNX name.
func (m *Model) SaveSafetensors(path string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	var ts []safetensors.Tensor
	for i := range m.proto.Graph.Initializers {
		t := &m.proto.Graph.Initializers[i]
		b, err := m.weightBytes(m.inits[t.Name])
		if err != nil {
			return fmt.Errorf("onnx: %s: %w", t.Name, err)
		}
		ts = append(ts, safetensors.Tensor{Name: t.Name, DType: safetensorsType[t.DataType], Shape: t.Shape(), Data: b})
	}
	return safetensors.WriteFile(path, ts, map[string]string{"format": "onnx"})
}

// SaveONNX writes the model with every initializer's current value stored
// in the file (external data included): the original bytes with only the
// initializers re-encoded, so fields this package does not read are kept.
func (m *Model) SaveONNX(path string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	b, err := m.encodeWithWeights()
	if err != nil {
		return err
	}
	return os.WriteFile(path, b, 0o644)
}

// encodeWithWeights rewrites the model file's graph field.
func (m *Model) encodeWithWeights() ([]byte, error) {
	var out []byte
	err := eachRawField(m.file, func(num protowire.Number, typ protowire.Type, v, raw []byte) error {
		if num != 7 || typ != protowire.BytesType {
			out = append(out, raw...)
			return nil
		}
		var g []byte
		err := eachRawField(v, func(num protowire.Number, typ protowire.Type, v, raw []byte) error {
			if num != 5 || typ != protowire.BytesType {
				g = append(g, raw...)
				return nil
			}
			t, err := decodeTensor(v)
			if err != nil {
				return err
			}
			in := m.inits[t.Name]
			if in == nil {
				return malformed("initializer %q changed", t.Name)
			}
			data, err := m.weightBytes(in)
			if err != nil {
				return fmt.Errorf("onnx: %s: %w", t.Name, err)
			}
			nt := TensorProto{Name: t.Name, Dims: t.Dims, DataType: t.DataType, Raw: data}
			if len(data) == 0 {
				nt.Raw = []byte{}
			}
			g = appendMessage(g, 5, encodeTensor(&nt))
			return nil
		})
		out = appendMessage(out, 7, g)
		return err
	})
	return out, err
}

// eachRawField calls fn with every field of message b and the field's
// encoded bytes (tag included).
func eachRawField(b []byte, fn func(num protowire.Number, typ protowire.Type, v, raw []byte) error) error {
	for len(b) > 0 {
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 {
			return malformed("bad field tag")
		}
		m := protowire.ConsumeFieldValue(num, typ, b[n:])
		if m < 0 {
			return malformed("field %d: %v", num, protowire.ParseError(m))
		}
		var v []byte
		if typ == protowire.BytesType {
			v, _ = protowire.ConsumeBytes(b[n:])
		}
		if err := fn(num, typ, v, b[:n+m]); err != nil {
			return err
		}
		b = b[n+m:]
	}
	return nil
}
