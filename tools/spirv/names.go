package main

import "fmt"

// The debug instructions KeepFunctionNames inspects.
const (
	opSourceContinued = 2
	opSource          = 3
	opSourceExtension = 4
	opName            = 5
	opMemberName      = 6
	opString          = 7
	opLine            = 8
	opNoLine          = 317
	opModuleProcessed = 330
)

// KeepFunctionNames strips the debug symbols naga writes with -g (the
// source text, line information, names of types, variables and members)
// except the OpName of every function: the Vulkan backend finds the hook
// functions whose bodies it replaces at run time by those names. It
// returns how many instructions it removed.
func KeepFunctionNames(m *Module) string {
	fn := map[uint32]bool{}
	for _, in := range m.Code {
		if in.Op == opFunction && len(in.Operands) >= 2 {
			fn[in.Operands[1]] = true
		}
	}
	n := 0
	code := m.Code[:0]
	for _, in := range m.Code {
		switch in.Op {
		case opSourceContinued, opSource, opSourceExtension, opMemberName, opString, opLine, opNoLine, opModuleProcessed:
			n++
			continue
		case opName:
			if len(in.Operands) == 0 || !fn[in.Operands[0]] {
				n++
				continue
			}
		}
		code = append(code, in)
	}
	m.Code = code
	if n == 0 {
		return ""
	}
	return fmt.Sprintf("removed %d debug instructions", n)
}
