package spv

import (
	"fmt"
	"slices"

	"github.com/shaderflow/shaderflow/gpu"
)

// Splice returns a copy of the base module in which the body of each
// hook's placeholder function is replaced by code for the hook's program.
// Placeholders of hooks not given keep their bodies. The result is a
// complete module (words in host order) ready for vkCreateShaderModule.
func (b *Base) Splice(hooks []gpu.Hook) ([]uint32, error) {
	bl := newBuilder(b)
	type repl struct {
		fn   *function
		body []uint32
	}
	var rs []repl
	for _, h := range hooks {
		body, err := bl.emitHook(h)
		if err != nil {
			return nil, err
		}
		fn := b.funcs[h.Name]
		if slices.ContainsFunc(rs, func(r repl) bool { return r.fn == fn }) {
			return nil, fmt.Errorf("spv: hook %s given twice", h.Name)
		}
		rs = append(rs, repl{fn, body})
	}
	slices.SortFunc(rs, func(x, y repl) int { return x.fn.head - y.fn.head })
	w := b.words
	out := make([]uint32, 0, len(w)+len(bl.globals)+64*len(rs))
	out = append(out, w[:b.importAt]...)
	if b.glsl == 0 {
		out = appendInst(out, opExtInstImport, append([]uint32{bl.glsl}, StringWords(glslStd450)...)...)
	}
	out = append(out, w[b.importAt:b.globalEnd]...)
	out = append(out, bl.globals...)
	at := b.globalEnd
	for _, r := range rs {
		out = append(out, w[at:r.fn.body]...)
		out = append(out, r.body...)
		at = r.fn.end
	}
	out = append(out, w[at:]...)
	out[3] = bl.bound
	return out, nil
}
