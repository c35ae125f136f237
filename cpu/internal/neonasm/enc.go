package neonasm

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// form is how an instruction's operands are laid out.
type form int

const (
	same3   form = iota // vd, vn, vm of one arrangement
	misc2               // vd, vn of one arrangement
	elem                // vd.4s, vn.4s, vm.s[i]
	dupElem             // vd.4s, vn.s[i]
	across              // sd, vn.4s
	widen               // vd.2d, vn.2s (or vn.4s for the upper half); vd.4s, vn.4h (vn.8h)
	narrow              // vd.4h, vn.4s (or vd.8h for the upper half)
)

// op is one mnemonic's encoding: the word with every register field zero,
// and the arrangements it takes ("4s", "2d", "16b"; "2d" sets the size bit).
type op struct {
	base  uint32
	form  form
	kinds []string
}

var (
	fp  = []string{"4s", "2d"}
	f32 = []string{"4s"}
	byt = []string{"16b"}
	ops = map[string]op{
		"fadd":   {0x4e20d400, same3, fp},
		"fsub":   {0x4ea0d400, same3, fp},
		"fmul":   {0x6e20dc00, same3, fp},
		"fdiv":   {0x6e20fc00, same3, fp},
		"fmax":   {0x4e20f400, same3, fp},
		"fmin":   {0x4ea0f400, same3, fp},
		"fmla":   {0x4e20cc00, same3, fp},
		"fmls":   {0x4ea0cc00, same3, fp},
		"fcmeq":  {0x4e20e400, same3, fp},
		"fcmge":  {0x6e20e400, same3, fp},
		"fcmgt":  {0x6ea0e400, same3, fp},
		"faddp":  {0x6e20d400, same3, fp},
		"and":    {0x4e201c00, same3, byt},
		"orr":    {0x4ea01c00, same3, byt},
		"orn":    {0x4ee01c00, same3, byt},
		"bic":    {0x4e601c00, same3, byt},
		"eor":    {0x6e201c00, same3, byt},
		"bsl":    {0x6e601c00, same3, byt},
		"bit":    {0x6ea01c00, same3, byt},
		"bif":    {0x6ee01c00, same3, byt},
		"fneg":   {0x6ea0f800, misc2, fp},
		"fabs":   {0x4ea0f800, misc2, fp},
		"fsqrt":  {0x6ea1f800, misc2, fp},
		"frintn": {0x4e218800, misc2, fp},
		"fcvtzs": {0x4ea1b800, misc2, fp},
		"fcvtns": {0x4e21a800, misc2, fp},
		"scvtf":  {0x4e21d800, misc2, fp},
		"fmaxv":  {0x6e30f800, across, f32},
		"fminv":  {0x6eb0f800, across, f32},
		"fcvtl":  {0x0e617800, widen, nil},
		"fcvtl2": {0x4e617800, widen, nil},
		"fcvtn":  {0x0e216800, narrow, nil},
		"fcvtn2": {0x4e216800, narrow, nil},
		"dup":    {0x4e000400, dupElem, f32},
		"add":    {0x4ea08400, same3, f32},  // int32 lanes
		"sub":    {0x6ea08400, same3, f32},  // int32 lanes
		"cmeq":   {0x6ea08c00, same3, f32},  // int32 lanes
		"uminv":  {0x6eb1a800, across, f32}, // uint32 lanes
		"umaxv":  {0x6eb0a800, across, f32}, // uint32 lanes
	}
	// elemOps are the by-element forms, chosen when the last operand is
	// an element.
	elemOps = map[string]uint32{"fmla": 0x4f801000, "fmls": 0x4f805000, "fmul": 0x4f809000}
)

// shiftOps are the int32 shifts by an immediate (vd.4s, vn.4s, #n), with
// the immh:immb field of a shift by n.
var shiftOps = map[string]struct {
	base     uint32
	min, max int
	imm      func(n int) int
}{
	"shl":  {0x4f005400, 0, 31, func(n int) int { return 32 + n }},
	"sshr": {0x4f000400, 1, 32, func(n int) int { return 64 - n }},
	"ushr": {0x6f000400, 1, 32, func(n int) int { return 64 - n }},
}

// faddpScalar is FADDP's scalar form (dd, vn.2d).
const faddpScalar = 0x7e70d800

// sizeBit marks the float64 arrangement in the same3 and misc2 forms.
const sizeBit = 1 << 22

// operand is a parsed operand: a register (v5.4s, v5.s[2], v5.d[1], s5,
// d5) or an immediate (#23, kind "#", the value in index).
type operand struct {
	reg   uint32
	kind  string // "4s", "2d", "2s", "16b", "s" (element or scalar), "d"
	index int    // element index, -1 if none; an immediate's value
}

func parseOperand(s string) (operand, error) {
	s = strings.TrimSpace(s)
	bad := fmt.Errorf("neonasm: bad operand %q", s)
	if len(s) < 2 {
		return operand{}, bad
	}
	o := operand{index: -1}
	body := s[1:]
	switch s[0] {
	case '#':
		n, err := strconv.Atoi(body)
		if err != nil {
			return operand{}, bad
		}
		return operand{kind: "#", index: n}, nil
	case 'v':
		dot := strings.IndexByte(body, '.')
		if dot < 0 {
			return operand{}, bad
		}
		body, o.kind = body[:dot], body[dot+1:]
		if (strings.HasPrefix(o.kind, "s[") || strings.HasPrefix(o.kind, "d[")) && strings.HasSuffix(o.kind, "]") {
			i, err := strconv.Atoi(o.kind[2 : len(o.kind)-1])
			if err != nil || i < 0 || i > 3 {
				return operand{}, bad
			}
			o.kind, o.index = o.kind[:1], i
		}
	case 's', 'd':
		o.kind = s[:1]
	default:
		return operand{}, bad
	}
	r, err := strconv.Atoi(body)
	if err != nil || r < 0 || r > 31 {
		return operand{}, bad
	}
	o.reg = uint32(r)
	return o, nil
}

// ld4Lane is LD4's single-structure form for 32-bit elements,
// "ld4 {vt.s, vt+1.s, vt+2.s, vt+3.s}[i], [xn]": four consecutive floats
// at xn into lane i of four consecutive registers (a gather of a table
// row into one lane).
var ld4Lane = regexp.MustCompile(`^ld4 \{ ?v(\d+)\.s, v(\d+)\.s, v(\d+)\.s, v(\d+)\.s ?\}\[([0-3])\], \[x(\d+)\]$`)

// encodeLd4Lane encodes an ld4Lane match.
func encodeLd4Lane(m []string) (uint32, error) {
	var n [6]int
	for i := range n {
		n[i], _ = strconv.Atoi(m[i+1])
	}
	for i := 1; i < 4; i++ {
		if n[i] != (n[0]+i)%32 {
			return 0, fmt.Errorf("neonasm: ld4 needs four consecutive registers in %q", m[0])
		}
	}
	if n[0] > 31 || n[5] > 30 {
		return 0, fmt.Errorf("neonasm: bad register in %q", m[0])
	}
	i := uint32(n[4])
	return 0x0d60a000 | (i>>1)<<30 | (i&1)<<12 | uint32(n[5])<<5 | uint32(n[0]), nil
}

// Encode returns the instruction word of one instruction in Arm syntax.
func Encode(ins string) (uint32, error) {
	ins = strings.Join(strings.Fields(ins), " ")
	if m := ld4Lane.FindStringSubmatch(ins); m != nil {
		return encodeLd4Lane(m)
	}
	sp := strings.IndexByte(ins, ' ')
	if sp < 0 {
		return 0, fmt.Errorf("neonasm: no operands in %q", ins)
	}
	name := ins[:sp]
	var args []operand
	for _, f := range strings.Split(ins[sp+1:], ",") {
		o, err := parseOperand(f)
		if err != nil {
			return 0, fmt.Errorf("%w in %q", err, ins)
		}
		args = append(args, o)
	}
	bad := fmt.Errorf("neonasm: unsupported instruction %q", ins)
	if len(args) == 3 && args[2].kind == "s" && args[2].index >= 0 {
		base, ok := elemOps[name]
		if !ok || args[0].kind != "4s" || args[1].kind != "4s" {
			return 0, bad
		}
		i, m := uint32(args[2].index), args[2].reg
		return base | (i&1)<<21 | m<<16 | (i>>1)<<11 | args[1].reg<<5 | args[0].reg, nil
	}
	if sh, ok := shiftOps[name]; ok && len(args) == 3 && args[0].kind == "4s" && args[1].kind == "4s" && args[2].kind == "#" {
		n := args[2].index
		if n < sh.min || n > sh.max {
			return 0, bad
		}
		return sh.base | uint32(sh.imm(n))<<16 | args[1].reg<<5 | args[0].reg, nil
	}
	if name == "faddp" && len(args) == 2 && args[0].kind == "d" && args[0].index < 0 && args[1].kind == "2d" {
		return faddpScalar | args[1].reg<<5 | args[0].reg, nil // dd = vn.d[0] + vn.d[1]
	}
	o, ok := ops[name]
	if !ok {
		return 0, bad
	}
	of := func(kinds ...string) bool {
		if len(args) != len(kinds) {
			return false
		}
		for i, k := range kinds {
			if args[i].kind != k || (k == "s" && args[i].index >= 0 && i == 0) {
				return false
			}
		}
		return true
	}
	switch o.form {
	case same3, misc2:
		for _, k := range o.kinds {
			n := 3
			if o.form == misc2 {
				n = 2
			}
			kinds := []string{k, k, k}[:n]
			if !of(kinds...) {
				continue
			}
			w := o.base | args[1].reg<<5 | args[0].reg
			if n == 3 {
				w |= args[2].reg << 16
			}
			if k == "2d" {
				w |= sizeBit
			}
			return w, nil
		}
	case dupElem:
		if len(args) == 2 && args[0].kind == "4s" && args[1].kind == "s" && args[1].index >= 0 {
			return o.base | uint32(args[1].index<<3|4)<<16 | args[1].reg<<5 | args[0].reg, nil
		}
		if len(args) == 2 && args[0].kind == "2d" && args[1].kind == "d" && args[1].index >= 0 && args[1].index < 2 {
			return o.base | uint32(args[1].index<<4|8)<<16 | args[1].reg<<5 | args[0].reg, nil
		}
	case across:
		if len(args) == 2 && args[0].kind == "s" && args[0].index < 0 && args[1].kind == "4s" {
			return o.base | args[1].reg<<5 | args[0].reg, nil
		}
	case widen:
		src, half := "2s", "4h"
		if name == "fcvtl2" {
			src, half = "4s", "8h"
		}
		if of("2d", src) {
			return o.base | args[1].reg<<5 | args[0].reg, nil
		}
		if of("4s", half) { // from float16: the size bit clear
			return o.base&^sizeBit | args[1].reg<<5 | args[0].reg, nil
		}
	case narrow:
		dst := "4h"
		if name == "fcvtn2" {
			dst = "8h"
		}
		if of(dst, "4s") {
			return o.base | args[1].reg<<5 | args[0].reg, nil
		}
	}
	return 0, bad
}

// Word returns the Go assembler line for one instruction: a WORD directive
// with the instruction as its comment. It panics on an instruction it
// cannot encode (a bug in the generator calling it).
func Word(ins string) string {
	w, err := Encode(ins)
	if err != nil {
		panic(err)
	}
	return fmt.Sprintf("WORD $0x%08x // %s", w, strings.Join(strings.Fields(ins), " "))
}
