package onnx

// The decoded messages of an ONNX file: the fields of onnx.proto that
// inference and fine-tuning need. Fields this package does not use are
// skipped by the reader without being stored.

// ModelProto is a decoded onnx.ModelProto.
type ModelProto struct {
	IRVersion     int64
	Opsets        []OpsetID
	ProducerName  string
	ProducerVer   string
	Graph         GraphProto
	HasGraph      bool
	ModelVersion  int64
	ExternalFiles []string // locations named by external-data tensors, in first-use order
}

// OpsetID is an onnx.OperatorSetIdProto: a domain ("" or "ai.onnx" is the
// default domain) and its version.
type OpsetID struct {
	Domain  string
	Version int64
}

// GraphProto is a decoded onnx.GraphProto.
type GraphProto struct {
	Name         string
	Nodes        []NodeProto
	Initializers []TensorProto
	Inputs       []ValueInfo
	Outputs      []ValueInfo
	ValueInfo    []ValueInfo
}

// NodeProto is a decoded onnx.NodeProto. An empty input name is an omitted
// optional input.
type NodeProto struct {
	Name       string
	OpType     string
	Domain     string
	Inputs     []string
	Outputs    []string
	Attributes []AttributeProto
}

// AttrType is onnx.AttributeProto.AttributeType.
type AttrType int32

// The attribute types this package decodes.
const (
	AttrUndefined AttrType = 0
	AttrFloat     AttrType = 1
	AttrInt       AttrType = 2
	AttrString    AttrType = 3
	AttrTensor    AttrType = 4
	AttrGraph     AttrType = 5
	AttrFloats    AttrType = 6
	AttrInts      AttrType = 7
	AttrStrings   AttrType = 8
	AttrTensors   AttrType = 9
)

// AttributeProto is a decoded onnx.AttributeProto. Graph-valued attributes
// (If, Loop, Scan bodies) are recorded by type only: no operation this
// package runs takes one.
type AttributeProto struct {
	Name    string
	Type    AttrType
	F       float32
	I       int64
	S       []byte
	T       *TensorProto
	Floats  []float32
	Ints    []int64
	Strings [][]byte
}

// ValueInfo is a decoded onnx.ValueInfoProto holding a tensor type: the
// element type and the dimensions, where a dimension is either a value
// (Dims[i] >= 0) or a symbolic name (Dims[i] = -1, Params[i] the name).
type ValueInfo struct {
	Name     string
	ElemType DataType
	HasShape bool
	Dims     []int64
	Params   []string
}

// TensorProto is a decoded onnx.TensorProto. Its data is in exactly one of
// Raw (little-endian bytes, aliasing the file: raw_data, or a packed
// float_data or double_data field, whose encoding is the same), Ints
// (int32_data, int64_data and uint64_data widened to int64) or External
// (the location of the bytes in another file). The element count always
// matches the dimensions: Decode checks it.
type TensorProto struct {
	Name     string
	Dims     []int64
	DataType DataType
	Raw      []byte
	Ints     []int64
	Floats   []float32 // float_data written unpacked (rare): one tag per value
	Doubles  []float64 // double_data written unpacked
	External *ExternalData
}

// ExternalData is where a tensor's bytes lie outside the model file:
// Location relative to the model's directory, from Offset, Length bytes
// (Length < 0: to the end of the file).
type ExternalData struct {
	Location string
	Offset   int64
	Length   int64
}
