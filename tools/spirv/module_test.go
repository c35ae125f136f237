package main

import (
	"encoding/binary"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// words assembles a module from a header bound and instructions given as
// opcode followed by operands.
func words(bound uint32, instrs ...[]uint32) []uint32 {
	w := []uint32{magic, 0x00010000, 0, bound, 0}
	for _, in := range instrs {
		w = append(w, uint32(len(in))<<16|in[0])
		w = append(w, in[1:]...)
	}
	return w
}

// str encodes a nul-terminated SPIR-V literal string.
func str(s string) []uint32 {
	b := append([]byte(s), 0)
	for len(b)%4 != 0 {
		b = append(b, 0)
	}
	w := make([]uint32, len(b)/4)
	for i := range w {
		w[i] = binary.LittleEndian.Uint32(b[4*i:])
	}
	return w
}

func ins(op uint32, operands ...uint32) []uint32 { return append([]uint32{op}, operands...) }

func TestParseRoundTrip(t *testing.T) {
	w := words(10,
		ins(opCapability, 1),
		append([]uint32{opExtension}, str("SPV_KHR_16bit_storage")...),
		ins(opTypeFloat, 2, 32),
	)
	m, err := ParseWords(w)
	require.NoError(t, err)
	require.Len(t, m.Code, 3)
	assert.Equal(t, "SPV_KHR_16bit_storage", m.Code[1].LiteralString(0))
	assert.Equal(t, w, m.Words())

	b := m.Bytes()
	m2, err := Parse(b)
	require.NoError(t, err)
	assert.Equal(t, w, m2.Words())

	// Big-endian input parses to the same words.
	be := make([]byte, len(b))
	for i, x := range w {
		binary.BigEndian.PutUint32(be[4*i:], x)
	}
	m3, err := Parse(be)
	require.NoError(t, err)
	assert.Equal(t, w, m3.Words())
}

func TestParseErrors(t *testing.T) {
	for name, b := range map[string][]byte{
		"empty":      {},
		"not words":  {1, 2, 3},
		"short":      {0x03, 0x02, 0x23, 0x07},
		"bad magic":  make([]byte, 20),
		"zero count": wordsToBytes(append(words(1), 0)),
		"truncated":  wordsToBytes(append(words(1), 3<<16|opTypeFloat, 1)),
	} {
		_, err := Parse(b)
		assert.Error(t, err, name)
	}
}

func wordsToBytes(w []uint32) []byte {
	b := make([]byte, 4*len(w))
	for i, x := range w {
		binary.LittleEndian.PutUint32(b[4*i:], x)
	}
	return b
}
