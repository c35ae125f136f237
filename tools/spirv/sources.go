package main

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// Source is one WGSL file of the shaders directory.
type Source struct {
	Name string // base name, e.g. "elementwise.wgsl"
	Text string
}

// Kind is one kernel kind: its own WGSL file plus the helpers it is compiled
// with.
type Kind struct {
	Name    string // the file's base name without .wgsl: the .spv file's name
	Main    Source
	Helpers []Source
}

// computeAttr matches a @compute entry-point attribute.
var computeAttr = regexp.MustCompile(`@\s*compute\b`)

// stripComments removes WGSL line and (nested) block comments.
func stripComments(s string) string {
	var b strings.Builder
	depth := 0
	for i := 0; i < len(s); i++ {
		switch {
		case depth == 0 && strings.HasPrefix(s[i:], "//"):
			for i < len(s) && s[i] != '\n' {
				i++
			}
			if i < len(s) {
				b.WriteByte('\n')
			}
		case strings.HasPrefix(s[i:], "/*"):
			depth++
			i++
		case depth > 0 && strings.HasPrefix(s[i:], "*/"):
			depth--
			i++
		case depth == 0:
			b.WriteByte(s[i])
		}
	}
	return b.String()
}

// IsKernel reports whether a WGSL source declares a compute entry point.
func IsKernel(text string) bool { return computeAttr.MatchString(stripComments(text)) }

// ReadSources reads every *.wgsl file of dir, sorted by name.
func ReadSources(dir string) ([]Source, error) {
	paths, err := filepath.Glob(filepath.Join(dir, "*.wgsl"))
	if err != nil {
		return nil, err
	}
	slices.Sort(paths)
	var srcs []Source
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			return nil, err
		}
		srcs = append(srcs, Source{Name: filepath.Base(p), Text: string(b)})
	}
	return srcs, nil
}

// Kinds splits sources into kernel kinds, each with every helper (a source
// without an entry point) attached, in name order.
func Kinds(srcs []Source) []Kind {
	var mains, helpers []Source
	for _, s := range srcs {
		if IsKernel(s.Text) {
			mains = append(mains, s)
		} else {
			helpers = append(helpers, s)
		}
	}
	kinds := make([]Kind, len(mains))
	for i, s := range mains {
		kinds[i] = Kind{Name: strings.TrimSuffix(s.Name, ".wgsl"), Main: s, Helpers: helpers}
	}
	return kinds
}

// span records where one source file sits in a composed text.
type span struct {
	name  string
	first int // 1-based line of the composed text holding the file's line 1
	lines int
}

// Composed is a kind's concatenated WGSL with a map back to its files.
type Composed struct {
	Text  string
	spans []span
}

// Compose concatenates the kind's file and its helpers. Each part starts
// with a marker comment naming its file.
func (k Kind) Compose() Composed {
	var c Composed
	var b strings.Builder
	line := 1
	for _, s := range append([]Source{k.Main}, k.Helpers...) {
		b.WriteString("// ---- " + s.Name + " ----\n")
		line++
		text := s.Text
		if !strings.HasSuffix(text, "\n") {
			text += "\n"
		}
		n := strings.Count(text, "\n")
		c.spans = append(c.spans, span{name: s.Name, first: line, lines: n})
		b.WriteString(text)
		line += n
	}
	c.Text = b.String()
	return c
}

// Locate maps a line of the composed text to its file and line.
func (c Composed) Locate(line int) (string, int, bool) {
	for _, s := range c.spans {
		if line >= s.first && line < s.first+s.lines {
			return s.name, line - s.first + 1, true
		}
	}
	return "", 0, false
}

// RewritePositions replaces "composedName:LINE:COL" positions in a compiler
// message by the original file's name and line.
func (c Composed) RewritePositions(msg, composedName string) string {
	re := regexp.MustCompile(regexp.QuoteMeta(composedName) + `:(\d+):(\d+)`)
	return re.ReplaceAllStringFunc(msg, func(m string) string {
		sub := re.FindStringSubmatch(m)
		l, _ := strconv.Atoi(sub[1])
		if name, fl, ok := c.Locate(l); ok {
			return fmt.Sprintf("%s:%d:%s", name, fl, sub[2])
		}
		return m
	})
}
