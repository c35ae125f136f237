//go:build cgo && linux

package cuda

import (
	"crypto/sha256"
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestFixedSourceRendersOnce checks that a fixed module source is rendered
// and hashed once however often it is asked for, that its key is the
// source's hash (the key d.kernel would compute, so both ways share a
// module), and that entry points of one file get distinct sources.
func TestFixedSourceRendersOnce(t *testing.T) {
	renders := 0
	f := entrySource("sf_a", func() string { renders++; return "body" })
	for range 3 {
		src, key := f.get()
		assert.Equal(t, "// sf_a\nbody", src)
		assert.Equal(t, moduleKey(sha256.Sum256([]byte(src))), key)
	}
	assert.Equal(t, 1, renders)
	_, ka := softmaxModule.get()
	_, kb := softmaxBackwardModule.get()
	assert.NotEqual(t, ka, kb, "one module an entry point")
	src, key := copyModule.get()
	assert.Equal(t, copySource, src)
	assert.Equal(t, moduleKey(sha256.Sum256([]byte(copySource))), key)
}
