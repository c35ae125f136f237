package onnx

import (
	"bytes"
	"testing"
)

func FuzzDecode(f *testing.F) {
	f.Add(Encode(sampleModel()))
	m := sampleModel()
	m.Graph.Initializers[0].External = &ExternalData{Location: "w.bin", Offset: 8, Length: 24}
	m.Graph.Initializers[0].Raw = nil
	f.Add(Encode(m))
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, data []byte) {
		m, err := Decode(data)
		if err != nil {
			return
		}
		for i := range m.Graph.Initializers {
			tp := &m.Graph.Initializers[i]
			if tp.External != nil {
				continue
			}
			if _, err := tensorValue(tp, nil); err != nil {
				t.Fatalf("accepted initializer %v does not decode: %v", tp, err)
			}
		}
		// What was accepted re-encodes to a model that decodes the same.
		b := Encode(m)
		again, err := Decode(b)
		if err != nil {
			t.Fatalf("Decode of Encode's output: %v", err)
		}
		if !bytes.Equal(Encode(again), b) {
			t.Fatalf("the round trip changed the model")
		}
	})
}
