package data

import (
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestCharVocabRoundTrip(t *testing.T) {
	v := NewCharVocab("hello, world\n")
	require.Equal(t, []rune("\n ,dehlorw"), v.Chars())
	require.Equal(t, 10, v.Size())
	ids, err := v.Encode("world, hello")
	require.NoError(t, err)
	require.Equal(t, []int32{9, 7, 8, 6, 3, 2, 1, 5, 4, 6, 6, 7}, ids)
	require.Equal(t, "world, hello", v.Decode(ids))
}

func TestCharVocabRefusesUnknown(t *testing.T) {
	v := NewCharVocab("abc")
	_, err := v.Encode("abz")
	require.ErrorIs(t, err, ErrUnknownChar)
	require.Contains(t, err.Error(), `'z' at byte 2`)
	require.Panics(t, func() { v.Decode([]int32{3}) })
	require.Panics(t, func() { v.Decode([]int32{-1}) })
}

func TestSplitTokens(t *testing.T) {
	ids := []int32{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}
	tr, va := SplitTokens(ids, 0.9)
	require.Equal(t, []int32{0, 1, 2, 3, 4, 5, 6, 7, 8}, tr)
	require.Equal(t, []int32{9}, va)
	require.Panics(t, func() { SplitTokens(ids, 1) })
	require.Panics(t, func() { SplitTokens(ids, 0) })
}

// TestLoadKJV reads the text where Debian's package is installed, and
// otherwise checks that the error names the package.
func TestLoadKJV(t *testing.T) {
	text, err := LoadKJV()
	if _, statErr := os.Stat(kjvData); statErr != nil {
		require.ErrorIs(t, err, ErrDatasetNotFound)
		require.Contains(t, err.Error(), KJVPackage)
		t.Skipf("%s is not installed: %v", KJVPackage, err)
	}
	if errors.Is(err, ErrDatasetNotFound) {
		t.Skipf("%v", err)
	}
	require.NoError(t, err)
	require.InDelta(t, 4.3e6, float64(len(text)), 0.1e6)
	require.True(t, strings.HasPrefix(strings.TrimLeft(text, "\n"), "Genesis 1\n"), "starts %q", text[:40])
	require.Contains(t, text, "In the beginning God created the heaven and the earth.")
	require.Contains(t, text, "The grace of our Lord Jesus Christ be with you all. Amen.")
	require.Equal(t, KJVChars, NewCharVocab(text).Size())
}
