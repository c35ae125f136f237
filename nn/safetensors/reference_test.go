package safetensors

import (
	"encoding/binary"
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// f32Bytes returns the little-endian bytes of vals.
func f32Bytes(vals ...float32) []byte {
	var b []byte
	for _, v := range vals {
		b = binary.LittleEndian.AppendUint32(b, math.Float32bits(v))
	}
	return b
}

// The expected files below are the outputs that the reference implementation's
// own serialization tests assert (the Rust core of the Python package):
// header lengths 64, 72, 8 and 40, compact JSON, space padding.
func TestReferenceSerializerOutputs(t *testing.T) {
	data := f32Bytes(0, 1, 2, 3, 4, 5)
	cases := []struct {
		name    string
		tensors []Tensor
		md      map[string]string
		header  string
	}{
		{"attn.0", []Tensor{{Name: "attn.0", DType: F32, Shape: []int{1, 2, 3}, Data: data}}, nil,
			`{"attn.0":{"dtype":"F32","shape":[1,2,3],"data_offsets":[0,24]}}`},
		{"forced alignment", []Tensor{{Name: "attn0", DType: F32, Shape: []int{1, 1, 2, 3}, Data: data}}, nil,
			`{"attn0":{"dtype":"F32","shape":[1,1,2,3],"data_offsets":[0,24]}}       `},
		{"empty", nil, nil, `{}      `},
		{"metadata only", nil, map[string]string{"framework": "pt"}, `{"__metadata__":{"framework":"pt"}}     `},
	}
	wantLen := map[string]int{"attn.0": 64, "forced alignment": 72, "empty": 8, "metadata only": 40}
	for _, c := range cases {
		require.Len(t, c.header, wantLen[c.name], c.name)
		var tensorData []byte
		for _, tn := range c.tensors {
			tensorData = append(tensorData, tn.Data...)
		}
		want := rawFile(c.header, tensorData)
		assert.Equal(t, want, encode(t, c.tensors, c.md), c.name)
		f, err := Read(want)
		require.NoError(t, err, c.name)
		assert.Equal(t, c.md, f.Metadata, c.name)
		for _, tn := range c.tensors {
			got, ok := f.Get(tn.Name)
			require.True(t, ok)
			assert.Equal(t, tn, got)
		}
	}
}

// The file from the reference implementation's documentation example: a
// 60-byte header, no padding, and a 2×2 I32 tensor of zeros.
func TestReferenceDocExample(t *testing.T) {
	b := rawFile(`{"test":{"dtype":"I32","shape":[2,2],"data_offsets":[0,16]}}`, make([]byte, 16))
	require.Equal(t, byte(60), b[0])
	f, err := Read(b)
	require.NoError(t, err)
	tn, ok := f.Get("test")
	require.True(t, ok)
	v, err := tn.Int32()
	require.NoError(t, err)
	assert.Equal(t, []int32{0, 0, 0, 0}, v)
	assert.Equal(t, []int{2, 2}, tn.Shape)
}
