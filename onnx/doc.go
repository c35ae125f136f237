// Package onnx reads ONNX models and runs them as Shaderflow tensor graphs
// on any device, without onnxruntime.
//
//	m, err := onnx.Load(dev, "model.onnx")
//	outs, err := m.Run(x) // x: a *tensor.Tensor on dev
//
// # Reading
//
// The reader is hand-written over google.golang.org/protobuf/encoding/protowire
// and decodes only the fields of ModelProto, GraphProto, NodeProto,
// TensorProto, AttributeProto, ValueInfoProto and TypeProto that inference and
// fine-tuning need. Tensor data stored in the file (raw_data and packed
// float_data/double_data) is referenced in place, not copied; data stored in
// external files (location, offset, length) is read from files inside the
// model's directory only (os.Root). Malformed input returns an error wrapping
// ErrMalformed and never panics, and what Decode allocates is bounded by a
// small multiple of the input's size (FuzzDecode checks the first, a test the
// second).
//
// # Running
//
// Run interprets the graph node by node, recording operations on the
// device's lazy graph, so that the usual fusion applies (Conv with its bias,
// batch normalization and ReLU in one kernel). Values whose inputs are all
// known on the host (Shape, and the Gather, Cast, Unsqueeze, Concat, Range,
// ConstantOfShape, Slice and arithmetic that exporters build around it) are
// computed on the host for the inputs' shapes, once for each set of input
// shapes (a later run with inputs of the same shapes and types reuses them);
// initializers of integer type and small floating-point ones stay on the
// host too. Larger floating-point
// initializers are uploaded once, at Load.
//
// ONNX INT64 tensors live on the device as Int32: a host value that does not
// fit is an error, never a truncation. DOUBLE tensors are refused on the
// device. An operation this package does not implement is an
// *UnsupportedError naming the op type, the node and the opset;
// SupportedOps lists the implemented ones. Semantics follow opsets 7 to 18
// where they differ (Split, Squeeze, Unsqueeze and ReduceSum take axes as
// inputs from opset 13, the other reductions from 18; Softmax flattens to
// 2-D before 13; Clip takes its bounds as inputs from 11).
//
// # Fine-tuning
//
// Load with Trainable makes every floating-point initializer (except
// BatchNormalization's running statistics) a parameter that requires
// gradients: a model exported in training mode (BatchNormalization with
// training_mode=1) trains on with the nn/optim optimizers over
// TrainableTensors (Parameters also lists the running statistics).
// SaveSafetensors and SaveONNX write the current weights back.
package onnx
