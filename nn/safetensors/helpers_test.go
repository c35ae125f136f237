package safetensors

import (
	"bytes"
	"encoding/binary"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
)

// newRand returns a generator with a fresh seed, logged for replay.
func newRand(t testing.TB) *rand.Rand {
	seed := rand.Uint64()
	t.Logf("seed %d", seed)
	return rand.New(rand.NewPCG(seed, 0))
}

// randomTensor returns a tensor of dt with random shape (rank 0 to 4, odd
// sizes, sometimes empty) and random bytes.
func randomTensor(r *rand.Rand, name string, dt DType) Tensor {
	shape := make([]int, r.IntN(5))
	for i := range shape {
		shape[i] = 1 + r.IntN(7)
		if r.IntN(20) == 0 {
			shape[i] = 0
		}
	}
	t := Tensor{Name: name, DType: dt, Shape: shape}
	t.Data = make([]byte, t.NumElements()*dt.Size())
	for i := range t.Data {
		t.Data[i] = byte(r.Uint32())
	}
	return t
}

// encode writes tensors with Write and fails the test on error.
func encode(t testing.TB, tensors []Tensor, md map[string]string) []byte {
	var buf bytes.Buffer
	require.NoError(t, Write(&buf, tensors, md))
	return buf.Bytes()
}

// rawFile assembles a file from a header string (not padded) and data bytes.
func rawFile(header string, data []byte) []byte {
	b := binary.LittleEndian.AppendUint64(nil, uint64(len(header)))
	b = append(b, header...)
	return append(b, data...)
}
