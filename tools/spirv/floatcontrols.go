package main

import (
	"fmt"

	"github.com/shaderflow/shaderflow/internal/spv"
)

// SPV_KHR_float_controls: the opcode, capability and execution mode
// PreserveNaNInf declares.
const (
	opExecutionMode              = 16
	capSignedZeroInfNanPreserve  = 4466
	modeSignedZeroInfNanPreserve = 4461
	floatControlsExtension       = "SPV_KHR_float_controls"
)

// PreserveNaNInf declares the SignedZeroInfNanPreserve execution mode for
// 32-bit floats on every entry point (with its capability and the
// SPV_KHR_float_controls extension). Without it a Vulkan driver may assume
// that no float is NaN or infinite and that zeros are unsigned: Mesa's
// compiler folds x-x to 0 and loses the NaN of inf-inf. With it the
// driver must keep IEEE semantics. The Vulkan backend enables
// VK_KHR_shader_float_controls where the device has
// shaderSignedZeroInfNanPreserveFloat32 and removes the declaration where
// it does not (gpu/vulkan). It returns how many entry points it marked.
func PreserveNaNInf(m *Module) string {
	var entries []uint32
	lastCap, lastExt, lastEntry := -1, -1, -1
	for i, in := range m.Code {
		switch in.Op {
		case opCapability:
			if len(in.Operands) == 1 && in.Operands[0] == capSignedZeroInfNanPreserve {
				return ""
			}
			lastCap = i
		case opExtension:
			lastExt = i
		case opEntryPoint:
			if len(in.Operands) >= 2 {
				entries = append(entries, in.Operands[1])
			}
			lastEntry = i
		case opExecutionMode:
			lastEntry = i
		}
	}
	if len(entries) == 0 || lastCap < 0 {
		return ""
	}
	// Insert from the back so that earlier indices stay valid: the modes
	// after the entry points' modes, the extension after the capabilities
	// and extensions, the capability after the capabilities.
	var modes []Instr
	for _, e := range entries {
		modes = append(modes, Instr{Op: opExecutionMode, Operands: []uint32{e, modeSignedZeroInfNanPreserve, 32}})
	}
	m.Code = insertAt(m.Code, lastEntry+1, modes...)
	m.Code = insertAt(m.Code, max(lastCap, lastExt)+1, Instr{Op: opExtension, Operands: spv.StringWords(floatControlsExtension)})
	m.Code = insertAt(m.Code, lastCap+1, Instr{Op: opCapability, Operands: []uint32{capSignedZeroInfNanPreserve}})
	return fmt.Sprintf("SignedZeroInfNanPreserve 32 on %d entry points", len(entries))
}

// insertAt returns code with ins inserted before index i.
func insertAt(code []Instr, i int, ins ...Instr) []Instr {
	out := make([]Instr, 0, len(code)+len(ins))
	out = append(out, code[:i]...)
	out = append(out, ins...)
	return append(out, code[i:]...)
}
