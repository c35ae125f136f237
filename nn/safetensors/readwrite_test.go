package safetensors

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestWriteReadRoundTrip(t *testing.T) {
	r := newRand(t)
	var tensors []Tensor
	for i, dt := range dtypeOrder {
		tensors = append(tensors, randomTensor(r, string(rune('a'+i))+".w", dt), randomTensor(r, "z"+string(dt), dt))
	}
	tensors = append(tensors, Tensor{Name: "scalar", DType: F32, Shape: []int{}, Data: []byte{0, 0, 0x80, 0x3f}},
		Tensor{Name: "empty", DType: BF16, Shape: []int{3, 0, 2}, Data: []byte{}},
		Tensor{Name: "ünïcode \"quoted\"\n", DType: U8, Shape: []int{2}, Data: []byte{1, 2}})
	md := map[string]string{"format": "pt", "b": "x\ty", "empty": ""}
	b := encode(t, tensors, md)

	hdrLen := binary.LittleEndian.Uint64(b)
	assert.Zero(t, hdrLen%8, "header length %d is not a multiple of 8", hdrLen)

	check := func(f *File) {
		t.Helper()
		assert.Equal(t, md, f.Metadata)
		require.Len(t, f.Tensors, len(tensors))
		for _, want := range tensors {
			got, ok := f.Get(want.Name)
			require.True(t, ok, want.Name)
			assert.Equal(t, want.DType, got.DType, want.Name)
			assert.Equal(t, want.Shape, got.Shape, want.Name)
			assert.Equal(t, want.Data, got.Data, want.Name)
		}
		_, ok := f.Get("missing")
		assert.False(t, ok)
	}
	f, err := Read(b)
	require.NoError(t, err)
	check(f)
	pos := 8 + int(hdrLen)
	for _, tn := range f.Tensors { // file order; Read aliases b
		if len(tn.Data) > 0 {
			assert.Same(t, &b[pos], &tn.Data[0], tn.Name)
		}
		pos += len(tn.Data)
	}
	f2, err := ReadFrom(bytes.NewReader(b), int64(len(b)))
	require.NoError(t, err)
	check(f2)
	assert.Equal(t, f.Names(), f2.Names())

	path := filepath.Join(t.TempDir(), "m.safetensors")
	require.NoError(t, WriteFile(path, tensors, md))
	f3, err := ReadFile(path)
	require.NoError(t, err)
	check(f3)
	onDisk, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.Equal(t, b, onDisk)
}

// Every tensor's data must start at a multiple of its element size from the
// start of the file (the header is padded to 8 and larger types come first).
func TestWriteAlignsData(t *testing.T) {
	r := newRand(t)
	var tensors []Tensor
	for i := range 40 {
		dt := dtypeOrder[r.IntN(len(dtypeOrder))]
		tensors = append(tensors, randomTensor(r, string(rune('A'+i)), dt))
	}
	b := encode(t, tensors, nil)
	f, err := Read(b)
	require.NoError(t, err)
	base := 8 + int(binary.LittleEndian.Uint64(b))
	pos := base
	for _, tn := range f.Tensors { // file order
		assert.Zero(t, (pos-base)%tn.DType.Size(), "tensor %s (%s) at data offset %d", tn.Name, tn.DType, pos-base)
		assert.Zero(t, pos%tn.DType.Size(), "tensor %s (%s) at file offset %d", tn.Name, tn.DType, pos)
		pos += len(tn.Data)
	}
	assert.Equal(t, len(b), pos)
}

func TestWriteIsDeterministic(t *testing.T) {
	r := newRand(t)
	var tensors []Tensor
	for i := range 12 {
		tensors = append(tensors, randomTensor(r, string(rune('a'+i)), dtypeOrder[r.IntN(len(dtypeOrder))]))
	}
	md := map[string]string{"k1": "v1", "k2": "v2", "k0": "v0"}
	want := encode(t, tensors, md)
	for range 5 {
		r.Shuffle(len(tensors), func(i, j int) { tensors[i], tensors[j] = tensors[j], tensors[i] })
		assert.Equal(t, want, encode(t, tensors, md))
	}
}

func TestWriteRejects(t *testing.T) {
	ok := FromInt32("ok", []int{1}, []int32{1})
	cases := map[string]struct {
		tensors []Tensor
		md      map[string]string
	}{
		"unknown dtype":   {[]Tensor{{Name: "a", DType: "F4", Shape: []int{2}, Data: []byte{0}}}, nil},
		"short data":      {[]Tensor{{Name: "a", DType: F32, Shape: []int{2}, Data: make([]byte, 7)}}, nil},
		"negative dim":    {[]Tensor{{Name: "a", DType: F32, Shape: []int{-2}}}, nil},
		"overflow":        {[]Tensor{{Name: "a", DType: F64, Shape: []int{1 << 40, 1 << 40}}}, nil},
		"duplicate":       {[]Tensor{ok, ok}, nil},
		"reserved name":   {[]Tensor{{Name: "__metadata__", DType: U8, Shape: []int{0}}}, nil},
		"bad utf8 name":   {[]Tensor{{Name: "\xff", DType: U8, Shape: []int{0}}}, nil},
		"bad utf8 md key": {[]Tensor{ok}, map[string]string{"\xfe": "v"}},
		"bad utf8 md val": {[]Tensor{ok}, map[string]string{"k": "\xfe"}},
	}
	for name, c := range cases {
		var buf bytes.Buffer
		err := Write(&buf, c.tensors, c.md)
		assert.Error(t, err, name)
		assert.Zero(t, buf.Len(), "%s: bytes written before failing", name)
		t.Logf("%s: %v", name, err)
	}
	dir := t.TempDir()
	require.Error(t, WriteFile(filepath.Join(dir, "x"), []Tensor{ok, ok}, nil))
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	assert.Empty(t, entries, "WriteFile left files behind")
}

func TestWriteFileReplacesAtomically(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "ckpt.safetensors")
	require.NoError(t, WriteFile(path, []Tensor{FromInt32("a", []int{1}, []int32{1})}, nil))
	require.NoError(t, WriteFile(path, []Tensor{FromInt32("b", []int{2}, []int32{2, 3})}, nil))
	f, err := ReadFile(path)
	require.NoError(t, err)
	assert.Equal(t, []string{"b"}, f.Names())
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	assert.Len(t, entries, 1, "temporary files left behind")
	st, err := os.Stat(path)
	require.NoError(t, err)
	assert.Equal(t, fs.FileMode(0o644), st.Mode().Perm())

	assert.Error(t, WriteFile(filepath.Join(dir, "no", "such", "dir"), nil, nil))
	_, err = ReadFile(filepath.Join(dir, "missing"))
	assert.ErrorIs(t, err, fs.ErrNotExist)
}

func TestEmptyAndNilMetadata(t *testing.T) {
	b := encode(t, nil, nil)
	assert.Equal(t, rawFile("{}      ", nil), b)
	f, err := Read(b)
	require.NoError(t, err)
	assert.Nil(t, f.Metadata)
	assert.Empty(t, f.Tensors)

	b = encode(t, nil, map[string]string{})
	assert.Equal(t, rawFile(`{"__metadata__":{}}     `, nil), b)
	f, err = Read(b)
	require.NoError(t, err)
	assert.NotNil(t, f.Metadata)
	assert.Empty(t, f.Metadata)
}

type errReaderAt struct{ err error }

func (e errReaderAt) ReadAt([]byte, int64) (int, error) { return 0, e.err }

func TestReadFromShortOrFailingReader(t *testing.T) {
	b := encode(t, []Tensor{FromInt32("a", []int{3}, []int32{1, 2, 3})}, nil)
	// The caller claims more bytes than the reader has.
	_, err := ReadFrom(bytes.NewReader(b[:len(b)-2]), int64(len(b)))
	require.ErrorIs(t, err, ErrMalformed)
	assert.Contains(t, err.Error(), "truncated")
	ioErr := errors.New("bad sector")
	_, err = ReadFrom(errReaderAt{ioErr}, 100)
	require.ErrorIs(t, err, ioErr)
	assert.NotErrorIs(t, err, ErrMalformed)
	_, err = ReadFrom(errReaderAt{io.EOF}, 100)
	assert.ErrorIs(t, err, ErrMalformed)
}
