package data

import (
	"encoding/binary"
	"fmt"
	"io"
	"math"
)

// WriteIDX writes x in the IDX format, uncompressed (wrap w in a gzip.Writer
// for a .gz file). It returns an error, without writing anything, when x is
// inconsistent: an unknown type, no or too many dimensions, a dimension
// outside [0, 2^32), or len(Data) different from the product of Dims times
// the element size.
func WriteIDX(w io.Writer, x *IDX) error {
	if x.Type.Size() == 0 {
		return fmt.Errorf("idx: WriteIDX: unknown element type %s", x.Type)
	}
	if len(x.Dims) == 0 || len(x.Dims) > 255 {
		return fmt.Errorf("idx: WriteIDX: %d dimensions, want 1 to 255", len(x.Dims))
	}
	want := int64(x.Type.Size())
	for _, d := range x.Dims {
		if d < 0 || int64(d) > math.MaxUint32 {
			return fmt.Errorf("idx: WriteIDX: dimension %d of shape %v out of range", d, x.Dims)
		}
		if want != 0 && int64(d) > math.MaxInt64/want {
			return fmt.Errorf("idx: WriteIDX: shape %v overflows", x.Dims)
		}
		want *= int64(d)
	}
	if int64(len(x.Data)) != want {
		return fmt.Errorf("idx: WriteIDX: %d data bytes for %s shape %v, want %d", len(x.Data), x.Type, x.Dims, want)
	}
	hdr := make([]byte, 4+4*len(x.Dims))
	hdr[2], hdr[3] = byte(x.Type), byte(len(x.Dims))
	for i, d := range x.Dims {
		binary.BigEndian.PutUint32(hdr[4+4*i:], uint32(d))
	}
	if _, err := w.Write(hdr); err != nil {
		return err
	}
	_, err := w.Write(x.Data)
	return err
}
