package safetensors

import (
	"bytes"
	"encoding/binary"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestReadMalformed(t *testing.T) {
	d8 := make([]byte, 8)
	lenOnly := func(n uint64) []byte { return binary.LittleEndian.AppendUint64(nil, n) }
	cases := map[string][]byte{
		"empty":                 {},
		"7 bytes":               make([]byte, 7),
		"zero header":           lenOnly(0),
		"header over limit":     lenOnly(MaxHeaderBytes + 1),
		"header past end":       append(lenOnly(10), "{}"...),
		"header length 2^64-1":  lenOnly(^uint64(0)),
		"invalid utf8":          rawFile("{\"\xff\":{}}", nil),
		"no brace":              rawFile(` {}`, nil),
		"array":                 rawFile(`[]`, nil),
		"invalid json":          rawFile(`{"a":}`, nil),
		"missing comma":         rawFile(`{"a":{"dtype":"U8","shape":[1],"data_offsets":[0,1]} "b":1}`, []byte{1}),
		"unterminated":          rawFile(`{"a":{"dtype":"U8"`, nil),
		"trailing garbage":      rawFile(`{}x`, nil),
		"second object":         rawFile(`{}{}`, nil),
		"duplicate tensor":      rawFile(`{"a":{"dtype":"U8","shape":[1],"data_offsets":[0,1]},"a":{"dtype":"U8","shape":[1],"data_offsets":[1,2]}}`, []byte{1, 2}),
		"duplicate field":       rawFile(`{"a":{"dtype":"U8","dtype":"I8","shape":[1],"data_offsets":[0,1]}}`, []byte{1}),
		"duplicate metadata":    rawFile(`{"__metadata__":{},"__metadata__":{}}`, nil),
		"duplicate md key":      rawFile(`{"__metadata__":{"k":"a","k":"b"}}`, nil),
		"metadata number":       rawFile(`{"__metadata__":{"k":1}}`, nil),
		"metadata null value":   rawFile(`{"__metadata__":{"k":null}}`, nil),
		"metadata array":        rawFile(`{"__metadata__":["k"]}`, nil),
		"tensor not object":     rawFile(`{"a":3}`, nil),
		"unknown dtype":         rawFile(`{"a":{"dtype":"F4","shape":[2],"data_offsets":[0,1]}}`, []byte{1}),
		"dtype number":          rawFile(`{"a":{"dtype":4,"shape":[1],"data_offsets":[0,4]}}`, d8[:4]),
		"missing dtype":         rawFile(`{"a":{"shape":[1],"data_offsets":[0,1]}}`, []byte{1}),
		"missing shape":         rawFile(`{"a":{"dtype":"U8","data_offsets":[0,1]}}`, []byte{1}),
		"null shape":            rawFile(`{"a":{"dtype":"U8","shape":null,"data_offsets":[0,1]}}`, []byte{1}),
		"missing offsets":       rawFile(`{"a":{"dtype":"U8","shape":[1]}}`, []byte{1}),
		"three offsets":         rawFile(`{"a":{"dtype":"U8","shape":[1],"data_offsets":[0,1,1]}}`, []byte{1}),
		"one offset":            rawFile(`{"a":{"dtype":"U8","shape":[1],"data_offsets":[1]}}`, []byte{1}),
		"float dim":             rawFile(`{"a":{"dtype":"U8","shape":[1.5],"data_offsets":[0,1]}}`, []byte{1}),
		"exponent dim":          rawFile(`{"a":{"dtype":"U8","shape":[1e0],"data_offsets":[0,1]}}`, []byte{1}),
		"negative dim":          rawFile(`{"a":{"dtype":"U8","shape":[-1],"data_offsets":[0,0]}}`, nil),
		"huge dim":              rawFile(`{"a":{"dtype":"U8","shape":[99999999999999999999],"data_offsets":[0,1]}}`, []byte{1}),
		"shape overflow":        rawFile(`{"a":{"dtype":"F32","shape":[4611686018427387904,4],"data_offsets":[0,0]}}`, nil),
		"bytes overflow":        rawFile(`{"a":{"dtype":"F64","shape":[2305843009213693952],"data_offsets":[0,0]}}`, nil),
		"wrong byte count":      rawFile(`{"a":{"dtype":"F32","shape":[2],"data_offsets":[0,4]}}`, d8[:4]),
		"reversed offsets":      rawFile(`{"a":{"dtype":"U8","shape":[0],"data_offsets":[1,0]}}`, []byte{1}),
		"negative offsets":      rawFile(`{"a":{"dtype":"U8","shape":[1],"data_offsets":[-1,0]}}`, []byte{1}),
		"gap":                   rawFile(`{"a":{"dtype":"U8","shape":[1],"data_offsets":[1,2]}}`, []byte{1, 2}),
		"overlap":               rawFile(`{"a":{"dtype":"U16","shape":[1],"data_offsets":[0,2]},"b":{"dtype":"U16","shape":[1],"data_offsets":[1,3]}}`, []byte{1, 2, 3}),
		"same range":            rawFile(`{"a":{"dtype":"U8","shape":[1],"data_offsets":[0,1]},"b":{"dtype":"U8","shape":[1],"data_offsets":[0,1]}}`, []byte{1}),
		"past end":              rawFile(`{"a":{"dtype":"U8","shape":[3],"data_offsets":[0,3]}}`, []byte{1, 2}),
		"trailing data":         rawFile(`{"a":{"dtype":"U8","shape":[1],"data_offsets":[0,1]}}`, []byte{1, 2}),
		"data without tensors":  rawFile(`{}`, []byte{1}),
		"offsets past 2^63":     rawFile(`{"a":{"dtype":"U8","shape":[0],"data_offsets":[9223372036854775808,9223372036854775808]}}`, nil),
		"nested depth":          rawFile(`{"a":{"x":`+string(bytes.Repeat([]byte("["), 20000))+`}}`, nil),
		"metadata not a string": rawFile(`{"__metadata__":{"k":{"x":"y"}}}`, nil),
	}
	for name, data := range cases {
		t.Run(name, func(t *testing.T) {
			_, err := Read(data)
			require.Error(t, err)
			assert.ErrorIs(t, err, ErrMalformed)
			_, err2 := ReadFrom(bytes.NewReader(data), int64(len(data)))
			require.Error(t, err2)
			assert.Equal(t, err.Error(), err2.Error(), "Read and ReadFrom disagree")
			t.Log(err)
		})
	}
}

// Inputs the format allows that a strict reader might wrongly refuse.
func TestReadAcceptsValidVariants(t *testing.T) {
	cases := map[string][]byte{
		"unknown field":         rawFile(`{"a":{"dtype":"U8","shape":[1],"data_offsets":[0,1],"extra":[1,{"x":2}]}}`, []byte{7}),
		"any field order":       rawFile(`{"a":{"data_offsets":[0,1],"shape":[1],"dtype":"U8"}}`, []byte{7}),
		"whitespace padding":    rawFile("{\"a\":{\"dtype\":\"U8\",\"shape\":[1],\"data_offsets\":[0,1]}} \t\r\n", []byte{7}),
		"offsets out of order":  rawFile(`{"b":{"dtype":"U8","shape":[1],"data_offsets":[1,2]},"a":{"dtype":"U8","shape":[1],"data_offsets":[0,1]}}`, []byte{7, 8}),
		"null metadata":         rawFile(`{"__metadata__":null,"a":{"dtype":"U8","shape":[1],"data_offsets":[0,1]}}`, []byte{7}),
		"metadata after tensor": rawFile(`{"a":{"dtype":"U8","shape":[1],"data_offsets":[0,1]},"__metadata__":{"k":"v"}}`, []byte{7}),
		"zero-size at end":      rawFile(`{"a":{"dtype":"U8","shape":[1],"data_offsets":[0,1]},"e":{"dtype":"F32","shape":[0,5],"data_offsets":[1,1]}}`, []byte{7}),
		"huge empty shape":      rawFile(`{"a":{"dtype":"U8","shape":[1],"data_offsets":[0,1]},"e":{"dtype":"F64","shape":[0,9223372036854775807,9223372036854775807],"data_offsets":[1,1]}}`, []byte{7}),
		"escaped name":          rawFile(`{"\u0061":{"dtype":"U8","shape":[1],"data_offsets":[0,1]}}`, []byte{7}),
	}
	for name, data := range cases {
		f, err := Read(data)
		require.NoError(t, err, name)
		a, ok := f.Get("a")
		require.True(t, ok, name)
		assert.Equal(t, byte(7), a.Data[0], name)
	}
}
