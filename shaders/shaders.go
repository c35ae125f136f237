package shaders

import (
	"embed"
	"fmt"
	"io/fs"
	"strings"
)

//go:embed *.wgsl
var wgsl embed.FS

//go:embed spv
var spv embed.FS

// Kind names a kernel kind: its WGSL file is <Kind>.wgsl and its SPIR-V
// spv/<Kind>.spv.
type Kind string

// The kernel kinds.
const (
	Elementwise Kind = "elementwise"
	Reduce      Kind = "reduce"
	MatMul      Kind = "matmul"
	Conv        Kind = "conv"
	Pool        Kind = "pool"
	Gather      Kind = "gather"
	Scatter     Kind = "scatter"
	Copy        Kind = "copy"
	Softmax     Kind = "softmax"
)

// Kinds lists every kernel kind.
var Kinds = []Kind{Elementwise, Reduce, MatMul, Conv, Pool, Gather, Scatter, Copy, Softmax}

// The helper files.
const (
	CommonFile    = "common.wgsl"
	BindingsFile  = "bindings.wgsl"
	OpsFile       = "ops.wgsl"
	HookStubsFile = "hooks.wgsl"
)

// Source returns the text of one WGSL file of the package, e.g.
// "common.wgsl" or "matmul.wgsl".
func Source(name string) string {
	b, err := wgsl.ReadFile(name)
	if err != nil {
		panic(fmt.Sprintf("shaders: no source %q", name))
	}
	return string(b)
}

// Files lists the embedded WGSL file names in name order.
func Files() []string {
	ents, err := fs.ReadDir(wgsl, ".")
	if err != nil {
		panic(err)
	}
	names := make([]string, 0, len(ents))
	for _, e := range ents {
		names = append(names, e.Name())
	}
	return names
}

// Helpers lists the helper files a kind is composed with by Compose: every
// WGSL file that is not a kind's, the hook placeholders' or the bindings'.
func Helpers() []string {
	var hs []string
	for _, f := range Files() {
		if f == HookStubsFile || f == BindingsFile || isKind(f) {
			continue
		}
		hs = append(hs, f)
	}
	return hs
}

func isKind(file string) bool {
	for _, k := range Kinds {
		if file == string(k)+".wgsl" {
			return true
		}
	}
	return false
}

// Compose returns the complete WGSL of kind k for the given number of data
// bindings, with hooks as the implementation of the kind's hook functions
// (generated code; Source(HookStubsFile) gives empty placeholders): the kind's
// file, the helpers, Bindings(dataBindings) and hooks. Each part starts with
// a comment naming it.
func Compose(k Kind, dataBindings int, hooks string) string {
	var b strings.Builder
	part := func(name, text string) {
		b.WriteString("// ---- " + name + " ----\n")
		b.WriteString(text)
		if !strings.HasSuffix(text, "\n") {
			b.WriteByte('\n')
		}
	}
	part(string(k)+".wgsl", Source(string(k)+".wgsl"))
	for _, h := range Helpers() {
		part(h, Source(h))
	}
	part(fmt.Sprintf("bindings (%d)", dataBindings), Bindings(dataBindings))
	part("hooks", hooks)
	return b.String()
}

// SPIRV returns the compiled SPIR-V of kind k (the kind's file with every
// helper file, hooks.wgsl's placeholders included, and DataBindings data
// bindings; the placeholders' bodies are meant to be replaced at run time,
// see internal/spv), or an
// error when it has not been generated.
func SPIRV(k Kind) ([]byte, error) {
	b, err := spv.ReadFile("spv/" + string(k) + ".spv")
	if err != nil {
		return nil, fmt.Errorf("shaders: no SPIR-V for kind %s (run go generate ./shaders): %w", k, err)
	}
	return b, nil
}
