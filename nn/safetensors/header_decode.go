package safetensors

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strings"
	"unicode/utf8"
)

// metadataKey is the header key of the string-to-string metadata map.
const metadataKey = "__metadata__"

// parseHeader decodes and validates a JSON header for a data section of
// dataLen bytes. It returns the entries sorted by offset (ties by name).
func parseHeader(h []byte, dataLen int64) ([]entry, map[string]string, error) {
	if !utf8.Valid(h) {
		return nil, nil, malformed("header is not valid UTF-8")
	}
	if len(h) == 0 || h[0] != '{' {
		return nil, nil, malformed("header does not start with '{'")
	}
	dec := json.NewDecoder(bytes.NewReader(h))
	var entries []entry
	var metadata map[string]string
	err := walkObject(dec, func(key string) error {
		if key == metadataKey {
			var err error
			metadata, err = parseMetadata(dec)
			return err
		}
		e, err := parseEntry(dec, key)
		entries = append(entries, e)
		return err
	})
	if err != nil {
		return nil, nil, malformed("header: %v", err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, nil, malformed("header has data after its JSON object")
	}
	if err := checkLayout(entries, dataLen); err != nil {
		return nil, nil, err
	}
	return entries, metadata, nil
}

// walkObject reads a JSON object from dec, calling value for each key with
// dec positioned at that key's value, which value must consume. Duplicate
// keys are an error.
func walkObject(dec *json.Decoder, value func(key string) error) error {
	if tok, err := token(dec); err != nil {
		return err
	} else if tok != json.Delim('{') {
		return fmt.Errorf("want an object, got %v", tok)
	}
	seen := map[string]bool{}
	for dec.More() {
		tok, err := token(dec)
		if err != nil {
			return err
		}
		key, ok := tok.(string)
		if !ok {
			return fmt.Errorf("object key %v is not a string", tok)
		}
		if seen[key] {
			return fmt.Errorf("duplicate key %q", key)
		}
		seen[key] = true
		if err := value(key); err != nil {
			return err
		}
	}
	_, err := token(dec) // the closing brace; More already saw it
	return err
}

// token reads the next JSON token; the end of input is unexpected there.
func token(dec *json.Decoder) (json.Token, error) {
	tok, err := dec.Token()
	if err == io.EOF {
		err = io.ErrUnexpectedEOF
	}
	return tok, err
}

// parseMetadata reads the metadata value: an object of strings, or null.
func parseMetadata(dec *json.Decoder) (map[string]string, error) {
	var raw json.RawMessage
	if err := dec.Decode(&raw); err != nil {
		return nil, err
	}
	if string(raw) == "null" {
		return nil, nil
	}
	md := map[string]string{}
	inner := json.NewDecoder(bytes.NewReader(raw))
	err := walkObject(inner, func(key string) error {
		var v *string
		if err := inner.Decode(&v); err != nil || v == nil {
			return fmt.Errorf("%s entry %q: want a string value", metadataKey, key)
		}
		md[key] = *v
		return nil
	})
	if err != nil {
		return nil, err
	}
	return md, nil
}

// parseEntry reads one tensor record: dtype, shape and data_offsets, each
// exactly once; other keys are ignored, as the reference implementation does.
func parseEntry(dec *json.Decoder, name string) (entry, error) {
	e := entry{name: name}
	var dtype *string
	var shape, offsets *[]int64
	err := walkObject(dec, func(key string) error {
		var err error
		switch key {
		case "dtype":
			err = dec.Decode(&dtype)
		case "shape":
			err = dec.Decode(&shape)
		case "data_offsets":
			err = dec.Decode(&offsets)
		default:
			var skip json.RawMessage
			err = dec.Decode(&skip)
		}
		return err
	})
	if err != nil {
		return e, fmt.Errorf("tensor %q: %v", name, err)
	}
	switch {
	case dtype == nil:
		return e, fmt.Errorf("tensor %q: no dtype", name)
	case shape == nil:
		return e, fmt.Errorf("tensor %q: no shape", name)
	case offsets == nil || len(*offsets) != 2:
		return e, fmt.Errorf("tensor %q: data_offsets is not a pair of integers", name)
	}
	e.dtype = DType(*dtype)
	if !e.dtype.Valid() {
		return e, fmt.Errorf("tensor %q: unsupported dtype %q", name, *dtype)
	}
	e.begin, e.end = (*offsets)[0], (*offsets)[1]
	e.shape = make([]int, len(*shape))
	for i, s := range *shape {
		if s < 0 || s > math.MaxInt {
			return e, fmt.Errorf("tensor %q: dimension %d out of range in shape %v", name, s, *shape)
		}
		e.shape[i] = int(s)
	}
	n, err := byteCount(e.dtype, e.shape)
	if err != nil {
		return e, fmt.Errorf("tensor %q: %v", name, err)
	}
	if e.begin < 0 || e.end < e.begin || e.end-e.begin != n {
		return e, fmt.Errorf("tensor %q: data_offsets [%d, %d] do not hold the %d bytes of %s shape %v",
			name, e.begin, e.end, n, e.dtype, e.shape)
	}
	return e, nil
}

// checkLayout sorts entries by offset and checks that they tile the data
// section [0, dataLen) exactly: no gap, no overlap, nothing outside.
func checkLayout(entries []entry, dataLen int64) error {
	slices.SortFunc(entries, func(a, b entry) int {
		return cmp.Or(cmp.Compare(a.begin, b.begin), cmp.Compare(a.end, b.end), strings.Compare(a.name, b.name))
	})
	var pos int64
	for _, e := range entries {
		if e.begin != pos {
			if e.begin < pos {
				return malformed("tensor %q: data [%d, %d) overlaps the previous tensor, which ends at %d", e.name, e.begin, e.end, pos)
			}
			return malformed("tensor %q: data starts at %d, leaving a gap after %d", e.name, e.begin, pos)
		}
		pos = e.end
	}
	if pos != dataLen {
		return malformed("tensors cover %d bytes of a %d-byte data section", pos, dataLen)
	}
	return nil
}

// ErrMalformed is wrapped by every error that reports malformed or truncated
// safetensors input.
var ErrMalformed = errors.New("safetensors: malformed file")

// malformed returns an error wrapping ErrMalformed.
func malformed(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrMalformed, fmt.Sprintf(format, args...))
}
