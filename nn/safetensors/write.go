package safetensors

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
)

// Write encodes tensors and metadata (nil for none; a non-nil empty map is
// written as an empty "__metadata__" object) to w. Every tensor is checked
// first: a known dtype, non-negative dimensions, len(Data) equal to
// product(Shape)*DType.Size(), a unique valid UTF-8 name other than
// "__metadata__"; nothing is written when a check fails.
//
// The output is deterministic and matches the reference implementation byte
// for byte (see the package documentation for the layout).
func Write(w io.Writer, tensors []Tensor, metadata map[string]string) error {
	if err := checkWritable(tensors, metadata); err != nil {
		return fmt.Errorf("safetensors: Write: %w", err)
	}
	entries := layout(tensors)
	hdr := encodeHeader(entries, metadata)
	var lenBuf [8]byte
	binary.LittleEndian.PutUint64(lenBuf[:], uint64(len(hdr)))
	if _, err := w.Write(lenBuf[:]); err != nil {
		return err
	}
	if _, err := w.Write(hdr); err != nil {
		return err
	}
	byName := make(map[string]*Tensor, len(tensors))
	for i := range tensors {
		byName[tensors[i].Name] = &tensors[i]
	}
	for _, e := range entries {
		if _, err := w.Write(byName[e.name].Data); err != nil {
			return err
		}
	}
	return nil
}

// WriteFile writes tensors and metadata to path atomically: the data goes to
// a temporary file in the same directory, which is synced and then renamed
// over path, so a crash never leaves a half-written checkpoint behind. When
// path is a symbolic link its target is replaced, and an existing file keeps
// its permission bits; a new file gets 0644.
func WriteFile(path string, tensors []Tensor, metadata map[string]string) (err error) {
	if err := checkWritable(tensors, metadata); err != nil {
		return fmt.Errorf("safetensors: WriteFile %s: %w", path, err)
	}
	path, mode, err := replaceTarget(path)
	if err != nil {
		return err
	}
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp*")
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(f.Name())
		}
	}()
	bw := bufio.NewWriterSize(f, 1<<20)
	if err = Write(bw, tensors, metadata); err != nil {
		return err
	}
	if err = bw.Flush(); err != nil {
		return err
	}
	if err = f.Chmod(mode); err != nil {
		return err
	}
	if err = f.Sync(); err != nil {
		return err
	}
	if err = f.Close(); err != nil {
		return err
	}
	return os.Rename(f.Name(), path)
}

// replaceTarget returns the file WriteFile should replace for path (the
// final target when path is a symbolic link) and the permission bits to
// give it: the existing file's, or 0644 for a new one.
func replaceTarget(path string) (string, os.FileMode, error) {
	target, err := filepath.EvalSymlinks(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		if fi, lerr := os.Lstat(path); lerr == nil && fi.Mode()&os.ModeSymlink != 0 {
			// A dangling link: write where it points.
			dest, rerr := os.Readlink(path)
			if rerr != nil {
				return "", 0, rerr
			}
			if !filepath.IsAbs(dest) {
				dest = filepath.Join(filepath.Dir(path), dest)
			}
			return dest, 0o644, nil
		}
		return path, 0o644, nil
	case err != nil:
		return "", 0, err
	}
	fi, err := os.Stat(target)
	if err != nil {
		return "", 0, err
	}
	return target, fi.Mode().Perm(), nil
}
