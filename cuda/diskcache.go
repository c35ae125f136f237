//go:build cgo && linux

package cuda

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"
)

// EnvCache names the directory of the on-disk cache of compiled modules
// (default: os.UserCacheDir()/shaderflow/cuda); "off" turns the cache off.
const EnvCache = "SHADERFLOW_CUDA_CACHE"

// diskCacheLimit bounds the cache's size in bytes: after each store, the
// entries used least recently are removed until the rest fit.
const diskCacheLimit = 256 << 20

// diskCacheFormat names the entry format and the compile options; a change
// to either makes every old entry a miss.
const diskCacheFormat = "shaderflow-cuda-module v1 --std=c++17"

// diskMagic starts every entry file.
var diskMagic = [8]byte{'S', 'F', 'C', 'U', 'M', 'O', 'D', '1'}

// diskHeader is an entry's size before its image: the magic, the key, a
// flags byte (1: the image is a CUBIN), the image's length and its SHA-256.
const diskHeader = 8 + sha256.Size + 1 + 8 + sha256.Size

// diskCache stores compiled modules on disk so that another process, or
// another device of the same architecture, loads them instead of
// compiling: one file per (source hash, NVRTC version, target
// architecture). Entries are written to a temporary file and renamed into
// place, so a reader never sees half an entry; a reader checks the magic,
// the key, the length and the image's checksum and removes an entry that
// fails any of them (the module is then compiled again). The cache only
// saves time: a failure to read or write it is never an error of the
// operation that compiled.
type diskCache struct {
	dir   string
	limit int64
}

// cacheKey identifies a module in the disk cache.
type cacheKey [sha256.Size]byte

// openDiskCache returns the cache that getenv's EnvCache names, the user's
// cache directory's shaderflow/cuda by default, or nil when it is "off" or
// no directory can be found.
func openDiskCache(getenv func(string) string) *diskCache {
	dir := getenv(EnvCache)
	switch {
	case dir == "off":
		return nil
	case dir == "":
		base, err := os.UserCacheDir()
		if err != nil {
			return nil
		}
		dir = filepath.Join(base, "shaderflow", "cuda")
	}
	return &diskCache{dir: dir, limit: diskCacheLimit}
}

// key returns the key of src compiled for arch by NVRTC major.minor.
func (c *diskCache) key(src moduleKey, arch string, major, minor int) cacheKey {
	h := sha256.New()
	fmt.Fprintf(h, "%s\x00nvrtc %d.%d\x00%s\x00", diskCacheFormat, major, minor, arch)
	h.Write(src[:])
	var k cacheKey
	h.Sum(k[:0])
	return k
}

// path is the file of key k.
func (c *diskCache) path(k cacheKey) string {
	return filepath.Join(c.dir, hex.EncodeToString(k[:])+".mod")
}

// get returns k's image and whether it is a CUBIN, or ok false on a miss.
// An entry that is truncated, corrupt or not k's is removed. A hit marks
// the entry as recently used.
func (c *diskCache) get(k cacheKey) (img []byte, cubin, ok bool) {
	if c == nil {
		return nil, false, false
	}
	p := c.path(k)
	b, err := os.ReadFile(p)
	if err != nil {
		return nil, false, false
	}
	img, cubin, ok = decodeEntry(b, k)
	if !ok {
		_ = os.Remove(p)
		return nil, false, false
	}
	now := time.Now()
	_ = os.Chtimes(p, now, now)
	return img, cubin, true
}

// decodeEntry checks an entry's bytes against key k and returns its image.
func decodeEntry(b []byte, k cacheKey) (img []byte, cubin, ok bool) {
	if len(b) < diskHeader || !bytes.Equal(b[:8], diskMagic[:]) || !bytes.Equal(b[8:8+sha256.Size], k[:]) {
		return nil, false, false
	}
	at := 8 + sha256.Size
	flags := b[at]
	n := binary.LittleEndian.Uint64(b[at+1:])
	sum := b[at+9 : diskHeader]
	img = b[diskHeader:]
	if flags > 1 || n != uint64(len(img)) {
		return nil, false, false
	}
	if got := sha256.Sum256(img); !bytes.Equal(got[:], sum) {
		return nil, false, false
	}
	return img, flags == 1, true
}

// encodeEntry is the file content of k's entry holding img.
func encodeEntry(k cacheKey, img []byte, cubin bool) []byte {
	b := make([]byte, diskHeader, diskHeader+len(img))
	copy(b, diskMagic[:])
	copy(b[8:], k[:])
	at := 8 + sha256.Size
	if cubin {
		b[at] = 1
	}
	binary.LittleEndian.PutUint64(b[at+1:], uint64(len(img)))
	sum := sha256.Sum256(img)
	copy(b[at+9:], sum[:])
	return append(b, img...)
}

// put stores img as k's entry, atomically (a temporary file renamed into
// place), and then trims the cache to its limit. It returns the first
// error, which callers only report: the module is already loaded.
func (c *diskCache) put(k cacheKey, img []byte, cubin bool) error {
	if c == nil {
		return nil
	}
	if err := os.MkdirAll(c.dir, 0o755); err != nil {
		return err
	}
	f, err := os.CreateTemp(c.dir, ".tmp-*")
	if err != nil {
		return err
	}
	_, err = f.Write(encodeEntry(k, img, cubin))
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(f.Name(), c.path(k))
	}
	if err != nil {
		_ = os.Remove(f.Name())
		return err
	}
	return c.trim()
}

// remove deletes k's entry (one the driver refused to load).
func (c *diskCache) remove(k cacheKey) {
	if c != nil {
		_ = os.Remove(c.path(k))
	}
}

// trim removes the least recently used entries (oldest modification time
// first) until the entries' total size is at most the limit; temporary
// files older than an hour (a writer that died) go too.
func (c *diskCache) trim() error {
	ents, err := os.ReadDir(c.dir)
	if err != nil {
		return err
	}
	type entry struct {
		path string
		size int64
		mod  time.Time
	}
	var all []entry
	var total int64
	for _, e := range ents {
		info, err := e.Info()
		if err != nil || !info.Mode().IsRegular() {
			continue
		}
		p := filepath.Join(c.dir, e.Name())
		if strings.HasPrefix(e.Name(), ".tmp-") {
			if time.Since(info.ModTime()) > time.Hour {
				_ = os.Remove(p)
			}
			continue
		}
		if !strings.HasSuffix(e.Name(), ".mod") {
			continue
		}
		all = append(all, entry{p, info.Size(), info.ModTime()})
		total += info.Size()
	}
	sort.Slice(all, func(i, j int) bool { return all[i].mod.Before(all[j].mod) })
	for _, e := range all {
		if total <= c.limit {
			break
		}
		if err := os.Remove(e.path); err == nil {
			total -= e.size
		}
	}
	return nil
}
