package safetensors

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// entry is one tensor's header record.
type entry struct {
	name       string
	dtype      DType
	shape      []int
	begin, end int64
}

// layout orders tensors as the reference implementation does (descending
// dtype alignment, then name) and assigns their data offsets.
func layout(tensors []Tensor) []entry {
	order := make([]int, len(tensors))
	for i := range order {
		order[i] = i
	}
	slices.SortFunc(order, func(a, b int) int {
		ta, tb := &tensors[a], &tensors[b]
		return cmp.Or(cmp.Compare(dtypeRank[tb.DType], dtypeRank[ta.DType]), strings.Compare(ta.Name, tb.Name))
	})
	entries := make([]entry, len(tensors))
	var off int64
	for k, i := range order {
		t := &tensors[i]
		entries[k] = entry{name: t.Name, dtype: t.DType, shape: t.Shape, begin: off, end: off + int64(len(t.Data))}
		off += int64(len(t.Data))
	}
	return entries
}

// encodeHeader renders the JSON header, padded with spaces to a multiple of
// 8 bytes: the metadata first (keys sorted), then the entries in order.
func encodeHeader(entries []entry, metadata map[string]string) []byte {
	b := []byte{'{'}
	if metadata != nil {
		b = appendJSONString(b, metadataKey)
		b = append(b, ':', '{')
		keys := make([]string, 0, len(metadata))
		for k := range metadata {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		for i, k := range keys {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendJSONString(b, k)
			b = append(b, ':')
			b = appendJSONString(b, metadata[k])
		}
		b = append(b, '}')
		if len(entries) > 0 {
			b = append(b, ',')
		}
	}
	for i, e := range entries {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendJSONString(b, e.name)
		b = append(b, `:{"dtype":`...)
		b = appendJSONString(b, string(e.dtype))
		b = append(b, `,"shape":[`...)
		for j, s := range e.shape {
			if j > 0 {
				b = append(b, ',')
			}
			b = strconv.AppendInt(b, int64(s), 10)
		}
		b = append(b, `],"data_offsets":[`...)
		b = strconv.AppendInt(b, e.begin, 10)
		b = append(b, ',')
		b = strconv.AppendInt(b, e.end, 10)
		b = append(b, ']', '}')
	}
	b = append(b, '}')
	for len(b)%8 != 0 {
		b = append(b, ' ')
	}
	return b
}

// appendJSONString appends s as a JSON string the way serde_json writes it:
// quote, backslash and control characters escaped, everything else (non-ASCII
// included) verbatim. s must be valid UTF-8.
func appendJSONString(b []byte, s string) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '"' || c == '\\':
			b = append(b, '\\', c)
		case c == '\b':
			b = append(b, '\\', 'b')
		case c == '\f':
			b = append(b, '\\', 'f')
		case c == '\n':
			b = append(b, '\\', 'n')
		case c == '\r':
			b = append(b, '\\', 'r')
		case c == '\t':
			b = append(b, '\\', 't')
		case c < 0x20:
			b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
		default:
			b = append(b, c)
		}
	}
	return append(b, '"')
}

// checkWritable validates the tensors and metadata Write is given.
func checkWritable(tensors []Tensor, metadata map[string]string) error {
	seen := make(map[string]bool, len(tensors))
	var total int64
	for _, t := range tensors {
		if err := t.check(); err != nil {
			return err
		}
		switch {
		case t.Name == metadataKey:
			return fmt.Errorf("tensor name %q is reserved for metadata", t.Name)
		case !utf8.ValidString(t.Name):
			return fmt.Errorf("tensor name %q is not valid UTF-8", t.Name)
		case seen[t.Name]:
			return fmt.Errorf("duplicate tensor name %q", t.Name)
		}
		seen[t.Name] = true
		if total += int64(len(t.Data)); total < 0 {
			return fmt.Errorf("total data size overflows")
		}
	}
	for k, v := range metadata {
		if !utf8.ValidString(k) || !utf8.ValidString(v) {
			return fmt.Errorf("metadata entry %q: %q is not valid UTF-8", k, v)
		}
	}
	return nil
}
