package onnx

import (
	"errors"
	"fmt"
	"math"

	"google.golang.org/protobuf/encoding/protowire"
)

// ErrMalformed is wrapped by every error that reports an input which is not
// a valid ONNX model (bad wire format, inconsistent tensor sizes, ...).
var ErrMalformed = errors.New("onnx: malformed model")

// malformed returns an error wrapping ErrMalformed.
func malformed(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrMalformed, fmt.Sprintf(format, args...))
}

// maxDims bounds a tensor's rank (ONNX has no limit; the front end's shapes
// are far smaller).
const maxDims = 64

// Decode parses a serialized ModelProto. Tensor data held in the file (raw_data
// and packed float_data/double_data) aliases b: b must not be modified while
// the model is in use. Malformed input returns an error wrapping ErrMalformed
// and never panics; what Decode allocates is bounded by a small multiple of
// len(b) (every stored element costs at least one byte of input).
func Decode(b []byte) (*ModelProto, error) {
	m := &ModelProto{}
	err := fields(b, func(num protowire.Number, typ protowire.Type, v []byte, x uint64) error {
		switch {
		case num == 1 && typ == protowire.VarintType:
			m.IRVersion = int64(x)
		case num == 8 && typ == protowire.BytesType:
			op, err := decodeOpset(v)
			if err != nil {
				return err
			}
			m.Opsets = append(m.Opsets, op)
		case num == 2 && typ == protowire.BytesType:
			m.ProducerName = string(v)
		case num == 3 && typ == protowire.BytesType:
			m.ProducerVer = string(v)
		case num == 5 && typ == protowire.VarintType:
			m.ModelVersion = int64(x)
		case num == 7 && typ == protowire.BytesType:
			if m.HasGraph {
				return malformed("two graphs in one model")
			}
			g, err := decodeGraph(v)
			if err != nil {
				return fmt.Errorf("graph: %w", err)
			}
			m.Graph, m.HasGraph = g, true
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	seen := map[string]bool{}
	for _, t := range m.Graph.Initializers {
		if t.External != nil && !seen[t.External.Location] {
			seen[t.External.Location] = true
			m.ExternalFiles = append(m.ExternalFiles, t.External.Location)
		}
	}
	return m, nil
}

// fields calls fn for each field of the message b: its number, wire type and
// value (v for length-delimited fields, x for varint and fixed ones).
// Groups are refused (onnx.proto has none).
func fields(b []byte, fn func(num protowire.Number, typ protowire.Type, v []byte, x uint64) error) error {
	for len(b) > 0 {
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 {
			return malformed("bad field tag: %v", protowire.ParseError(n))
		}
		b = b[n:]
		var v []byte
		var x uint64
		switch typ {
		case protowire.VarintType:
			x, n = protowire.ConsumeVarint(b)
		case protowire.Fixed32Type:
			var y uint32
			y, n = protowire.ConsumeFixed32(b)
			x = uint64(y)
		case protowire.Fixed64Type:
			x, n = protowire.ConsumeFixed64(b)
		case protowire.BytesType:
			v, n = protowire.ConsumeBytes(b)
		default:
			return malformed("field %d has unsupported wire type %d", num, typ)
		}
		if n < 0 {
			return malformed("field %d: %v", num, protowire.ParseError(n))
		}
		b = b[n:]
		if err := fn(num, typ, v, x); err != nil {
			return err
		}
	}
	return nil
}

// capped returns an empty slice with capacity n (nil when n is 0).
func capped[T any](n int) []T {
	if n == 0 {
		return nil
	}
	return make([]T, 0, n)
}

// countFields counts the fields numbered below 16 in the message b, so that
// repeated fields can be allocated once at their final size (an error is left
// for the decoding pass to report).
func countFields(b []byte) (c [16]int) {
	for len(b) > 0 {
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 {
			return c
		}
		b = b[n:]
		n = protowire.ConsumeFieldValue(num, typ, b)
		if n < 0 {
			return c
		}
		b = b[n:]
		if num < 16 {
			c[num]++
		}
	}
	return c
}

// varints appends the values of a repeated varint field, packed (BytesType)
// or not, to dst.
func varints(dst []int64, typ protowire.Type, v []byte, x uint64) ([]int64, error) {
	switch typ {
	case protowire.VarintType:
		return append(dst, int64(x)), nil
	case protowire.BytesType:
		for len(v) > 0 {
			y, n := protowire.ConsumeVarint(v)
			if n < 0 {
				return dst, malformed("packed varint: %v", protowire.ParseError(n))
			}
			dst = append(dst, int64(y))
			v = v[n:]
		}
		return dst, nil
	}
	return dst, malformed("repeated integer field has wire type %d", typ)
}

// floats appends the values of a repeated float field to dst.
func floats(dst []float32, typ protowire.Type, v []byte, x uint64) ([]float32, error) {
	switch typ {
	case protowire.Fixed32Type:
		return append(dst, math.Float32frombits(uint32(x))), nil
	case protowire.BytesType:
		if len(v)%4 != 0 {
			return dst, malformed("packed floats of %d bytes", len(v))
		}
		for i := 0; i < len(v); i += 4 {
			dst = append(dst, math.Float32frombits(uint32(v[i])|uint32(v[i+1])<<8|uint32(v[i+2])<<16|uint32(v[i+3])<<24))
		}
		return dst, nil
	}
	return dst, malformed("repeated float field has wire type %d", typ)
}

func wantType(name string, typ, want protowire.Type) error {
	if typ != want {
		return malformed("%s has wire type %d, want %d", name, typ, want)
	}
	return nil
}

func decodeOpset(b []byte) (OpsetID, error) {
	var op OpsetID
	err := fields(b, func(num protowire.Number, typ protowire.Type, v []byte, x uint64) error {
		switch num {
		case 1:
			op.Domain = string(v)
			return wantType("opset domain", typ, protowire.BytesType)
		case 2:
			op.Version = int64(x)
			return wantType("opset version", typ, protowire.VarintType)
		}
		return nil
	})
	return op, err
}

func decodeGraph(b []byte) (GraphProto, error) {
	c := countFields(b)
	g := GraphProto{
		Nodes:        capped[NodeProto](c[1]),
		Initializers: capped[TensorProto](c[5]),
		Inputs:       capped[ValueInfo](c[11]),
		Outputs:      capped[ValueInfo](c[12]),
	}
	err := fields(b, func(num protowire.Number, typ protowire.Type, v []byte, x uint64) error {
		if num == 1 || num == 2 || num == 5 || num == 11 || num == 12 || num == 13 {
			if err := wantType(fmt.Sprintf("graph field %d", num), typ, protowire.BytesType); err != nil {
				return err
			}
		}
		switch num {
		case 1:
			n, err := decodeNode(v)
			if err != nil {
				return fmt.Errorf("node %d: %w", len(g.Nodes), err)
			}
			g.Nodes = append(g.Nodes, n)
		case 2:
			g.Name = string(v)
		case 5:
			t, err := decodeTensor(v)
			if err != nil {
				return fmt.Errorf("initializer %d: %w", len(g.Initializers), err)
			}
			g.Initializers = append(g.Initializers, t)
		case 15:
			return malformed("sparse initializers are not supported")
		case 11, 12, 13:
			vi, err := decodeValueInfo(v)
			if err != nil {
				return fmt.Errorf("value info: %w", err)
			}
			switch num {
			case 11:
				g.Inputs = append(g.Inputs, vi)
			case 12:
				g.Outputs = append(g.Outputs, vi)
			default:
				g.ValueInfo = append(g.ValueInfo, vi)
			}
		}
		return nil
	})
	return g, err
}

func decodeNode(b []byte) (NodeProto, error) {
	c := countFields(b)
	n := NodeProto{Inputs: capped[string](c[1]), Outputs: capped[string](c[2]), Attributes: capped[AttributeProto](c[5])}
	err := fields(b, func(num protowire.Number, typ protowire.Type, v []byte, x uint64) error {
		if num == 1 || num == 2 || num == 3 || num == 4 || num == 5 || num == 7 {
			if err := wantType(fmt.Sprintf("node field %d", num), typ, protowire.BytesType); err != nil {
				return err
			}
		}
		switch num {
		case 1:
			n.Inputs = append(n.Inputs, string(v))
		case 2:
			n.Outputs = append(n.Outputs, string(v))
		case 3:
			n.Name = string(v)
		case 4:
			n.OpType = string(v)
		case 7:
			n.Domain = string(v)
		case 5:
			a, err := decodeAttribute(v)
			if err != nil {
				return fmt.Errorf("attribute %d: %w", len(n.Attributes), err)
			}
			n.Attributes = append(n.Attributes, a)
		}
		return nil
	})
	if err == nil && n.OpType == "" {
		err = malformed("node %q has no op_type", n.Name)
	}
	return n, err
}

func decodeAttribute(b []byte) (AttributeProto, error) {
	var a AttributeProto
	err := fields(b, func(num protowire.Number, typ protowire.Type, v []byte, x uint64) error {
		var err error
		switch num {
		case 1:
			a.Name = string(v)
			return wantType("attribute name", typ, protowire.BytesType)
		case 20:
			a.Type = AttrType(int32(x))
			return wantType("attribute type", typ, protowire.VarintType)
		case 2:
			a.F = math.Float32frombits(uint32(x))
			return wantType("attribute f", typ, protowire.Fixed32Type)
		case 3:
			a.I = int64(x)
			return wantType("attribute i", typ, protowire.VarintType)
		case 4:
			a.S = v
			return wantType("attribute s", typ, protowire.BytesType)
		case 5:
			if err := wantType("attribute t", typ, protowire.BytesType); err != nil {
				return err
			}
			t, err := decodeTensor(v)
			if err != nil {
				return err
			}
			a.T = &t
		case 7:
			a.Floats, err = floats(a.Floats, typ, v, x)
		case 8:
			a.Ints, err = varints(a.Ints, typ, v, x)
		case 9:
			a.Strings = append(a.Strings, v)
			return wantType("attribute strings", typ, protowire.BytesType)
		}
		return err
	})
	if err == nil && a.Type == AttrUndefined {
		// Writers before IR version 3 left the type out; infer it.
		switch {
		case a.T != nil:
			a.Type = AttrTensor
		case len(a.Floats) > 0:
			a.Type = AttrFloats
		case len(a.Ints) > 0:
			a.Type = AttrInts
		case len(a.Strings) > 0:
			a.Type = AttrStrings
		case a.S != nil:
			a.Type = AttrString
		}
	}
	return a, err
}

func decodeValueInfo(b []byte) (ValueInfo, error) {
	var vi ValueInfo
	err := fields(b, func(num protowire.Number, typ protowire.Type, v []byte, x uint64) error {
		switch num {
		case 1:
			vi.Name = string(v)
			return wantType("value info name", typ, protowire.BytesType)
		case 2:
			if err := wantType("value info type", typ, protowire.BytesType); err != nil {
				return err
			}
			return decodeType(v, &vi)
		}
		return nil
	})
	return vi, err
}

// decodeType reads a TypeProto's tensor_type into vi; other kinds of type
// (sequences, maps, optionals) leave vi's element type undefined.
func decodeType(b []byte, vi *ValueInfo) error {
	return fields(b, func(num protowire.Number, typ protowire.Type, v []byte, x uint64) error {
		if num != 1 {
			return nil
		}
		if err := wantType("tensor type", typ, protowire.BytesType); err != nil {
			return err
		}
		return fields(v, func(num protowire.Number, typ protowire.Type, v []byte, x uint64) error {
			switch num {
			case 1:
				vi.ElemType = DataType(int32(x))
				return wantType("elem type", typ, protowire.VarintType)
			case 2:
				if err := wantType("shape", typ, protowire.BytesType); err != nil {
					return err
				}
				vi.HasShape = true
				return fields(v, func(num protowire.Number, typ protowire.Type, v []byte, x uint64) error {
					if num != 1 {
						return nil
					}
					if err := wantType("dimension", typ, protowire.BytesType); err != nil {
						return err
					}
					d, p := int64(-1), ""
					err := fields(v, func(num protowire.Number, typ protowire.Type, v []byte, x uint64) error {
						switch num {
						case 1:
							d = int64(x)
							return wantType("dim value", typ, protowire.VarintType)
						case 2:
							p = string(v)
							return wantType("dim param", typ, protowire.BytesType)
						}
						return nil
					})
					if len(vi.Dims) >= maxDims {
						return malformed("more than %d dimensions", maxDims)
					}
					vi.Dims = append(vi.Dims, d)
					vi.Params = append(vi.Params, p)
					return err
				})
			}
			return nil
		})
	})
}
