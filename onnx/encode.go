package onnx

import (
	"math"
	"strconv"

	"google.golang.org/protobuf/encoding/protowire"
)

// Encode serializes m: the fields Decode reads, so that Decode(Encode(m))
// gives m back. Tensor data is written as raw_data (or int64_data /
// float_data / double_data where m holds it that way).
func Encode(m *ModelProto) []byte {
	var b []byte
	b = protowire.AppendTag(b, 1, protowire.VarintType)
	b = protowire.AppendVarint(b, uint64(m.IRVersion))
	if m.ProducerName != "" {
		b = appendString(b, 2, m.ProducerName)
	}
	if m.ProducerVer != "" {
		b = appendString(b, 3, m.ProducerVer)
	}
	if m.ModelVersion != 0 {
		b = protowire.AppendTag(b, 5, protowire.VarintType)
		b = protowire.AppendVarint(b, uint64(m.ModelVersion))
	}
	if m.HasGraph {
		b = appendMessage(b, 7, encodeGraph(&m.Graph))
	}
	for _, op := range m.Opsets {
		var o []byte
		o = appendString(o, 1, op.Domain)
		o = protowire.AppendTag(o, 2, protowire.VarintType)
		o = protowire.AppendVarint(o, uint64(op.Version))
		b = appendMessage(b, 8, o)
	}
	return b
}

func appendString(b []byte, num protowire.Number, s string) []byte {
	b = protowire.AppendTag(b, num, protowire.BytesType)
	return protowire.AppendString(b, s)
}

func appendMessage(b []byte, num protowire.Number, m []byte) []byte {
	b = protowire.AppendTag(b, num, protowire.BytesType)
	return protowire.AppendBytes(b, m)
}

func appendPackedVarints(b []byte, num protowire.Number, v []int64) []byte {
	var p []byte
	for _, x := range v {
		p = protowire.AppendVarint(p, uint64(x))
	}
	return appendMessage(b, num, p)
}

func encodeGraph(g *GraphProto) []byte {
	var b []byte
	for i := range g.Nodes {
		b = appendMessage(b, 1, encodeNode(&g.Nodes[i]))
	}
	if g.Name != "" {
		b = appendString(b, 2, g.Name)
	}
	for i := range g.Initializers {
		b = appendMessage(b, 5, encodeTensor(&g.Initializers[i]))
	}
	for _, list := range []struct {
		num protowire.Number
		vs  []ValueInfo
	}{{11, g.Inputs}, {12, g.Outputs}, {13, g.ValueInfo}} {
		for i := range list.vs {
			b = appendMessage(b, list.num, encodeValueInfo(&list.vs[i]))
		}
	}
	return b
}

func encodeNode(n *NodeProto) []byte {
	var b []byte
	for _, s := range n.Inputs {
		b = appendString(b, 1, s)
	}
	for _, s := range n.Outputs {
		b = appendString(b, 2, s)
	}
	if n.Name != "" {
		b = appendString(b, 3, n.Name)
	}
	b = appendString(b, 4, n.OpType)
	for i := range n.Attributes {
		b = appendMessage(b, 5, encodeAttribute(&n.Attributes[i]))
	}
	if n.Domain != "" {
		b = appendString(b, 7, n.Domain)
	}
	return b
}

func encodeAttribute(a *AttributeProto) []byte {
	var b []byte
	b = appendString(b, 1, a.Name)
	switch a.Type {
	case AttrFloat:
		b = protowire.AppendTag(b, 2, protowire.Fixed32Type)
		b = protowire.AppendFixed32(b, math.Float32bits(a.F))
	case AttrInt:
		b = protowire.AppendTag(b, 3, protowire.VarintType)
		b = protowire.AppendVarint(b, uint64(a.I))
	case AttrString:
		b = protowire.AppendTag(b, 4, protowire.BytesType)
		b = protowire.AppendBytes(b, a.S)
	case AttrTensor:
		if a.T != nil {
			b = appendMessage(b, 5, encodeTensor(a.T))
		}
	case AttrFloats:
		var p []byte
		for _, f := range a.Floats {
			p = protowire.AppendFixed32(p, math.Float32bits(f))
		}
		b = appendMessage(b, 7, p)
	case AttrInts:
		b = appendPackedVarints(b, 8, a.Ints)
	case AttrStrings:
		for _, s := range a.Strings {
			b = protowire.AppendTag(b, 9, protowire.BytesType)
			b = protowire.AppendBytes(b, s)
		}
	}
	b = protowire.AppendTag(b, 20, protowire.VarintType)
	return protowire.AppendVarint(b, uint64(a.Type))
}

func encodeValueInfo(v *ValueInfo) []byte {
	var shape []byte
	for i, d := range v.Dims {
		var dim []byte
		if d >= 0 {
			dim = protowire.AppendTag(dim, 1, protowire.VarintType)
			dim = protowire.AppendVarint(dim, uint64(d))
		} else if i < len(v.Params) && v.Params[i] != "" {
			dim = appendString(dim, 2, v.Params[i])
		}
		shape = appendMessage(shape, 1, dim)
	}
	var tt []byte
	tt = protowire.AppendTag(tt, 1, protowire.VarintType)
	tt = protowire.AppendVarint(tt, uint64(v.ElemType))
	if v.HasShape {
		tt = appendMessage(tt, 2, shape)
	}
	var b []byte
	b = appendString(b, 1, v.Name)
	return appendMessage(b, 2, appendMessage(nil, 1, tt))
}

// encodeTensor serializes a TensorProto.
func encodeTensor(t *TensorProto) []byte {
	var b []byte
	if len(t.Dims) > 0 {
		b = appendPackedVarints(b, 1, t.Dims)
	}
	b = protowire.AppendTag(b, 2, protowire.VarintType)
	b = protowire.AppendVarint(b, uint64(t.DataType))
	if t.Name != "" {
		b = appendString(b, 8, t.Name)
	}
	switch {
	case t.External != nil:
		entries := [][2]string{
			{"location", t.External.Location},
			{"offset", strconv.FormatInt(t.External.Offset, 10)},
		}
		if t.External.Length >= 0 { // -1: not given, the rest of the file
			entries = append(entries, [2]string{"length", strconv.FormatInt(t.External.Length, 10)})
		}
		for _, kv := range entries {
			b = appendMessage(b, 13, appendString(appendString(nil, 1, kv[0]), 2, kv[1]))
		}
		b = protowire.AppendTag(b, 14, protowire.VarintType)
		b = protowire.AppendVarint(b, 1)
	case t.Raw != nil:
		b = protowire.AppendTag(b, 9, protowire.BytesType)
		b = protowire.AppendBytes(b, t.Raw)
	case t.Floats != nil:
		var p []byte
		for _, f := range t.Floats {
			p = protowire.AppendFixed32(p, math.Float32bits(f))
		}
		b = appendMessage(b, 4, p)
	case t.Doubles != nil:
		var p []byte
		for _, f := range t.Doubles {
			p = protowire.AppendFixed64(p, math.Float64bits(f))
		}
		b = appendMessage(b, 10, p)
	case t.Ints != nil:
		num := protowire.Number(5)
		switch t.DataType {
		case Int64:
			num = 7
		case Uint32, Uint64:
			num = 11
		}
		b = appendPackedVarints(b, num, t.Ints)
	}
	return b
}
