package spv

import (
	"fmt"
	"slices"
)

// Base is a parsed kernel module whose hook functions Splice can replace.
// It is read-only after Parse and safe for concurrent use.
type Base struct {
	words     []uint32
	importAt  int    // word index where an OpExtInstImport may be inserted
	globalEnd int    // word index of the first function
	glsl      uint32 // id of the GLSL.std.450 import, 0 when absent
	funcs     map[string]*function
	decls     map[string]uint32 // types and constants by declKey
	vars      map[int]uint32    // descriptor set 0 bindings to variable ids
}

// function is one function definition of a base module.
type function struct {
	id, ret    uint32
	params     []uint32 // parameter ids
	paramTypes []uint32
	head       int // word index of OpFunction
	body       int // word index of the first instruction after the parameters
	end        int // word index just past OpFunctionEnd
}

// Parse indexes a module: words in host order, the magic number first. It
// fails when the module is malformed or names no function.
func Parse(words []uint32) (*Base, error) {
	if len(words) < headerWords || words[0] != magic {
		return nil, fmt.Errorf("spv: not a SPIR-V module (%d words)", len(words))
	}
	b := &Base{words: words, funcs: map[string]*function{}, decls: map[string]uint32{}, vars: map[int]uint32{}}
	names := map[uint32]string{}
	bindings := map[uint32]int{}
	sets := map[uint32]int{}
	globalVars := map[uint32]bool{}
	var fn *function
	for i := headerWords; i < len(words); {
		n := int(words[i] >> 16)
		op := uint16(words[i])
		if n == 0 || i+n > len(words) {
			return nil, fmt.Errorf("spv: malformed instruction at word %d", i)
		}
		o := words[i+1 : i+n]
		switch {
		case op == opExtInstImport && len(o) >= 2:
			if LiteralString(o[1:]) == glslStd450 {
				b.glsl = o[0]
			}
		case op == opMemoryModel:
			b.importAt = i
		case op == opName && len(o) >= 2:
			names[o[0]] = LiteralString(o[1:])
		case op == opDecorate && len(o) >= 3 && o[1] == decorationBinding:
			bindings[o[0]] = int(o[2])
		case op == opDecorate && len(o) >= 3 && o[1] == decorationDescSet:
			sets[o[0]] = int(o[2])
		case op >= opTypeVoid && op <= opTypeFunction && fn == nil && b.globalEnd == 0:
			if _, ok := b.decls[declKey(op, o[1:])]; !ok && len(o) >= 1 {
				b.decls[declKey(op, o[1:])] = o[0]
			}
		case op == opConstant && fn == nil && len(o) >= 3:
			k := declKey(op, append([]uint32{o[0]}, o[2:]...))
			if _, ok := b.decls[k]; !ok {
				b.decls[k] = o[1]
			}
		case op == opVariable && fn == nil && len(o) >= 3:
			globalVars[o[1]] = true
		case op == opFunction && len(o) >= 4:
			if b.globalEnd == 0 {
				b.globalEnd = i
			}
			fn = &function{id: o[1], ret: o[0], head: i}
		case op == opFunctionParameter && fn != nil && len(o) >= 2:
			fn.params = append(fn.params, o[1])
			fn.paramTypes = append(fn.paramTypes, o[0])
		case op == opFunctionEnd && fn != nil:
			fn.end = i + n
			if name, ok := names[fn.id]; ok {
				b.funcs[name] = fn
			}
			fn = nil
		}
		if fn != nil && fn.body == 0 && op != opFunction && op != opFunctionParameter {
			fn.body = i
		}
		i += n
	}
	if b.importAt == 0 || b.globalEnd == 0 {
		return nil, fmt.Errorf("spv: module has no memory model or no function")
	}
	if len(b.funcs) == 0 {
		return nil, fmt.Errorf("spv: module names no function (compile it with debug names; see tools/spirv)")
	}
	for id := range globalVars {
		if bd, ok := bindings[id]; ok && sets[id] == 0 {
			b.vars[bd] = id
		}
	}
	return b, nil
}

// declKey identifies a type or constant declaration by its opcode and its
// operands other than the result id.
func declKey(op uint16, operands []uint32) string {
	k := make([]byte, 0, 2+4*len(operands))
	k = append(k, byte(op), byte(op>>8))
	for _, w := range operands {
		k = append(k, byte(w), byte(w>>8), byte(w>>16), byte(w>>24))
	}
	return string(k)
}

// Functions lists the names of the module's named functions, sorted.
func (b *Base) Functions() []string {
	var ns []string
	for n := range b.funcs {
		ns = append(ns, n)
	}
	slices.Sort(ns)
	return ns
}

// Bound returns the module's id bound.
func (b *Base) Bound() uint32 { return b.words[3] }
