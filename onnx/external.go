package onnx

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
)

// readExternal reads the bytes of tensors stored in files beside the model.
// Locations must be local paths inside dir: os.Root refuses ".." components,
// absolute paths and symbolic links that leave it. The result maps each
// tensor's name to its bytes.
func readExternal(m *ModelProto, dir string) (map[string][]byte, error) {
	if len(m.ExternalFiles) == 0 {
		return nil, nil
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, fmt.Errorf("onnx: external data: %w", err)
	}
	defer root.Close()
	out := map[string][]byte{}
	for i := range m.Graph.Initializers {
		t := &m.Graph.Initializers[i]
		e := t.External
		if e == nil {
			continue
		}
		if !filepath.IsLocal(e.Location) {
			return nil, malformed("tensor %q: external location %q is not inside the model's directory", t.Name, e.Location)
		}
		b, err := readRange(root, e)
		if err != nil {
			return nil, fmt.Errorf("onnx: tensor %q: external data: %w", t.Name, err)
		}
		n, err := t.count()
		if err != nil {
			return nil, err
		}
		if len(b) != n*t.DataType.Size() {
			return nil, malformed("tensor %q: %d external bytes for %d elements of %v", t.Name, len(b), n, t.DataType)
		}
		out[t.Name] = b
	}
	return out, nil
}

// readRange reads e's bytes, checking them against the file's size before
// allocating.
func readRange(root *os.Root, e *ExternalData) ([]byte, error) {
	f, err := root.Open(e.Location)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	size := st.Size()
	if e.Offset > size {
		return nil, malformed("offset %d beyond the %d bytes of %q", e.Offset, size, e.Location)
	}
	length := e.Length
	if length < 0 {
		length = size - e.Offset
	}
	if length > size-e.Offset {
		return nil, malformed("%d bytes at offset %d beyond the %d bytes of %q", length, e.Offset, size, e.Location)
	}
	b := make([]byte, length)
	if _, err := f.ReadAt(b, e.Offset); err != nil && err != io.EOF {
		return nil, err
	}
	return b, nil
}
