package data

import (
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
)

// newRand returns a generator with a fresh seed and logs the seed so that a
// failure can be replayed.
func newRand(t testing.TB) *rand.Rand {
	seed := rand.Uint64()
	t.Logf("seed %d", seed)
	return rand.New(rand.NewPCG(seed, 0))
}

// encodeIDX builds an IDX value of type typ and shape dims from float64
// values, which must be representable in typ.
func encodeIDX(typ ElemType, dims []int, vals []float64) *IDX {
	s := typ.Size()
	data := make([]byte, len(vals)*s)
	for i, v := range vals {
		b := data[i*s:]
		switch typ {
		case U8:
			b[0] = uint8(v)
		case I8:
			b[0] = byte(int8(v))
		case I16:
			binary.BigEndian.PutUint16(b, uint16(int16(v)))
		case I32:
			binary.BigEndian.PutUint32(b, uint32(int32(v)))
		case F32:
			binary.BigEndian.PutUint32(b, math.Float32bits(float32(v)))
		case F64:
			binary.BigEndian.PutUint64(b, math.Float64bits(v))
		}
	}
	return &IDX{Type: typ, Dims: dims, Data: data}
}

// randomValues returns n random values representable in typ, covering the
// type's whole range.
func randomValues(r *rand.Rand, typ ElemType, n int) []float64 {
	v := make([]float64, n)
	for i := range v {
		switch typ {
		case U8:
			v[i] = float64(r.IntN(256))
		case I8:
			v[i] = float64(r.IntN(256) - 128)
		case I16:
			v[i] = float64(r.IntN(1<<16) - 1<<15)
		case I32:
			v[i] = float64(int32(r.Uint32()))
		case F32:
			v[i] = float64(float32(r.NormFloat64() * 100))
		case F64:
			v[i] = r.NormFloat64() * 1e10
		}
	}
	return v
}

// idxBytes serializes x, gzip-compressed when gz is set.
func idxBytes(t testing.TB, x *IDX, gz bool) []byte {
	var buf bytes.Buffer
	if !gz {
		require.NoError(t, WriteIDX(&buf, x))
		return buf.Bytes()
	}
	zw := gzip.NewWriter(&buf)
	require.NoError(t, WriteIDX(zw, x))
	require.NoError(t, zw.Close())
	return buf.Bytes()
}

// allTypes lists every IDX element type.
var allTypes = []ElemType{U8, I8, I16, I32, F32, F64}
