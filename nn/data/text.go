package data

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strings"
)

// KJVPackage is the Debian package that holds the King James Bible's text
// (/usr/lib/bible.data); its reader, the bible program, is in bible-kjv,
// which it depends on.
const KJVPackage = "bible-kjv-text"

// KJVChars is the number of distinct characters of LoadKJV's text: the
// vocabulary of a character-level model of it (cmd/bench sizes its GPT
// benchmarks by it without reading the text).
const KJVChars = 73

// kjvData is where bible-kjv-text installs the compressed text.
const kjvData = "/usr/lib/bible.data"

// kjvRange is every verse, from the first of Genesis to the last of
// Revelation, in the bible program's verse syntax.
const kjvRange = "Gen1:1-Rev22:21"

// LoadKJV returns the King James Bible (public domain) as plain text, as
// the bible program prints it with lines of at most 79 columns: book and
// chapter headings, numbered verses, about 4.3 MB in 73 distinct
// characters. When the package or the program is missing, the error wraps
// ErrDatasetNotFound and names the Debian packages to install.
func LoadKJV() (string, error) {
	if _, err := os.Stat(kjvData); err != nil {
		return "", fmt.Errorf("%w: the King James Bible needs Debian's %s package (%s is missing: apt-get install %s)",
			ErrDatasetNotFound, KJVPackage, kjvData, KJVPackage)
	}
	prog, err := exec.LookPath("bible")
	if err != nil {
		return "", fmt.Errorf("%w: the King James Bible is read by the bible program of Debian's bible-kjv package, which %s depends on (apt-get install %s): %v",
			ErrDatasetNotFound, KJVPackage, KJVPackage, err)
	}
	var stderr bytes.Buffer
	cmd := exec.Command(prog, "-l79", kjvRange)
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("data: %s %s: %w: %s", prog, kjvRange, err, strings.TrimSpace(stderr.String()))
	}
	if len(out) < 1<<20 { // the whole text is about 4.3 MB
		return "", fmt.Errorf("data: %s printed %d bytes of the King James Bible, want about 4.3 MB", prog, len(out))
	}
	return string(out), nil
}

// CharVocab maps the distinct characters of a text to token ids 0..Size-1
// in character order, as character-level language models number them.
type CharVocab struct {
	chars []rune
	ids   map[rune]int32
}

// NewCharVocab returns the vocabulary of the characters of text.
func NewCharVocab(text string) *CharVocab {
	ids := map[rune]int32{}
	for _, r := range text {
		ids[r] = 0
	}
	v := &CharVocab{ids: ids}
	for r := range ids {
		v.chars = append(v.chars, r)
	}
	slices.Sort(v.chars)
	for i, r := range v.chars {
		ids[r] = int32(i)
	}
	return v
}

// Size returns the number of characters (token ids).
func (v *CharVocab) Size() int { return len(v.chars) }

// Chars returns the characters in id order.
func (v *CharVocab) Chars() []rune { return slices.Clone(v.chars) }

// ErrUnknownChar is wrapped by Encode's error for a character outside the
// vocabulary.
var ErrUnknownChar = errors.New("data: character not in the vocabulary")

// Encode returns the token ids of text's characters, or an error naming the
// first character outside the vocabulary.
func (v *CharVocab) Encode(text string) ([]int32, error) {
	out := make([]int32, 0, len(text))
	for i, r := range text {
		id, ok := v.ids[r]
		if !ok {
			return nil, fmt.Errorf("%w: %q at byte %d", ErrUnknownChar, r, i)
		}
		out = append(out, id)
	}
	return out, nil
}

// Decode returns the text of token ids; it panics on an id outside
// [0, Size), a programmer error.
func (v *CharVocab) Decode(ids []int32) string {
	var b strings.Builder
	for _, id := range ids {
		if id < 0 || int(id) >= len(v.chars) {
			panic(fmt.Sprintf("data.CharVocab.Decode: id %d outside [0, %d)", id, len(v.chars)))
		}
		b.WriteRune(v.chars[id])
	}
	return b.String()
}

// SplitTokens splits a token sequence into its first fraction (training)
// and the rest (validation), each a view of ids; it panics unless fraction
// is in (0, 1).
func SplitTokens(ids []int32, fraction float64) (train, val []int32) {
	if !(fraction > 0 && fraction < 1) {
		panic(fmt.Sprintf("data.SplitTokens: fraction %g outside (0, 1)", fraction))
	}
	n := int(float64(len(ids)) * fraction)
	return ids[:n], ids[n:]
}
