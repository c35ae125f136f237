package onnx

import (
	"encoding/binary"
	"fmt"
	"math"
	"strconv"

	"github.com/shaderflow/shaderflow/internal/checked"
	"google.golang.org/protobuf/encoding/protowire"
)

// decodeTensor parses a TensorProto and checks that its data matches its
// dimensions and type.
func decodeTensor(b []byte) (TensorProto, error) {
	var t TensorProto
	keys := map[string]string{}
	location := int64(0)
	field := protowire.Number(0) // the one data field seen
	err := fields(b, func(num protowire.Number, typ protowire.Type, v []byte, x uint64) error {
		var err error
		switch num {
		case 1:
			t.Dims, err = varints(t.Dims, typ, v, x)
			if len(t.Dims) > maxDims {
				return malformed("more than %d dimensions", maxDims)
			}
			return err
		case 2:
			t.DataType = DataType(int32(x))
			return wantType("data type", typ, protowire.VarintType)
		case 8:
			t.Name = string(v)
			return wantType("tensor name", typ, protowire.BytesType)
		case 13:
			if err := wantType("external data", typ, protowire.BytesType); err != nil {
				return err
			}
			var k, val string
			err = fields(v, func(num protowire.Number, typ protowire.Type, v []byte, x uint64) error {
				switch num {
				case 1:
					k = string(v)
				case 2:
					val = string(v)
				}
				return wantType("string entry", typ, protowire.BytesType)
			})
			keys[k] = val
			return err
		case 14:
			location = int64(x)
			return wantType("data location", typ, protowire.VarintType)
		case 6:
			return malformed("string tensors are not supported")
		case 4, 5, 7, 9, 10, 11:
		default:
			return nil
		}
		if field != 0 && field != num {
			return malformed("tensor %q has data in more than one field", t.Name)
		}
		field = num
		switch num {
		case 9: // raw_data
			if t.Raw != nil {
				return malformed("tensor %q has two raw_data fields", t.Name)
			}
			t.Raw = v
			return wantType("raw data", typ, protowire.BytesType)
		case 4: // float_data: one packed run stays in place
			if typ == protowire.BytesType && t.Raw == nil && t.Floats == nil {
				if len(v)%4 != 0 {
					return malformed("packed floats of %d bytes", len(v))
				}
				t.Raw = v
				return nil
			}
			if t.Raw != nil {
				t.Floats, _ = floats(nil, protowire.BytesType, t.Raw, 0)
				t.Raw = nil
			}
			t.Floats, err = floats(t.Floats, typ, v, x)
		case 10: // double_data
			if typ == protowire.BytesType && t.Raw == nil && t.Doubles == nil {
				if len(v)%8 != 0 {
					return malformed("packed doubles of %d bytes", len(v))
				}
				t.Raw = v
				return nil
			}
			if t.Raw != nil {
				t.Doubles = doubles(nil, t.Raw)
				t.Raw = nil
			}
			switch typ {
			case protowire.BytesType:
				if len(v)%8 != 0 {
					return malformed("packed doubles of %d bytes", len(v))
				}
				t.Doubles = doubles(t.Doubles, v)
			case protowire.Fixed64Type:
				t.Doubles = append(t.Doubles, math.Float64frombits(x))
			default:
				return malformed("double data has wire type %d", typ)
			}
		default: // int32_data, int64_data, uint64_data
			t.Ints, err = varints(t.Ints, typ, v, x)
		}
		return err
	})
	if err != nil {
		return t, err
	}
	if location == 1 {
		e, err := externalData(keys)
		if err != nil {
			return t, err
		}
		t.External = &e
		if field != 0 {
			return t, malformed("tensor %q has both external and stored data", t.Name)
		}
	} else if location != 0 {
		return t, malformed("tensor %q has unknown data location %d", t.Name, location)
	}
	if t.DataType.Size() == 0 {
		return t, malformed("tensor %q has unsupported data type %v", t.Name, t.DataType)
	}
	n, err := t.count()
	if err != nil {
		return t, err
	}
	want := map[protowire.Number]bool{
		4: t.DataType == Float, 10: t.DataType == Double, 7: t.DataType == Int64,
		11: t.DataType == Uint32 || t.DataType == Uint64,
		5: t.DataType != Float && t.DataType != Double && t.DataType != Int64 &&
			t.DataType != Uint32 && t.DataType != Uint64,
		9: true, 0: true,
	}
	if !want[field] {
		return t, malformed("tensor %q of %v has its data in field %d", t.Name, t.DataType, field)
	}
	size := t.DataType.Size()
	var got int
	switch {
	case t.External != nil:
		if t.External.Length < 0 {
			return t, nil
		}
		got = int(min(t.External.Length, math.MaxInt64/2))
	case t.Raw != nil:
		got = len(t.Raw)
	case t.Floats != nil:
		got, size = len(t.Floats), 1
	case t.Doubles != nil:
		got, size = len(t.Doubles), 1
	default:
		got, size = len(t.Ints), 1
	}
	if bytes, ok := checked.Mul(n, size); !ok || bytes != got {
		return t, malformed("tensor %q: data of %d for %d elements of %v", t.Name, got, n, t.DataType)
	}
	if t.External != nil {
		t.External.Length = int64(got)
	}
	return t, nil
}

// doubles appends the little-endian doubles of v to dst.
func doubles(dst []float64, v []byte) []float64 {
	for i := 0; i+8 <= len(v); i += 8 {
		dst = append(dst, math.Float64frombits(binary.LittleEndian.Uint64(v[i:])))
	}
	return dst
}

// count returns the number of elements the dimensions describe.
func (t *TensorProto) count() (int, error) {
	n := 1
	for _, d := range t.Dims {
		if d < 0 || d > math.MaxInt32*4 {
			return 0, malformed("tensor %q has dimension %d", t.Name, d)
		}
		var ok bool
		if n, ok = checked.Mul(n, int(d)); !ok {
			return 0, malformed("tensor %q: dimensions %v overflow", t.Name, t.Dims)
		}
	}
	if _, ok := checked.Mul(n, 8); !ok {
		return 0, malformed("tensor %q: dimensions %v overflow", t.Name, t.Dims)
	}
	return n, nil
}

// Shape returns the dimensions as ints.
func (t *TensorProto) Shape() []int {
	s := make([]int, len(t.Dims))
	for i, d := range t.Dims {
		s[i] = int(d)
	}
	return s
}

// externalData reads the location, offset and length entries.
func externalData(keys map[string]string) (ExternalData, error) {
	e := ExternalData{Location: keys["location"], Length: -1}
	if e.Location == "" {
		return e, malformed("external data without a location")
	}
	for _, k := range []string{"offset", "length"} {
		s, ok := keys[k]
		if !ok {
			continue
		}
		v, err := strconv.ParseInt(s, 10, 64)
		if err != nil || v < 0 {
			return e, malformed("external data %s %q", k, s)
		}
		if k == "offset" {
			e.Offset = v
		} else {
			e.Length = v
		}
	}
	return e, nil
}

// String describes the tensor for error messages.
func (t *TensorProto) String() string {
	return fmt.Sprintf("%q %v %v", t.Name, t.DataType, t.Dims)
}
