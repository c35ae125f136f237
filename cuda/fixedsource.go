package cuda

import (
	"crypto/sha256"
	"sync"
)

// moduleKey identifies a compiled module: the hash of its source.
type moduleKey [sha256.Size]byte

// fixedSource is the CUDA C of a hand-written module, the same for the
// whole process, with its module key hashed once: hashing tens of
// kilobytes of source at every launch would cost more than the launch.
type fixedSource struct {
	get func() (string, moduleKey)
}

// newFixedSource returns the module source that render builds, rendered
// and hashed at first use.
func newFixedSource(render func() string) *fixedSource {
	return &fixedSource{get: sync.OnceValues(func() (string, moduleKey) {
		src := render()
		return src, sha256.Sum256([]byte(src))
	})}
}

// entrySource returns the module source of one entry point of a kernel
// file: the file behind a line naming the entry, because modules are
// cached by source and each entry point gets its own module.
func entrySource(entry string, file func() string) *fixedSource {
	return newFixedSource(func() string { return "// " + entry + "\n" + file() })
}
