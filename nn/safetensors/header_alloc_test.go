package safetensors

import (
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

// allocTestHeaderBytes is the size of the headers built by
// TestReadHeaderAllocation; SAFETENSORS_ALLOC_HEADER_BYTES overrides it, to
// measure near MaxHeaderBytes.
func allocTestHeaderBytes(t *testing.T) int {
	if s := os.Getenv("SAFETENSORS_ALLOC_HEADER_BYTES"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n <= 0 || n > MaxHeaderBytes {
			t.Fatalf("SAFETENSORS_ALLOC_HEADER_BYTES=%q is not a header size", s)
		}
		return n
	}
	return 4 << 20
}

// adversarialHeaders returns headers of about n bytes, each built to inflate
// a different part of the parse: long arrays, long strings, many objects.
func adversarialHeaders(n int) map[string]string {
	repeat := func(prefix, item, sep, suffix string) string {
		var b strings.Builder
		b.WriteString(prefix)
		for i := 0; b.Len() < n-len(suffix)-len(item)-len(sep); i++ {
			if i > 0 {
				b.WriteString(sep)
			}
			b.WriteString(item)
		}
		b.WriteString(suffix)
		return b.String()
	}
	manyTensors := func() string {
		var b strings.Builder
		b.WriteString("{")
		for i := 0; b.Len() < n-64; i++ {
			if i > 0 {
				b.WriteString(",")
			}
			fmt.Fprintf(&b, `"%x":{"dtype":"U8","shape":[0],"data_offsets":[0,0]}`, i)
		}
		b.WriteString("}")
		return b.String()
	}
	manyMetadata := func() string {
		var b strings.Builder
		b.WriteString(`{"__metadata__":{`)
		for i := 0; b.Len() < n-16; i++ {
			if i > 0 {
				b.WriteString(",")
			}
			fmt.Fprintf(&b, `"%x":""`, i)
		}
		b.WriteString("}}")
		return b.String()
	}
	return map[string]string{
		"long shape":          repeat(`{"a":{"dtype":"U8","data_offsets":[0,0],"shape":[`, "0", ",", `]}}`),
		"long unknown array":  repeat(`{"a":{"dtype":"U8","shape":[0],"data_offsets":[0,0],"x":[`, "0", ",", `]}}`),
		"long unknown string": repeat(`{"a":{"dtype":"U8","shape":[0],"data_offsets":[0,0],"x":"`, "x", "", `"}}`),
		"long metadata value": repeat(`{"__metadata__":{"k":"`, "x", "", `"}}`),
		"long tensor name":    repeat(`{"`, "x", "", `":{"dtype":"U8","shape":[0],"data_offsets":[0,0]}}`),
		"deep unknown value":  repeat(`{"a":{"dtype":"U8","shape":[0],"data_offsets":[0,0],"x":`, "[", "", ``),
		"many tensors":        manyTensors(),
		"many metadata keys":  manyMetadata(),
	}
}

// TestReadHeaderAllocation checks that parsing a header near the size limit
// allocates a bounded multiple of the header's size, whatever it holds, so a
// 100 MB header cannot make a read allocate gigabytes.
func TestReadHeaderAllocation(t *testing.T) {
	n := allocTestHeaderBytes(t)
	for name, header := range adversarialHeaders(n) {
		t.Run(name, func(t *testing.T) {
			b := rawFile(header, nil)
			var before, after runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&before)
			f, err := Read(b)
			runtime.ReadMemStats(&after)
			ratio := float64(after.TotalAlloc-before.TotalAlloc) / float64(len(header))
			t.Logf("%d-byte header: %d bytes allocated (%.2fx), err %v", len(header), after.TotalAlloc-before.TotalAlloc, ratio, err)
			runtime.KeepAlive(f)
			// Headers of many tiny records are bound by what the result
			// holds per record (a Tensor, a map slot, a name), several
			// times the record's few header bytes; the lists are sized by
			// counting members first, so they are not grown by doubling
			// (docs/limits-frontend.md gives the measured ratios).
			limit := 3.0
			if name == "many tensors" || name == "many metadata keys" {
				limit = 6
			}
			assert.LessOrEqual(t, ratio, limit, "allocation per header byte")
		})
	}
}

func TestCountMembers(t *testing.T) {
	for text, want := range map[string]int{
		`{}`:                                   0,
		` { } `[1:]:                            0,
		`{"a":1}`:                              1,
		`{"a":[1,2,3],"b":{"c":1,"d":2}}`:      2,
		`{"a,b":"x,\",y","c":"\\"}, "after":1`: 2,
		`{"a":1`:                               0,
	} {
		assert.Equal(t, want, countMembers([]byte(text)), "%s", text)
	}
}
