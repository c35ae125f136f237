// Package onnx reads ONNX models and runs them as Shaderflow tensor graphs
// on any device.
//
// The reader is hand-written over google.golang.org/protobuf/encoding/protowire
// and decodes only the fields of ModelProto, GraphProto, NodeProto,
// TensorProto, AttributeProto, ValueInfoProto and TypeProto that inference and
// fine-tuning need. Tensor data stored in the file (raw_data and packed
// float_data/double_data) is referenced in place, not copied; data stored in
// external files (location, offset, length) is read from files inside the
// model's directory only. Malformed input returns an error wrapping
// ErrMalformed and never panics, and what Decode allocates is bounded by a
// small multiple of the input's size (FuzzDecode checks the first, a test the
// second).
package onnx
