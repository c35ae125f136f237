package main

import (
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/shaderflow/shaderflow/internal/spv"
)

// magic is the first word of every SPIR-V module.
const magic = 0x07230203

// headerWords is the length of the module header: magic, version,
// generator, id bound, schema.
const headerWords = 5

// The SPIR-V opcodes the post-passes inspect.
const (
	opExtension      = 10
	opEntryPoint     = 15
	opCapability     = 17
	opTypeInt        = 21
	opTypeFloat      = 22
	opTypeVector     = 23
	opTypeMatrix     = 24
	opTypeArray      = 28
	opTypeRuntimeArr = 29
	opTypeStruct     = 30
	opTypePointer    = 32
	opConstantNull   = 46
	opFunction       = 54
	opFunctionEnd    = 56
	opVariable       = 59
	opStore          = 62
	opControlBarrier = 224
)

// The SPIR-V capabilities the post-passes inspect.
const (
	capStorageBuffer16BitAccess           = 4433
	capUniformAndStorageBuffer16BitAccess = 4434
	capStoragePushConstant16              = 4435
	capStorageInputOutput16               = 4436
)

// The SPIR-V storage classes the post-passes inspect.
const (
	scInput         = 1
	scUniform       = 2
	scOutput        = 3
	scWorkgroup     = 4
	scPushConstant  = 9
	scStorageBuffer = 12
)

// Instr is one SPIR-V instruction: its opcode and its operand words (the
// first word, which packs the word count and the opcode, is not kept).
type Instr struct {
	Op       uint16
	Operands []uint32
}

// Module is a parsed SPIR-V module.
type Module struct {
	Header [headerWords]uint32
	Code   []Instr
}

// ParseWords parses a module from its words, which must be in host order
// (the magic number first).
func ParseWords(w []uint32) (*Module, error) {
	if len(w) < headerWords {
		return nil, fmt.Errorf("spirv: module of %d words is shorter than the %d-word header", len(w), headerWords)
	}
	if w[0] != magic {
		return nil, fmt.Errorf("spirv: bad magic number %#08x", w[0])
	}
	m := &Module{}
	copy(m.Header[:], w[:headerWords])
	for i := headerWords; i < len(w); {
		n := int(w[i] >> 16)
		if n == 0 {
			return nil, fmt.Errorf("spirv: instruction at word %d has word count 0", i)
		}
		if i+n > len(w) {
			return nil, fmt.Errorf("spirv: instruction at word %d (opcode %d) needs %d words, only %d left", i, w[i]&0xffff, n, len(w)-i)
		}
		m.Code = append(m.Code, Instr{Op: uint16(w[i]), Operands: append([]uint32(nil), w[i+1:i+n]...)})
		i += n
	}
	return m, nil
}

// Parse parses a module from its binary form in either byte order.
func Parse(b []byte) (*Module, error) {
	if len(b)%4 != 0 {
		return nil, fmt.Errorf("spirv: module of %d bytes is not a whole number of words", len(b))
	}
	if len(b) < 4 {
		return nil, errors.New("spirv: empty module")
	}
	var order binary.ByteOrder = binary.LittleEndian
	if binary.BigEndian.Uint32(b) == magic {
		order = binary.BigEndian
	}
	w := make([]uint32, len(b)/4)
	for i := range w {
		w[i] = order.Uint32(b[4*i:])
	}
	return ParseWords(w)
}

// Words returns the module's words in host order.
func (m *Module) Words() []uint32 {
	w := append([]uint32(nil), m.Header[:]...)
	for _, in := range m.Code {
		w = append(w, uint32(len(in.Operands)+1)<<16|uint32(in.Op))
		w = append(w, in.Operands...)
	}
	return w
}

// Bytes returns the module's binary form, little-endian.
func (m *Module) Bytes() []byte {
	w := m.Words()
	b := make([]byte, 4*len(w))
	for i, x := range w {
		binary.LittleEndian.PutUint32(b[4*i:], x)
	}
	return b
}

// LiteralString decodes the nul-terminated string that starts at operand
// word i of in (OpExtension, OpEntryPoint names).
func (in Instr) LiteralString(i int) string {
	return spv.LiteralString(in.Operands[min(i, len(in.Operands)):])
}
