package data

import (
	"bytes"
	"compress/gzip"
	"io"
	"testing"
)

func FuzzReadIDX(f *testing.F) {
	for _, typ := range allTypes {
		x := encodeIDX(typ, []int{2, 3}, []float64{1, 2, 3, 4, 5, 6})
		f.Add(idxBytes(f, x, false))
		f.Add(idxBytes(f, x, true))
	}
	f.Add(idxBytes(f, encodeIDX(U8, []int{0, 5}, nil), false))
	f.Add([]byte{0, 0, 8, 1, 0xff, 0xff, 0xff, 0xff})
	f.Add([]byte{0x1f, 0x8b})
	f.Fuzz(func(t *testing.T, data []byte) {
		x, err := ReadIDX(bytes.NewReader(data))
		if err != nil {
			return
		}
		if x.Len()*x.Type.Size() != len(x.Data) {
			t.Fatalf("%s shape %v holds %d bytes", x.Type, x.Dims, len(x.Data))
		}
		_ = x.Float32s()
		// Re-encoding must reproduce the (decompressed) input exactly.
		plain := data
		if zr, err := gzip.NewReader(bytes.NewReader(data)); err == nil {
			if plain, err = io.ReadAll(zr); err != nil {
				t.Fatalf("ReadIDX accepted a gzip stream that io.ReadAll rejects: %v", err)
			}
		}
		var buf bytes.Buffer
		if err := WriteIDX(&buf, x); err != nil {
			t.Fatalf("WriteIDX of a decoded file: %v", err)
		}
		if !bytes.Equal(buf.Bytes(), plain) {
			t.Fatalf("re-encoding differs from the input")
		}
	})
}
