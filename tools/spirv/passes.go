package main

import "fmt"

// Pass is a post-pass over a SPIR-V module. Run edits the module in place and
// returns a one-line note of what it changed ("" when nothing).
type Pass struct {
	Name string
	Run  func(m *Module) string
}

// Passes are the post-passes applied, in order, to every module naga writes.
var Passes = []Pass{
	{Name: "strip-unused-16bit-storage", Run: StripUnused16BitStorage},
	{Name: "drop-workgroup-zero-init", Run: DropWorkgroupZeroInit},
	{Name: "keep-function-names", Run: KeepFunctionNames},
	{Name: "preserve-nan-inf", Run: PreserveNaNInf},
}

// ApplyPasses runs every pass of Passes over m and returns their notes.
func ApplyPasses(m *Module) []string {
	var notes []string
	for _, p := range Passes {
		if n := p.Run(m); n != "" {
			notes = append(notes, p.Name+": "+n)
		}
	}
	return notes
}

// storage16Caps maps each 16-bit storage capability to the storage classes
// whose pointers to 16-bit data need it.
var storage16Caps = map[uint32][]uint32{
	capStorageInputOutput16:               {scInput, scOutput},
	capStorageBuffer16BitAccess:           {scStorageBuffer, scUniform},
	capUniformAndStorageBuffer16BitAccess: {scUniform},
	capStoragePushConstant16:              {scPushConstant},
}

// StripUnused16BitStorage removes the 16-bit storage capabilities that no
// pointer type of the module needs. naga declares all of them as soon as a
// shader uses f16 at all, although our kernels keep 16-bit data packed in
// u32 words; lavapipe lacks StorageInputOutput16 and Vulkan 1.0 validation
// rejects the others without the extension. The SPV_KHR_16bit_storage
// extension goes too when no such capability remains.
func StripUnused16BitStorage(m *Module) string {
	has16 := map[uint32]bool{} // type ids that contain a 16-bit scalar
	usedSC := map[uint32]bool{}
	for _, in := range m.Code {
		o := in.Operands
		switch in.Op {
		case opTypeInt, opTypeFloat:
			if len(o) >= 2 && o[1] == 16 {
				has16[o[0]] = true
			}
		case opTypeVector, opTypeMatrix, opTypeArray, opTypeRuntimeArr:
			if len(o) >= 2 && has16[o[1]] {
				has16[o[0]] = true
			}
		case opTypeStruct:
			for _, t := range o[min(1, len(o)):] {
				if has16[t] {
					has16[o[0]] = true
				}
			}
		case opTypePointer:
			if len(o) >= 3 && has16[o[2]] {
				usedSC[o[1]] = true
			}
		}
	}
	needed := func(c uint32) bool {
		for _, sc := range storage16Caps[c] {
			if usedSC[sc] {
				return true
			}
		}
		return false
	}
	var removed []uint32
	kept16 := false
	code := m.Code[:0]
	for _, in := range m.Code {
		if in.Op == opCapability && len(in.Operands) == 1 {
			c := in.Operands[0]
			if _, is16 := storage16Caps[c]; is16 {
				if !needed(c) {
					removed = append(removed, c)
					continue
				}
				kept16 = true
			}
		}
		code = append(code, in)
	}
	m.Code = code
	if len(removed) == 0 {
		return ""
	}
	if !kept16 {
		code = m.Code[:0]
		for _, in := range m.Code {
			if in.Op == opExtension && in.LiteralString(0) == "SPV_KHR_16bit_storage" {
				continue
			}
			code = append(code, in)
		}
		m.Code = code
	}
	return fmt.Sprintf("removed capabilities %v", removed)
}

// DropWorkgroupZeroInit removes naga's zero-initialization of workgroup
// memory: the whole-variable stores of OpConstantNull into Workgroup
// variables that an entry point makes before its first control barrier.
// lavapipe compiles such a store of a large array into straight-line code
// that takes seconds to build; our kernels always write workgroup memory
// before they read it. It returns how many stores it removed.
func DropWorkgroupZeroInit(m *Module) string {
	wgVar := map[uint32]bool{}
	null := map[uint32]bool{}
	entry := map[uint32]bool{}
	for _, in := range m.Code {
		o := in.Operands
		switch in.Op {
		case opVariable:
			if len(o) >= 3 && o[2] == scWorkgroup {
				wgVar[o[1]] = true
			}
		case opConstantNull:
			if len(o) >= 2 {
				null[o[1]] = true
			}
		case opEntryPoint:
			if len(o) >= 2 {
				entry[o[1]] = true
			}
		}
	}
	n := 0
	inEntry, barrier := false, false
	code := m.Code[:0]
	for _, in := range m.Code {
		o := in.Operands
		switch in.Op {
		case opFunction:
			inEntry, barrier = len(o) >= 2 && entry[o[1]], false
		case opFunctionEnd:
			inEntry = false
		case opControlBarrier:
			barrier = true
		case opStore:
			if inEntry && !barrier && len(o) >= 2 && wgVar[o[0]] && null[o[1]] {
				n++
				continue
			}
		}
		code = append(code, in)
	}
	m.Code = code
	if n == 0 {
		return ""
	}
	return fmt.Sprintf("removed %d zero-initializing stores", n)
}
