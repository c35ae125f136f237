package data

import (
	"bufio"
	"compress/flate"
	"compress/gzip"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/shaderflow/shaderflow/internal/checked"
)

// ErrMalformed is wrapped by every error that reports a malformed or truncated
// IDX file.
var ErrMalformed = errors.New("idx: malformed file")

// MaxIDXBytes is the largest element payload ReadIDX accepts (4 GiB). A header
// that declares more is refused before anything is allocated.
const MaxIDXBytes = 4 << 30

// IDX is a decoded IDX file: a row-major array of Dims elements of Type.
// Data holds the elements exactly as the file stores them, big-endian; use
// the accessors (At, Float32s, Int32s) to read values.
type IDX struct {
	Type ElemType
	Dims []int
	Data []byte
}

// Len returns the number of elements, the product of Dims, or -1 when a
// dimension is negative or the product overflows an int.
func (x *IDX) Len() int {
	n, ok := checked.Product(x.Dims...)
	if !ok {
		return -1
	}
	return n
}

// check reports an IDX whose Data does not hold exactly the elements its
// Type and Dims declare (one built by hand rather than read).
func (x *IDX) check() error {
	n := x.Len()
	size, ok := checked.Mul(max(n, 0), x.Type.Size())
	_, spans := checked.Extent(x.Dims...) // empty dimensions must not hide an overflowing shape
	switch {
	case x.Type.Size() == 0:
		return fmt.Errorf("unknown element type code 0x%02x", byte(x.Type))
	case n < 0 || !ok || !spans:
		return fmt.Errorf("dimensions %v overflow", x.Dims)
	case len(x.Data) != size:
		return fmt.Errorf("%d bytes of data for %s dimensions %v (need %d)", len(x.Data), x.Type, x.Dims, size)
	}
	return nil
}

// OpenIDX reads the IDX file at path, gzip-compressed or not.
func OpenIDX(path string) (*IDX, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	x, err := ReadIDX(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return x, nil
}

// ReadIDX decodes an IDX stream. A gzip-compressed stream is recognized by its
// magic bytes and decompressed on the fly. The stream must end right after the
// last element: trailing bytes are an error (and, for gzip, reading to the end
// verifies the checksum).
func ReadIDX(r io.Reader) (*IDX, error) {
	br := bufio.NewReaderSize(r, 64<<10)
	var src io.Reader = br
	if magic, _ := br.Peek(2); len(magic) == 2 && magic[0] == 0x1f && magic[1] == 0x8b {
		zr, err := gzip.NewReader(br)
		if err != nil {
			return nil, readErr("gzip header", err)
		}
		defer zr.Close()
		src = zr
	}
	x, size, err := readIDXHeader(src)
	if err != nil {
		return nil, err
	}
	if x.Data, err = readExactly(src, size); err != nil {
		return nil, err
	}
	var one [1]byte
	switch n, err := io.ReadFull(src, one[:]); {
	case n > 0:
		return nil, fmt.Errorf("%w: trailing bytes after %d bytes of %s data", ErrMalformed, size, x.Type)
	case err != io.EOF:
		return nil, readErr("after the data", err)
	}
	return x, nil
}

// readIDXHeader reads the magic number and the dimensions, and returns the IDX
// without data and the payload size in bytes, refusing sizes over MaxIDXBytes.
func readIDXHeader(r io.Reader) (*IDX, int64, error) {
	var magic [4]byte
	if _, err := io.ReadFull(r, magic[:]); err != nil {
		return nil, 0, readErr("reading the magic number", err)
	}
	t := ElemType(magic[2])
	if magic[0] != 0 || magic[1] != 0 {
		return nil, 0, fmt.Errorf("%w: magic number %x does not start with two zero bytes", ErrMalformed, magic)
	}
	if t.Size() == 0 {
		return nil, 0, fmt.Errorf("%w: unknown element type code 0x%02x", ErrMalformed, magic[2])
	}
	ndim := int(magic[3])
	if ndim == 0 {
		return nil, 0, fmt.Errorf("%w: zero dimensions", ErrMalformed)
	}
	raw := make([]byte, 4*ndim)
	if _, err := io.ReadFull(r, raw); err != nil {
		return nil, 0, readErr(fmt.Sprintf("reading %d dimensions", ndim), err)
	}
	x := &IDX{Type: t, Dims: make([]int, ndim)}
	size := int64(t.Size())
	for i := range x.Dims {
		d := int64(binary.BigEndian.Uint32(raw[4*i:]))
		x.Dims[i] = int(d)
		if size != 0 && d > MaxIDXBytes/size {
			return nil, 0, fmt.Errorf("%w: dimensions %v of %s exceed the %d-byte limit", ErrMalformed, dimsOf(raw), t, int64(MaxIDXBytes))
		}
		size *= d
	}
	return x, size, nil
}

// dimsOf decodes big-endian uint32 dimensions for error messages.
func dimsOf(raw []byte) []uint32 {
	d := make([]uint32, len(raw)/4)
	for i := range d {
		d[i] = binary.BigEndian.Uint32(raw[4*i:])
	}
	return d
}

// readExactly reads n bytes, growing its buffer as data arrives so that a
// header declaring more than the stream holds costs no more memory than the
// stream's real size.
func readExactly(r io.Reader, n int64) ([]byte, error) {
	const chunk = 16 << 20
	buf := make([]byte, 0, min(n, chunk))
	for int64(len(buf)) < n {
		if len(buf) == cap(buf) {
			buf = append(buf, make([]byte, min(int64(cap(buf)), n-int64(cap(buf))))...)[:len(buf)]
		}
		m, err := r.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+m]
		if int64(len(buf)) == n {
			break // a final Read may return the last bytes together with io.EOF
		}
		if err == io.EOF {
			return nil, fmt.Errorf("%w: truncated data: %d of %d bytes", ErrMalformed, len(buf), n)
		}
		if err != nil {
			return nil, readErr(fmt.Sprintf("reading data (%d of %d bytes read)", len(buf), n), err)
		}
	}
	return buf, nil
}

// readErr classifies a read failure: an early end of stream or corrupt gzip
// data is a malformed file (wrapping ErrMalformed); anything else, such as an
// I/O error of the underlying file, is wrapped as it is.
func readErr(what string, err error) error {
	var corrupt flate.CorruptInputError
	switch {
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		return fmt.Errorf("%w: truncated: unexpected end of input (%s)", ErrMalformed, what)
	case errors.Is(err, gzip.ErrHeader), errors.Is(err, gzip.ErrChecksum), errors.As(err, &corrupt):
		return fmt.Errorf("%w: %s: %v", ErrMalformed, what, err)
	}
	return fmt.Errorf("idx: %s: %w", what, err)
}
