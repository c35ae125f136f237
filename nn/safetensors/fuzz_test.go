package safetensors

import (
	"bytes"
	"math/rand/v2"
	"testing"
)

func FuzzRead(f *testing.F) {
	r := rand.New(rand.NewPCG(1, 2))
	for i, dt := range dtypeOrder {
		f.Add(encode(f, []Tensor{randomTensor(r, "t", dt), randomTensor(r, "u", dtypeOrder[(i+5)%len(dtypeOrder)])}, nil))
	}
	f.Add(encode(f, nil, nil))
	f.Add(encode(f, nil, map[string]string{"format": "pt"}))
	f.Add(encode(f, []Tensor{FromFloat32("w", BF16, []int{2, 3}, []float32{1, 2, 3, 4, 5, 6}),
		FromInt32("i", []int{}, []int32{7}), {Name: "e", DType: F16, Shape: []int{0, 4}, Data: []byte{}}},
		map[string]string{"a": "b", "c": "d"}))
	f.Add(rawFile(`{"a":{"dtype":"U8","shape":[1],"data_offsets":[0,1],"x":null}}`, []byte{1}))
	f.Fuzz(func(t *testing.T, data []byte) {
		file, err := Read(data)
		file2, err2 := ReadFrom(bytes.NewReader(data), int64(len(data)))
		if (err == nil) != (err2 == nil) {
			t.Fatalf("Read error %v, ReadFrom error %v", err, err2)
		}
		if err != nil {
			return
		}
		if len(file.Tensors) != len(file2.Tensors) {
			t.Fatalf("Read found %d tensors, ReadFrom %d", len(file.Tensors), len(file2.Tensors))
		}
		for _, tn := range file.Tensors {
			if tn.check() != nil {
				t.Fatalf("accepted an inconsistent tensor: %v", tn.check())
			}
			_, _ = tn.Float32()
			_, _ = tn.Int32()
		}
		// What was accepted can be written, and reads back the same.
		var buf bytes.Buffer
		if err := Write(&buf, file.Tensors, file.Metadata); err != nil {
			t.Fatalf("Write of a file Read accepted: %v", err)
		}
		again, err := Read(buf.Bytes())
		if err != nil {
			t.Fatalf("Read of Write's output: %v", err)
		}
		if len(again.Tensors) != len(file.Tensors) || len(again.Metadata) != len(file.Metadata) {
			t.Fatalf("round trip changed the file")
		}
		for _, tn := range file.Tensors {
			got, ok := again.Get(tn.Name)
			if !ok || got.DType != tn.DType || !bytes.Equal(got.Data, tn.Data) || len(got.Shape) != len(tn.Shape) {
				t.Fatalf("tensor %q changed in the round trip", tn.Name)
			}
		}
		for k, v := range file.Metadata {
			if again.Metadata[k] != v {
				t.Fatalf("metadata %q changed in the round trip", k)
			}
		}
	})
}
