package onnx

import (
	"errors"
	"runtime"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"google.golang.org/protobuf/encoding/protowire"
)

func TestDecodeRoundTrip(t *testing.T) {
	m := sampleModel()
	b := Encode(m)
	got, err := Decode(b)
	require.NoError(t, err)
	assert.Equal(t, m.Opsets, got.Opsets)
	assert.Equal(t, m.Graph.Inputs, got.Graph.Inputs)
	assert.Equal(t, m.Graph.Nodes, got.Graph.Nodes)
	assert.Equal(t, m.Graph.Initializers, got.Graph.Initializers)
	assert.Equal(t, Encode(got), b)
}

func TestDecodeAliasesRawData(t *testing.T) {
	b := Encode(sampleModel())
	m, err := Decode(b)
	require.NoError(t, err)
	w := m.Graph.Initializers[0]
	require.Len(t, w.Raw, 24)
	// The bytes are the file's own, not a copy.
	w.Raw[0] ^= 0xff
	again, err := Decode(b)
	require.NoError(t, err)
	assert.Equal(t, w.Raw[0], again.Graph.Initializers[0].Raw[0])
}

func TestDecodeRefusesInconsistentTensors(t *testing.T) {
	for name, tp := range map[string]TensorProto{
		"short raw":       {Name: "t", DataType: Float, Dims: []int64{3}, Raw: rawF32(1, 2)},
		"negative dim":    {Name: "t", DataType: Float, Dims: []int64{-1}, Raw: rawF32()},
		"overflow":        {Name: "t", DataType: Float, Dims: []int64{1 << 31, 1 << 31, 1 << 31}, Raw: rawF32()},
		"unknown type":    {Name: "t", DataType: 99, Dims: []int64{1}, Raw: []byte{1}},
		"string":          {Name: "t", DataType: String, Dims: []int64{1}, Raw: []byte{1}},
		"ints for float":  {Name: "t", DataType: Float, Dims: []int64{1}, Ints: []int64{1}},
		"too few ints":    {Name: "t", DataType: Int64, Dims: []int64{2}, Ints: []int64{1}},
		"external length": {Name: "t", DataType: Float, Dims: []int64{2}, External: &ExternalData{Location: "w.bin", Length: 4}},
	} {
		m := sampleModel()
		m.Graph.Initializers = append(m.Graph.Initializers, tp)
		_, err := Decode(Encode(m))
		assert.ErrorIs(t, err, ErrMalformed, name)
	}
}

func TestDecodeRefusesBadWire(t *testing.T) {
	b := Encode(sampleModel())
	for i := 1; i < len(b); i += 7 {
		_, err := Decode(b[:i])
		if err != nil {
			assert.ErrorIs(t, err, ErrMalformed)
		}
	}
	// A length beyond the end, a group, a bad tag.
	for _, bad := range [][]byte{
		protowire.AppendVarint(protowire.AppendTag(nil, 7, protowire.BytesType), 1000),
		protowire.AppendTag(nil, 7, protowire.StartGroupType),
		{0x00},
		{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff},
	} {
		_, err := Decode(bad)
		assert.True(t, errors.Is(err, ErrMalformed), "%x: %v", bad, err)
	}
}

// TestDecodeMemoryIsBoundedByTheInput decodes inputs that maximize what a
// byte of input can make Decode store (empty nodes, one-byte packed
// varints, huge claimed dimensions) and checks the bytes allocated.
func TestDecodeMemoryIsBoundedByTheInput(t *testing.T) {
	const n = 1 << 16
	var nodes []byte
	for range n {
		nodes = appendMessage(nodes, 1, appendString(nil, 4, "A"))
	}
	packed := make([]byte, n)
	var huge []byte
	huge = appendPackedVarints(huge, 1, []int64{1 << 40, 1 << 40})
	for name, in := range map[string][]byte{
		"empty nodes":    appendMessage(nil, 7, nodes),
		"packed varints": appendMessage(nil, 7, appendMessage(nil, 5, appendMessage(nil, 7, packed))),
		"huge dims":      appendMessage(nil, 7, appendMessage(nil, 5, huge)),
	} {
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		_, _ = Decode(in)
		runtime.ReadMemStats(&after)
		allocated := after.TotalAlloc - before.TotalAlloc
		assert.Less(t, allocated, uint64(200*len(in)+1<<16), "%s: %d bytes allocated for %d bytes of input", name, allocated, len(in))
	}
}
