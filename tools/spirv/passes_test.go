package main

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// capsOf lists a module's capabilities in order.
func capsOf(m *Module) []uint32 {
	var c []uint32
	for _, in := range m.Code {
		if in.Op == opCapability {
			c = append(c, in.Operands[0])
		}
	}
	return c
}

func hasExtension(m *Module, name string) bool {
	for _, in := range m.Code {
		if in.Op == opExtension && in.LiteralString(0) == name {
			return true
		}
	}
	return false
}

// module16 builds a module declaring Shader, Float16 and all four 16-bit
// storage capabilities and a half type reachable through ptrClass (0: no
// pointer to 16-bit data).
func module16(t *testing.T, ptrClass uint32) *Module {
	code := [][]uint32{
		ins(opCapability, 1), // Shader
		ins(opCapability, 9), // Float16
		ins(opCapability, capStorageBuffer16BitAccess),
		ins(opCapability, capUniformAndStorageBuffer16BitAccess),
		ins(opCapability, capStoragePushConstant16),
		ins(opCapability, capStorageInputOutput16),
		append([]uint32{opExtension}, str("SPV_KHR_16bit_storage")...),
		ins(opTypeFloat, 1, 16),      // %1 half
		ins(opTypeVector, 2, 1, 2),   // %2 v2half
		ins(opTypeRuntimeArr, 3, 2),  // %3 []v2half
		ins(opTypeStruct, 4, 3),      // %4 struct{[]v2half}
		ins(opTypeInt, 5, 32, 0),     // %5 uint
		ins(opTypePointer, 6, 12, 5), // %6 StorageBuffer *uint: not 16-bit
		ins(opTypePointer, 7, scInput, 5),
	}
	if ptrClass != 0 {
		code = append(code, ins(opTypePointer, 8, ptrClass, 4))
	}
	m, err := ParseWords(words(9, code...))
	require.NoError(t, err)
	return m
}

func TestStrip16BitStorageNoUse(t *testing.T) {
	m := module16(t, 0)
	note := StripUnused16BitStorage(m)
	assert.NotEmpty(t, note)
	assert.Equal(t, []uint32{1, 9}, capsOf(m))
	assert.False(t, hasExtension(m, "SPV_KHR_16bit_storage"))
}

func TestStrip16BitStorageKeepsNeeded(t *testing.T) {
	for _, tc := range []struct {
		class uint32
		keep  []uint32
	}{
		{scStorageBuffer, []uint32{capStorageBuffer16BitAccess}},
		{scUniform, []uint32{capStorageBuffer16BitAccess, capUniformAndStorageBuffer16BitAccess}},
		{scPushConstant, []uint32{capStoragePushConstant16}},
		{scInput, []uint32{capStorageInputOutput16}},
		{scOutput, []uint32{capStorageInputOutput16}},
		{scWorkgroup, nil},
	} {
		m := module16(t, tc.class)
		StripUnused16BitStorage(m)
		assert.Equal(t, append([]uint32{1, 9}, tc.keep...), capsOf(m), "class %d", tc.class)
		assert.Equal(t, len(tc.keep) > 0, hasExtension(m, "SPV_KHR_16bit_storage"), "class %d", tc.class)
	}
}

func TestStrip16BitStorageUntouched(t *testing.T) {
	m, err := ParseWords(words(3, ins(opCapability, 1), ins(opTypeFloat, 1, 32)))
	require.NoError(t, err)
	before := m.Words()
	assert.Empty(t, StripUnused16BitStorage(m))
	assert.Equal(t, before, m.Words())
}

// zeroInitModule builds an entry point that zero-stores workgroup variable %10
// and private variable %11, then after a barrier zero-stores %10 again; a
// second, non-entry function zero-stores %10 too.
func zeroInitModule(t *testing.T) *Module {
	m, err := ParseWords(words(40,
		ins(opCapability, 1),
		append([]uint32{opEntryPoint, 5, 20}, str("main")...),
		ins(opTypeFloat, 1, 32),
		ins(opTypeArray, 2, 1, 3),
		ins(opTypePointer, 4, scWorkgroup, 2),
		ins(opTypePointer, 6, 6, 2), // Private
		ins(opVariable, 4, 10, scWorkgroup),
		ins(opVariable, 6, 11, 6),
		ins(opConstantNull, 2, 12),
		ins(opConstantNull, 1, 13),
		// entry point
		ins(opFunction, 7, 20, 0, 8),
		ins(248, 21),         // OpLabel
		ins(opStore, 10, 12), // removed
		ins(opStore, 11, 12), // not workgroup: kept
		ins(opStore, 10, 13), // a null of another type: removed too
		ins(opControlBarrier, 14, 14, 15),
		ins(opStore, 10, 12), // after the barrier: kept
		ins(253),             // OpReturn
		ins(opFunctionEnd),
		// another function
		ins(opFunction, 7, 30, 0, 8),
		ins(248, 31),
		ins(opStore, 10, 12), // not an entry point: kept
		ins(253),
		ins(opFunctionEnd),
	))
	require.NoError(t, err)
	return m
}

func TestDropWorkgroupZeroInit(t *testing.T) {
	m := zeroInitModule(t)
	n := len(m.Code)
	note := DropWorkgroupZeroInit(m)
	assert.Equal(t, "removed 2 zero-initializing stores", note)
	assert.Len(t, m.Code, n-2)
	var stores [][]uint32
	for _, in := range m.Code {
		if in.Op == opStore {
			stores = append(stores, in.Operands)
		}
	}
	assert.Equal(t, [][]uint32{{11, 12}, {10, 12}, {10, 12}}, stores)
	assert.Empty(t, DropWorkgroupZeroInit(m), "second run changes nothing")
}

func TestApplyPassesNotes(t *testing.T) {
	m := module16(t, 0)
	notes := ApplyPasses(m)
	require.Len(t, notes, 1)
	assert.Contains(t, notes[0], "strip-unused-16bit-storage")
}

func TestKeepFunctionNames(t *testing.T) {
	m := &Module{Header: [headerWords]uint32{magic, 0x10000, 0, 10, 0}}
	for _, w := range [][]uint32{
		ins(opCapability, 1),
		ins(opString, 1, 0x61),
		ins(opSource, 10, 100, 1),
		ins(opName, 2, 0x66), // the function
		ins(opName, 3, 0x76), // a variable
		ins(opMemberName, 4, 0, 0x6d),
		ins(opFunction, 5, 2, 0, 6),
		ins(opLine, 1, 3, 4),
		ins(opFunctionEnd),
	} {
		m.Code = append(m.Code, Instr{Op: uint16(w[0]), Operands: w[1:]})
	}
	note := KeepFunctionNames(m)
	assert.Equal(t, "removed 5 debug instructions", note)
	var ops []uint16
	for _, in := range m.Code {
		ops = append(ops, in.Op)
	}
	assert.Equal(t, []uint16{opCapability, opName, opFunction, opFunctionEnd}, ops)
	assert.Equal(t, uint32(2), m.Code[1].Operands[0])
	assert.Empty(t, KeepFunctionNames(m))
}
