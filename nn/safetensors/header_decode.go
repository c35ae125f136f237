package safetensors

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"
)

// metadataKey is the header key of the string-to-string metadata map.
const metadataKey = "__metadata__"

// maxRank is the largest tensor rank accepted, PyTorch's limit; a longer
// shape is a data error, and refusing it keeps a long shape array from
// costing eight bytes per dimension.
const maxRank = 64

// maxDepth is the deepest nesting of JSON arrays and objects accepted, the
// limit of encoding/json.
const maxDepth = 10000

// parseHeader decodes and validates a JSON header for a data section of
// dataLen bytes. It returns the entries sorted by offset (ties by name). It
// scans h in place rather than through encoding/json, so that what it
// allocates is the entries and metadata it returns plus a bounded overhead,
// whatever the header holds.
func parseHeader(h []byte, dataLen int64) ([]entry, map[string]string, error) {
	if !utf8.Valid(h) {
		return nil, nil, malformed("header is not valid UTF-8")
	}
	if len(h) == 0 || h[0] != '{' {
		return nil, nil, malformed("header does not start with '{'")
	}
	sc := &scanner{b: h}
	// Sized once: growing by doubling would allocate about twice the
	// entries again, which dominates for a header of many tiny records.
	entries := make([]entry, 0, countMembers(h))
	var metadata map[string]string
	sawMetadata := false
	err := sc.object(func(key []byte) error {
		if string(key) == metadataKey {
			if sawMetadata {
				return fmt.Errorf("duplicate key %q", metadataKey)
			}
			sawMetadata = true
			var err error
			metadata, err = sc.metadata()
			return err
		}
		e, err := sc.entry(string(key))
		entries = append(entries, e)
		return err
	})
	if err == nil {
		if sc.skipSpace(); sc.i < len(sc.b) {
			err = errors.New("data after the JSON object")
		}
	}
	if err == nil {
		err = checkDuplicateNames(entries)
	}
	if err != nil {
		return nil, nil, malformed("header: %v", err)
	}
	if err := checkLayout(entries, dataLen); err != nil {
		return nil, nil, err
	}
	return entries, metadata, nil
}

// countMembers returns the number of members of the JSON object that b
// starts with, counting the commas outside strings at its top level up to
// its closing brace: a capacity hint, exact for a well-formed object and
// harmless otherwise.
func countMembers(b []byte) int {
	n, depth, inString, escaped, empty := 0, 0, false, false, true
	for _, c := range b {
		switch {
		case inString:
			switch {
			case escaped:
				escaped = false
			case c == '\\':
				escaped = true
			case c == '"':
				inString = false
			}
			continue
		case c == '{' || c == '[':
			depth++
			if depth == 1 {
				continue
			}
		case c == '}' || c == ']':
			depth--
			if depth == 0 {
				if empty {
					return 0
				}
				return n + 1
			}
		case c == '"':
			inString = true
		case c == ',' && depth == 1:
			n++
		}
		if depth == 1 && c > ' ' {
			empty = false
		}
	}
	return 0
}

// checkDuplicateNames reports a tensor name used twice. It sorts entries by
// name, which checkLayout then reorders by offset.
func checkDuplicateNames(entries []entry) error {
	slices.SortFunc(entries, func(a, b entry) int { return strings.Compare(a.name, b.name) })
	for i := 1; i < len(entries); i++ {
		if entries[i].name == entries[i-1].name {
			return fmt.Errorf("duplicate key %q", entries[i].name)
		}
	}
	return nil
}

// scanner reads JSON from b in place, with the syntax and string decoding
// of encoding/json.
type scanner struct {
	b     []byte
	i     int
	depth int
	// key holds the decoded key of the object being walked when it has
	// escapes, reused; a key without escapes is a slice of b.
	key []byte
	// shape holds the dimensions of the shape being read.
	shape [maxRank]int
}

// skipSpace advances past JSON whitespace.
func (sc *scanner) skipSpace() {
	for sc.i < len(sc.b) {
		switch sc.b[sc.i] {
		case ' ', '\t', '\n', '\r':
			sc.i++
		default:
			return
		}
	}
}

// peek returns the next byte after whitespace, or 0 at the end of input.
func (sc *scanner) peek() byte {
	sc.skipSpace()
	if sc.i == len(sc.b) {
		return 0
	}
	return sc.b[sc.i]
}

// errUnexpected describes the byte at the current position.
func (sc *scanner) errUnexpected(want string) error {
	if sc.i >= len(sc.b) {
		return fmt.Errorf("unexpected end of JSON input, want %s", want)
	}
	r, _ := utf8.DecodeRune(sc.b[sc.i:])
	return fmt.Errorf("invalid character %q at offset %d, want %s", r, sc.i, want)
}

// consume skips whitespace and the byte c, which must come next.
func (sc *scanner) consume(c byte) error {
	if sc.peek() != c {
		return sc.errUnexpected(fmt.Sprintf("%q", c))
	}
	sc.i++
	return nil
}

// literal consumes null if it comes next and reports whether it did.
func (sc *scanner) null() bool {
	if sc.peek() == 'n' && strings.HasPrefix(string(sc.b[sc.i:min(sc.i+4, len(sc.b))]), "null") {
		sc.i += 4
		return true
	}
	return false
}

// object walks a JSON object, calling value for each key (decoded, valid
// until value returns) with the scanner at that key's value, which value
// must consume. Duplicate keys are left to the callers.
func (sc *scanner) object(value func(key []byte) error) error {
	if err := sc.consume('{'); err != nil {
		return err
	}
	if sc.peek() == '}' {
		sc.i++
		return nil
	}
	for {
		raw, err := sc.rawString()
		if err != nil {
			return err
		}
		key := raw
		if bytes.IndexByte(raw, '\\') >= 0 {
			sc.key = appendUnquoted(sc.key[:0], raw)
			key = sc.key
		}
		if err := sc.consume(':'); err != nil {
			return err
		}
		if err := value(key); err != nil {
			return err
		}
		switch sc.peek() {
		case ',':
			sc.i++
		case '}':
			sc.i++
			return nil
		default:
			return sc.errUnexpected("',' or '}'")
		}
	}
}

// array walks a JSON array, calling elem with the scanner at each element,
// which elem must consume.
func (sc *scanner) array(elem func() error) error {
	if err := sc.consume('['); err != nil {
		return err
	}
	if sc.peek() == ']' {
		sc.i++
		return nil
	}
	for {
		if err := elem(); err != nil {
			return err
		}
		switch sc.peek() {
		case ',':
			sc.i++
		case ']':
			sc.i++
			return nil
		default:
			return sc.errUnexpected("',' or ']'")
		}
	}
}

// rawString consumes a JSON string and returns its bytes between the quotes,
// escapes undecoded, after checking them.
func (sc *scanner) rawString() ([]byte, error) {
	if err := sc.consume('"'); err != nil {
		return nil, err
	}
	start := sc.i
	for sc.i < len(sc.b) {
		c := sc.b[sc.i]
		switch {
		case c == '"':
			sc.i++
			return sc.b[start : sc.i-1], nil
		case c < 0x20:
			return nil, sc.errUnexpected("a string character")
		case c == '\\':
			sc.i++
			if sc.i == len(sc.b) {
				return nil, sc.errUnexpected("an escape")
			}
			switch sc.b[sc.i] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				sc.i++
			case 'u':
				sc.i++
				if hex4(sc.b[sc.i:]) < 0 {
					return nil, sc.errUnexpected("four hex digits")
				}
				sc.i += 4
			default:
				return nil, sc.errUnexpected("an escape")
			}
		default:
			sc.i++
		}
	}
	return nil, sc.errUnexpected("'\"'")
}

// str consumes a JSON string and returns it decoded.
func (sc *scanner) str() (string, error) {
	raw, err := sc.rawString()
	if err != nil {
		return "", err
	}
	if bytes.IndexByte(raw, '\\') < 0 {
		return string(raw), nil
	}
	return string(appendUnquoted(make([]byte, 0, len(raw)), raw)), nil
}

// hex4 decodes four hex digits at the start of b, or returns -1.
func hex4(b []byte) rune {
	if len(b) < 4 {
		return -1
	}
	var r rune
	for _, c := range b[:4] {
		switch {
		case '0' <= c && c <= '9':
			c -= '0'
		case 'a' <= c && c <= 'f':
			c = c - 'a' + 10
		case 'A' <= c && c <= 'F':
			c = c - 'A' + 10
		default:
			return -1
		}
		r = r*16 + rune(c)
	}
	return r
}

// appendUnquoted appends raw, the checked bytes of a JSON string, decoded
// as encoding/json does: a lone surrogate becomes U+FFFD.
func appendUnquoted(dst, raw []byte) []byte {
	for i := 0; i < len(raw); {
		c := raw[i]
		if c != '\\' {
			dst = append(dst, c)
			i++
			continue
		}
		switch e := raw[i+1]; e {
		case 'b':
			dst = append(dst, '\b')
		case 'f':
			dst = append(dst, '\f')
		case 'n':
			dst = append(dst, '\n')
		case 'r':
			dst = append(dst, '\r')
		case 't':
			dst = append(dst, '\t')
		case 'u':
			r := hex4(raw[i+2:])
			i += 6
			if utf16.IsSurrogate(r) {
				if i+1 < len(raw) && raw[i] == '\\' && raw[i+1] == 'u' {
					if d := utf16.DecodeRune(r, hex4(raw[i+2:])); d != unicode.ReplacementChar {
						r = d
						i += 6
						dst = utf8.AppendRune(dst, r)
						continue
					}
				}
				r = unicode.ReplacementChar
			}
			dst = utf8.AppendRune(dst, r)
			continue
		default: // '"', '\\', '/'
			dst = append(dst, e)
		}
		i += 2
	}
	return dst
}

// number consumes a JSON number and returns its text.
func (sc *scanner) number() ([]byte, error) {
	sc.skipSpace()
	start := sc.i
	digits := func() int {
		n := 0
		for sc.i < len(sc.b) && '0' <= sc.b[sc.i] && sc.b[sc.i] <= '9' {
			sc.i++
			n++
		}
		return n
	}
	if sc.i < len(sc.b) && sc.b[sc.i] == '-' {
		sc.i++
	}
	if sc.i < len(sc.b) && sc.b[sc.i] == '0' {
		sc.i++
	} else if digits() == 0 {
		return nil, sc.errUnexpected("a digit")
	}
	if sc.i < len(sc.b) && sc.b[sc.i] == '.' {
		sc.i++
		if digits() == 0 {
			return nil, sc.errUnexpected("a digit")
		}
	}
	if sc.i < len(sc.b) && (sc.b[sc.i] == 'e' || sc.b[sc.i] == 'E') {
		sc.i++
		if sc.i < len(sc.b) && (sc.b[sc.i] == '+' || sc.b[sc.i] == '-') {
			sc.i++
		}
		if digits() == 0 {
			return nil, sc.errUnexpected("a digit")
		}
	}
	return sc.b[start:sc.i], nil
}

// int consumes a JSON number that must be an integer within int64, or null,
// which gives 0 as encoding/json leaves an int64 unchanged by null.
func (sc *scanner) int() (int64, error) {
	if sc.null() {
		return 0, nil
	}
	text, err := sc.number()
	if err != nil {
		return 0, err
	}
	v, err := strconv.ParseInt(string(text), 10, 64)
	if err != nil {
		return 0, fmt.Errorf("number %s is not a 64-bit integer", text)
	}
	return v, nil
}

// skip consumes one JSON value of any kind, checking its syntax.
func (sc *scanner) skip() error {
	switch c := sc.peek(); c {
	case '{', '[':
		if sc.depth++; sc.depth > maxDepth {
			return fmt.Errorf("nesting deeper than %d", maxDepth)
		}
		defer func() { sc.depth-- }()
		if c == '[' {
			return sc.array(sc.skip)
		}
		return sc.object(func([]byte) error { return sc.skip() })
	case '"':
		_, err := sc.rawString()
		return err
	case 't', 'f', 'n':
		for _, lit := range []string{"true", "false", "null"} {
			if strings.HasPrefix(string(sc.b[sc.i:min(sc.i+len(lit), len(sc.b))]), lit) {
				sc.i += len(lit)
				return nil
			}
		}
		return sc.errUnexpected("a value")
	default:
		_, err := sc.number()
		return err
	}
}

// metadata reads the metadata value: an object of strings, or null.
func (sc *scanner) metadata() (map[string]string, error) {
	if sc.null() {
		return nil, nil
	}
	if sc.peek() != '{' {
		return nil, sc.errUnexpected("a " + metadataKey + " object")
	}
	md := make(map[string]string, countMembers(sc.b[sc.i:]))
	err := sc.object(func(key []byte) error {
		if _, dup := md[string(key)]; dup {
			return fmt.Errorf("%s: duplicate key %q", metadataKey, key)
		}
		if sc.peek() != '"' {
			return fmt.Errorf("%s entry %q: want a string value", metadataKey, key)
		}
		k := string(key)
		v, err := sc.str()
		md[k] = v
		return err
	})
	if err != nil {
		return nil, err
	}
	return md, nil
}

// entry reads one tensor record: dtype, shape and data_offsets, each exactly
// once; other keys are ignored, as the reference implementation does, though
// they too may appear only once.
func (sc *scanner) entry(name string) (entry, error) {
	e := entry{name: name}
	if sc.peek() != '{' {
		return e, fmt.Errorf("tensor %q: %v", name, sc.errUnexpected("an object"))
	}
	var dtype DType
	// The shape is gathered in the scanner's array and the offsets in a
	// fixed one, so that only the shape kept allocates.
	shapeBuf := &sc.shape
	var offsets [2]int64
	rank, nOffsets := -1, -1
	var haveDType, haveShape, haveOffsets bool
	var others map[string]bool
	once := func(seen *bool, key []byte) error {
		if *seen {
			return fmt.Errorf("duplicate key %q", key)
		}
		*seen = true
		return nil
	}
	err := sc.object(func(key []byte) error {
		switch string(key) {
		case "dtype":
			if err := once(&haveDType, key); err != nil {
				return err
			}
			if sc.null() {
				return nil
			}
			if sc.peek() != '"' {
				return fmt.Errorf("dtype: %v", sc.errUnexpected("a string"))
			}
			s, err := sc.str()
			dtype = DType(s)
			if err == nil && !dtype.Valid() {
				err = fmt.Errorf("unsupported dtype %q", s)
			}
			return err
		case "shape":
			if err := once(&haveShape, key); err != nil {
				return err
			}
			if sc.null() {
				return nil
			}
			rank = 0
			return sc.array(func() error {
				if rank == maxRank {
					return fmt.Errorf("shape has more than %d dimensions", maxRank)
				}
				s, err := sc.int()
				if err == nil && (s < 0 || s > math.MaxInt) {
					err = fmt.Errorf("dimension %d out of range", s)
				}
				shapeBuf[rank] = int(s)
				rank++
				return err
			})
		case "data_offsets":
			if err := once(&haveOffsets, key); err != nil {
				return err
			}
			if sc.null() {
				return nil
			}
			nOffsets = 0
			return sc.array(func() error {
				if nOffsets == 2 {
					return errors.New("data_offsets is not a pair of integers")
				}
				v, err := sc.int()
				offsets[nOffsets] = v
				nOffsets++
				return err
			})
		default:
			if others[string(key)] {
				return fmt.Errorf("duplicate key %q", key)
			}
			if others == nil {
				others = map[string]bool{}
			}
			others[string(key)] = true
			return sc.skip()
		}
	})
	if err != nil {
		return e, fmt.Errorf("tensor %q: %v", name, err)
	}
	switch {
	case !haveDType || dtype == "":
		return e, fmt.Errorf("tensor %q: no dtype", name)
	case rank < 0:
		return e, fmt.Errorf("tensor %q: no shape", name)
	case nOffsets != 2:
		return e, fmt.Errorf("tensor %q: data_offsets is not a pair of integers", name)
	}
	e.dtype, e.shape = dtype, slices.Clone(shapeBuf[:rank])
	e.begin, e.end = offsets[0], offsets[1]
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
