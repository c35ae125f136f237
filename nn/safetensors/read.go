package safetensors

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
)

// MaxHeaderBytes is the largest JSON header accepted (100 MB, the reference
// implementation's limit).
const MaxHeaderBytes = 100_000_000

// File is a decoded safetensors file.
type File struct {
	// Tensors are in the order of their data in the file.
	Tensors []Tensor
	// Metadata is the "__metadata__" map, nil when the file has none.
	Metadata map[string]string
	index    map[string]int
}

// Get returns the tensor called name.
func (f *File) Get(name string) (Tensor, bool) {
	i, ok := f.index[name]
	if !ok {
		return Tensor{}, false
	}
	return f.Tensors[i], true
}

// Names returns the tensor names in file order.
func (f *File) Names() []string {
	names := make([]string, len(f.Tensors))
	for i, t := range f.Tensors {
		names[i] = t.Name
	}
	return names
}

// Read decodes a whole safetensors file held in memory. The tensors' Data
// slices alias b (no copy): b must not be modified while they are in use.
func Read(b []byte) (*File, error) {
	n, err := headerLen(b, int64(len(b)))
	if err != nil {
		return nil, err
	}
	entries, md, err := parseHeader(b[8:8+n], int64(len(b))-8-n)
	if err != nil {
		return nil, err
	}
	return newFile(entries, md, b[8+n:]), nil
}

// ReadFrom decodes a safetensors file of size bytes from r. The header is
// read and validated before the data section, which is then read with one
// allocation of exactly the size the header accounts for.
func ReadFrom(r io.ReaderAt, size int64) (*File, error) {
	if size < 8 {
		return nil, errTooShort(size)
	}
	var lenBuf [8]byte
	if err := readAt(r, lenBuf[:], 0, size); err != nil {
		return nil, err
	}
	n, err := headerLen(lenBuf[:], size)
	if err != nil {
		return nil, err
	}
	hdr := make([]byte, n)
	if err := readAt(r, hdr, 8, size); err != nil {
		return nil, err
	}
	entries, md, err := parseHeader(hdr, size-8-n)
	if err != nil {
		return nil, err
	}
	data := make([]byte, size-8-n)
	if err := readAt(r, data, 8+n, size); err != nil {
		return nil, err
	}
	return newFile(entries, md, data), nil
}

// ReadFile reads and decodes the safetensors file at path.
func ReadFile(path string) (*File, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	file, err := ReadFrom(f, st.Size())
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return file, nil
}

// headerLen decodes the 8-byte header length at the start of b and checks it
// against the input size.
func headerLen(b []byte, size int64) (int64, error) {
	if size < 8 || len(b) < 8 {
		return 0, errTooShort(size)
	}
	n := binary.LittleEndian.Uint64(b)
	switch {
	case n > MaxHeaderBytes:
		return 0, malformed("header length %d exceeds the %d-byte limit", n, MaxHeaderBytes)
	case int64(n) > size-8:
		return 0, malformed("header length %d exceeds the %d bytes after the length field", n, size-8)
	}
	return int64(n), nil
}

// errTooShort reports an input too short to hold the header length.
func errTooShort(size int64) error {
	return malformed("%d bytes is too short for the 8-byte header length", size)
}

// readAt fills buf from r at off; a short read is a truncated file.
func readAt(r io.ReaderAt, buf []byte, off, size int64) error {
	m, err := r.ReadAt(buf, off)
	if m == len(buf) {
		return nil
	}
	if err == nil || errors.Is(err, io.EOF) {
		return malformed("truncated: %d of %d bytes at offset %d (size given as %d)", m, len(buf), off, size)
	}
	return fmt.Errorf("safetensors: reading %d bytes at offset %d: %w", len(buf), off, err)
}

// newFile builds a File over the data section from validated entries.
func newFile(entries []entry, md map[string]string, data []byte) *File {
	f := &File{Tensors: make([]Tensor, len(entries)), Metadata: md, index: make(map[string]int, len(entries))}
	for i, e := range entries {
		f.Tensors[i] = Tensor{Name: e.name, DType: e.dtype, Shape: e.shape, Data: data[e.begin:e.end:e.end]}
		f.index[e.name] = i
	}
	return f
}
