// Package safetensors reads and writes the safetensors checkpoint format at
// the byte level, with no dependency on the tensor front end.
//
// A safetensors file is an 8-byte little-endian header length N, an N-byte
// UTF-8 JSON header, and the raw little-endian, row-major tensor data:
//
//	{"__metadata__":{"format":"pt"},
//	 "w":{"dtype":"F32","shape":[2,3],"data_offsets":[0,24]}, ...}
//
// Each tensor's data_offsets are relative to the start of the data section;
// the tensors tile that section exactly, without gaps or overlaps. The
// optional "__metadata__" entry maps strings to strings.
//
// Write produces the same bytes as the reference implementation (the Rust
// core of the Python safetensors package) for the same tensors: tensors
// ordered by descending dtype alignment and then by name, so that every
// tensor's data is aligned to its element size, compact JSON, and the header
// padded with spaces to a multiple of 8 bytes. Metadata keys, which the
// reference writes in hash order, are sorted, so output is deterministic.
//
// Read and ReadFrom validate everything before trusting it: the header length
// against the input size, UTF-8 and JSON well-formedness, duplicate names,
// known dtypes, non-negative shapes, overflow-safe byte counts equal to
// product(shape)*dtype size, and offsets that tile the data section exactly.
// Malformed input returns an error wrapping ErrMalformed and never panics.
//
// Tensor data is kept as raw bytes; FromFloat32, FromInt32, Tensor.Float32
// and Tensor.Int32 convert between those bytes and Go slices (F16 and BF16 go
// through the conversions of the device contract package).
package safetensors
