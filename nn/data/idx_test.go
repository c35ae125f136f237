package data

import (
	"bytes"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestReadIDXRoundTrip(t *testing.T) {
	r := newRand(t)
	shapes := [][]int{{1}, {7}, {3, 5}, {2, 3, 7}, {0, 4}, {5, 1, 3, 2}}
	for _, typ := range allTypes {
		for _, dims := range shapes {
			for _, gz := range []bool{false, true} {
				n := 1
				for _, d := range dims {
					n *= d
				}
				want := randomValues(r, typ, n)
				data := idxBytes(t, encodeIDX(typ, dims, want), gz)
				x, err := ReadIDX(bytes.NewReader(data))
				require.NoError(t, err, "%s %v gzip=%v", typ, dims, gz)
				assert.Equal(t, typ, x.Type)
				assert.Equal(t, dims, x.Dims)
				require.Equal(t, n, x.Len())
				f32 := x.Float32s()
				require.Len(t, f32, n)
				for i, v := range want {
					require.Equal(t, v, x.At(i), "%s element %d", typ, i)
					require.Equal(t, float32(v), f32[i], "%s element %d", typ, i)
				}
				ints, err := x.Int32s()
				if typ.IsFloat() {
					require.Error(t, err)
					continue
				}
				require.NoError(t, err)
				for i, v := range want {
					require.Equal(t, int32(v), ints[i])
				}
			}
		}
	}
}

func TestReadIDXMalformed(t *testing.T) {
	valid := idxBytes(t, encodeIDX(U8, []int{2, 3}, []float64{1, 2, 3, 4, 5, 6}), false)
	gz := idxBytes(t, encodeIDX(U8, []int{2, 3}, []float64{1, 2, 3, 4, 5, 6}), true)
	badCRC := bytes.Clone(gz)
	badCRC[len(badCRC)-6] ^= 0xff // the CRC-32 in the gzip trailer
	corrupt := bytes.Clone(gz)
	corrupt[12] ^= 0xff // inside the deflate stream
	cases := map[string][]byte{
		"empty":               {},
		"short magic":         {0, 0, 8},
		"nonzero magic":       {1, 0, 8, 1, 0, 0, 0, 1, 5},
		"unknown type":        {0, 0, 0x0a, 1, 0, 0, 0, 1, 5},
		"zero dims":           {0, 0, 8, 0},
		"truncated dims":      {0, 0, 8, 2, 0, 0, 0, 1, 0, 0},
		"truncated data":      valid[:len(valid)-1],
		"trailing byte":       append(bytes.Clone(valid), 0),
		"huge dims":           {0, 0, 0x0e, 2, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff},
		"over limit":          {0, 0, 0x08, 2, 0, 0, 0, 3, 0x80, 0, 0, 0},
		"gzip header only":    gz[:10],
		"gzip truncated":      gz[:len(gz)-3],
		"gzip bad checksum":   badCRC,
		"gzip corrupt stream": corrupt,
		"gzip magic only":     {0x1f, 0x8b},
	}
	for name, data := range cases {
		t.Run(name, func(t *testing.T) {
			_, err := ReadIDX(bytes.NewReader(data))
			require.Error(t, err)
			assert.ErrorIs(t, err, ErrMalformed, "%v", err)
			t.Log(err)
		})
	}
}

// A header may declare up to MaxIDXBytes; when the stream is short the
// reader must fail having allocated about what the stream held, not what the
// header declared.
func TestReadIDXDeclaredSizeNotAllocated(t *testing.T) {
	data := []byte{0, 0, 0x08, 1, 0xf0, 0, 0, 0, 1, 2, 3} // declares 3.75 GiB
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, err := ReadIDX(bytes.NewReader(data))
	runtime.ReadMemStats(&after)
	require.ErrorIs(t, err, ErrMalformed)
	assert.Contains(t, err.Error(), "truncated")
	assert.Less(t, after.TotalAlloc-before.TotalAlloc, uint64(64<<20), "bytes allocated")
}

type failingReader struct{ err error }

func (f failingReader) Read([]byte) (int, error) { return 0, f.err }

func TestReadIDXPassesIOErrors(t *testing.T) {
	ioErr := errors.New("disk on fire")
	r := io.MultiReader(bytes.NewReader([]byte{0, 0, 8, 1, 0, 0, 0, 9, 1}), failingReader{ioErr})
	_, err := ReadIDX(r)
	require.ErrorIs(t, err, ioErr)
	assert.NotErrorIs(t, err, ErrMalformed)
}

func TestOpenIDX(t *testing.T) {
	dir := t.TempDir()
	x := encodeIDX(I16, []int{3, 2}, []float64{-3, 2, 1000, -32768, 32767, 0})
	p := filepath.Join(dir, "x.idx.gz")
	require.NoError(t, os.WriteFile(p, idxBytes(t, x, true), 0o644))
	got, err := OpenIDX(p)
	require.NoError(t, err)
	assert.Equal(t, x, got)

	_, err = OpenIDX(filepath.Join(dir, "missing"))
	assert.ErrorIs(t, err, fs.ErrNotExist)

	bad := filepath.Join(dir, "bad")
	require.NoError(t, os.WriteFile(bad, []byte{0, 0, 8}, 0o644))
	_, err = OpenIDX(bad)
	assert.ErrorIs(t, err, ErrMalformed)
	assert.Contains(t, err.Error(), bad)
}

func TestWriteIDXRejectsInconsistent(t *testing.T) {
	cases := map[string]*IDX{
		"unknown type":  {Type: 3, Dims: []int{1}, Data: []byte{0}},
		"no dims":       {Type: U8, Data: []byte{0}},
		"negative dim":  {Type: U8, Dims: []int{-1}},
		"dim too large": {Type: U8, Dims: []int{1 << 33}},
		"short data":    {Type: I32, Dims: []int{2}, Data: make([]byte, 7)},
		"too many dims": {Type: U8, Dims: make([]int, 256)},
	}
	for name, x := range cases {
		var buf bytes.Buffer
		err := WriteIDX(&buf, x)
		assert.Error(t, err, name)
		assert.Zero(t, buf.Len(), "%s: wrote bytes before failing", name)
	}
}

func TestAtPanicsOutOfRange(t *testing.T) {
	x := encodeIDX(I32, []int{2}, []float64{1, 2})
	assert.PanicsWithValue(t, "idx: At(2) out of range for i32 data of shape [2]", func() { x.At(2) })
}

func TestElemTypeNames(t *testing.T) {
	for _, typ := range allTypes {
		assert.NotContains(t, typ.String(), "idxtype", "%d", typ)
	}
	assert.Equal(t, "idxtype(0x07)", ElemType(7).String())
	assert.Zero(t, ElemType(7).Size())
}
