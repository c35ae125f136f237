package neonasm

import (
	"bytes"
	"fmt"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
)

// LLVMMC returns the path of an llvm-mc that can check encodings, or ""
// when none is installed.
func LLVMMC() string {
	for _, name := range []string{"llvm-mc-19", "llvm-mc"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	return ""
}

var encodingRE = regexp.MustCompile(`encoding: \[0x([0-9a-f]{2}),0x([0-9a-f]{2}),0x([0-9a-f]{2}),0x([0-9a-f]{2})\]`)

// LLVMEncode assembles instructions (Arm syntax, one each) with llvm-mc
// and returns their words.
func LLVMEncode(mc string, ins []string) ([]uint32, error) {
	cmd := exec.Command(mc, "-triple=aarch64", "-show-encoding")
	cmd.Stdin = strings.NewReader(strings.Join(ins, "\n") + "\n")
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("llvm-mc: %v: %s", err, errb.String())
	}
	var words []uint32
	for _, m := range encodingRE.FindAllStringSubmatch(out.String(), -1) {
		var w uint32
		for i := 4; i >= 1; i-- {
			b, _ := strconv.ParseUint(m[i], 16, 8)
			w = w<<8 | uint32(b)
		}
		words = append(words, w)
	}
	if len(words) != len(ins) {
		return nil, fmt.Errorf("llvm-mc encoded %d of %d instructions: %s", len(words), len(ins), errb.String())
	}
	return words, nil
}

var wordRE = regexp.MustCompile(`WORD \$0x([0-9a-f]{8}) // (.*)$`)

// CheckWords compares every WORD line of generated assembly with llvm-mc's
// encoding of its comment and returns the mismatches.
func CheckWords(mc string, asm []byte) ([]string, error) {
	var ins []string
	var words []uint32
	for _, line := range strings.Split(string(asm), "\n") {
		m := wordRE.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		w, _ := strconv.ParseUint(m[1], 16, 32)
		ins, words = append(ins, m[2]), append(words, uint32(w))
	}
	if len(ins) == 0 {
		return nil, nil
	}
	want, err := LLVMEncode(mc, ins)
	if err != nil {
		return nil, err
	}
	var bad []string
	for i := range ins {
		if want[i] != words[i] {
			bad = append(bad, fmt.Sprintf("%s: 0x%08x, llvm-mc 0x%08x", ins[i], words[i], want[i]))
		}
	}
	return bad, nil
}
