package main

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestPreserveNaNInf(t *testing.T) {
	const opMemoryModel, opExtInstImport = 14, 11
	glsl := append([]uint32{opExtInstImport, 1}, str("GLSL.std.450")...)
	entry := func(id uint32, name string) []uint32 {
		return append([]uint32{opEntryPoint, 5, id}, str(name)...)
	}
	m, err := ParseWords(words(20,
		ins(opCapability, 1),
		append([]uint32{opExtension}, str("SPV_KHR_storage_buffer_storage_class")...),
		glsl,
		ins(opMemoryModel, 0, 1),
		entry(7, "a"),
		entry(8, "b"),
		ins(opExecutionMode, 7, 17, 64, 1, 1),
		ins(opExecutionMode, 8, 17, 64, 1, 1),
		ins(opTypeFloat, 2, 32),
	))
	require.NoError(t, err)
	assert.NotEmpty(t, PreserveNaNInf(m))
	want, err := ParseWords(words(20,
		ins(opCapability, 1),
		ins(opCapability, capSignedZeroInfNanPreserve),
		append([]uint32{opExtension}, str("SPV_KHR_storage_buffer_storage_class")...),
		append([]uint32{opExtension}, str("SPV_KHR_float_controls")...),
		glsl,
		ins(opMemoryModel, 0, 1),
		entry(7, "a"),
		entry(8, "b"),
		ins(opExecutionMode, 7, 17, 64, 1, 1),
		ins(opExecutionMode, 8, 17, 64, 1, 1),
		ins(opExecutionMode, 7, modeSignedZeroInfNanPreserve, 32),
		ins(opExecutionMode, 8, modeSignedZeroInfNanPreserve, 32),
		ins(opTypeFloat, 2, 32),
	))
	require.NoError(t, err)
	assert.Equal(t, want.Words(), m.Words())
	assert.Empty(t, PreserveNaNInf(m), "a second run changes nothing")
	assert.Equal(t, want.Words(), m.Words())
}
