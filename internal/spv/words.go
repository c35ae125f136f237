package spv

// SPIR-V opcodes the package reads or writes.
const (
	opName                 = 5
	opExtInstImport        = 11
	opExtInst              = 12
	opMemoryModel          = 14
	opTypeVoid             = 19
	opTypeBool             = 20
	opTypeInt              = 21
	opTypeFloat            = 22
	opTypePointer          = 32
	opTypeFunction         = 33
	opConstant             = 43
	opFunction             = 54
	opFunctionParameter    = 55
	opFunctionEnd          = 56
	opFunctionCall         = 57
	opVariable             = 59
	opLoad                 = 61
	opStore                = 62
	opAccessChain          = 65
	opDecorate             = 71
	opConvertSToF          = 111
	opBitcast              = 124
	opIAdd                 = 128
	opISub                 = 130
	opIMul                 = 132
	opLogicalOr            = 166
	opLogicalAnd           = 167
	opLogicalNot           = 168
	opSelect               = 169
	opIEqual               = 170
	opINotEqual            = 171
	opSGreaterThan         = 173
	opSGreaterThanEq       = 175
	opSLessThan            = 177
	opSLessThanEq          = 179
	opFOrdEqual            = 180
	opFOrdNotEqual         = 182
	opFOrdLessThan         = 184
	opFOrdGreaterThan      = 186
	opFOrdLessThanEq       = 188
	opFOrdGreaterThanEq    = 190
	opShiftRightLogical    = 194
	opShiftRightArithmetic = 195
	opShiftLeftLogical     = 196
	opBitwiseOr            = 197
	opBitwiseAnd           = 199
	opNot                  = 200
	opAtomicLoad           = 227
	opAtomicAnd            = 240
	opAtomicOr             = 241
	opLabel                = 248
	opReturn               = 253
	opReturnValue          = 254
)

// Operand values.
const (
	magic               = 0x07230203
	headerWords         = 5
	decorationBinding   = 33
	decorationDescSet   = 34
	storageClassStorage = 12 // StorageBuffer
	scopeDevice         = 1
	semanticsRelaxed    = 0
	functionControlNone = 0
	glslSMin            = 39
	glslSMax            = 42
	glslFma             = 50
	glslStd450          = "GLSL.std.450"
	maxInstructionWords = 0xffff
)

// inst encodes one instruction: the word-count/opcode word and operands.
func inst(op uint16, operands ...uint32) []uint32 {
	w := make([]uint32, 0, 1+len(operands))
	w = append(w, uint32(1+len(operands))<<16|uint32(op))
	return append(w, operands...)
}

// appendInst appends one instruction to w.
func appendInst(w []uint32, op uint16, operands ...uint32) []uint32 {
	w = append(w, uint32(1+len(operands))<<16|uint32(op))
	return append(w, operands...)
}

// LiteralString decodes the nul-terminated string starting at ws[0] (also
// used by tools/spirv).
func LiteralString(ws []uint32) string {
	var s []byte
	for _, w := range ws {
		for k := 0; k < 4; k++ {
			c := byte(w >> (8 * k))
			if c == 0 {
				return string(s)
			}
			s = append(s, c)
		}
	}
	return string(s)
}

// StringWords encodes s as a nul-terminated SPIR-V literal string (also
// used by tools/spirv).
func StringWords(s string) []uint32 {
	b := append([]byte(s), 0)
	for len(b)%4 != 0 {
		b = append(b, 0)
	}
	w := make([]uint32, len(b)/4)
	for i := range w {
		w[i] = uint32(b[4*i]) | uint32(b[4*i+1])<<8 | uint32(b[4*i+2])<<16 | uint32(b[4*i+3])<<24
	}
	return w
}
