//go:build cgo

package vulkan

/*
#cgo LDFLAGS: -ldl -lpthread
#include <stdlib.h>
#include "native.h"
*/
import "C"

import (
	"fmt"
	"os"
	"strings"
	"sync"
	"unsafe"

	vk "github.com/vulkan-go/vulkan"

	"github.com/shaderflow/shaderflow/tensor/device"
)

// installHint says what to install when Vulkan is missing.
const installHint = "install a Vulkan loader and driver (Debian/Ubuntu: `apt-get install libvulkan1 mesa-vulkan-drivers`; mesa-vulkan-drivers provides lavapipe, a software Vulkan device on the CPU)"

// validationLayer is the Khronos validation layer's name.
const validationLayer = "VK_LAYER_KHRONOS_validation"

// EnvValidation names the environment variable that turns the validation
// layer on ("1", "true" or "yes") when the process first touches Vulkan.
const EnvValidation = "SHADERFLOW_VULKAN_VALIDATION"

// instance is the process's single Vulkan instance. The binding keeps its
// instance-level function pointers in globals, so every device shares it;
// it is never destroyed.
type instance struct {
	handle     vk.Instance
	apiVersion uint32 // the instance version asked for
	validation bool
	adapters   []*adapter // sorted: discrete, integrated, virtual, other, cpu
}

var (
	instOnce sync.Once
	inst     *instance
	instErr  error
)

// getInstance creates the instance on first use.
func getInstance() (*instance, error) {
	instOnce.Do(func() { inst, instErr = newInstance() })
	return inst, instErr
}

// validationRequested reports whether EnvValidation asks for the layer.
func validationRequested() bool {
	switch strings.ToLower(strings.TrimSpace(os.Getenv(EnvValidation))) {
	case "1", "true", "yes", "on":
		return true
	}
	return false
}

func newInstance() (*instance, error) {
	var errbuf [512]C.char
	gipa := C.sf_open_loader(&errbuf[0], C.int(len(errbuf)))
	if gipa == nil {
		return nil, fmt.Errorf("vulkan: cannot load the Vulkan loader (%s): %s: %w", C.GoString(&errbuf[0]), installHint, device.ErrUnavailable)
	}
	vk.SetGetInstanceProcAddr(gipa)
	if err := vk.Init(); err != nil {
		return nil, fmt.Errorf("vulkan: %v: %w", err, device.ErrUnavailable)
	}
	in := &instance{validation: validationRequested()}
	var layers, exts []string
	if in.validation {
		if !hasInstanceLayer(validationLayer) {
			return nil, fmt.Errorf("vulkan: %s=1 but the %s layer is not installed (Debian/Ubuntu: `apt-get install vulkan-validationlayers`): %w", EnvValidation, validationLayer, device.ErrUnavailable)
		}
		layers = append(layers, validationLayer+"\x00")
		exts = append(exts, "VK_EXT_debug_report\x00")
	}
	// Ask for Vulkan 1.1 (Properties2, subgroup and maintenance3 queries);
	// a 1.0-only loader refuses it, so fall back.
	var res vk.Result
	for _, ver := range []uint32{vk.MakeVersion(1, 1, 0), vk.MakeVersion(1, 0, 0)} {
		app := &vk.ApplicationInfo{
			SType:            vk.StructureTypeApplicationInfo,
			PApplicationName: "shaderflow\x00",
			PEngineName:      "shaderflow\x00",
			ApiVersion:       ver,
		}
		ci := &vk.InstanceCreateInfo{
			SType:                   vk.StructureTypeInstanceCreateInfo,
			PApplicationInfo:        app,
			EnabledLayerCount:       uint32(len(layers)),
			PpEnabledLayerNames:     layers,
			EnabledExtensionCount:   uint32(len(exts)),
			PpEnabledExtensionNames: exts,
		}
		var h vk.Instance
		res = vk.CreateInstance(ci, nil, &h)
		ci.Free()
		app.Free()
		if res == vk.Success {
			in.handle, in.apiVersion = h, ver
			break
		}
		if res != vk.ErrorIncompatibleDriver {
			break
		}
	}
	if res != vk.Success {
		return nil, fmt.Errorf("vulkan: creating the instance: %w (%s): %w", vkErr("vkCreateInstance", res), installHint, device.ErrUnavailable)
	}
	if err := vk.InitInstance(in.handle); err != nil {
		return nil, fmt.Errorf("vulkan: %v: %w", err, device.ErrUnavailable)
	}
	C.sf_instance_init(C.VkInstance(unsafe.Pointer(in.handle)))
	if in.validation {
		if r := C.sf_debug_enable(C.VkInstance(unsafe.Pointer(in.handle))); r != 0 {
			return nil, fmt.Errorf("vulkan: installing the validation callback: %w", vkErr("vkCreateDebugReportCallbackEXT", vk.Result(r)))
		}
	}
	var err error
	if in.adapters, err = enumerateAdapters(in); err != nil {
		return nil, err
	}
	return in, nil
}

// hasInstanceLayer reports whether the loader knows the named layer.
func hasInstanceLayer(name string) bool {
	cs := C.CString(name)
	defer C.free(unsafe.Pointer(cs))
	return C.sf_has_instance_layer(cs) != 0
}

// validationMessages returns the validation errors reported since *cursor
// and advances it.
func validationMessages(cursor *uint64) []string {
	n := uint64(C.sf_debug_count())
	var msgs []string
	var buf [2048]C.char
	for i := *cursor; i < n; i++ {
		if C.sf_debug_get(C.uint64_t(i), &buf[0], C.int(len(buf))) != 0 {
			msgs = append(msgs, C.GoString(&buf[0]))
		} else if len(msgs) == 0 || !strings.HasPrefix(msgs[len(msgs)-1], "(older") {
			msgs = append(msgs, "(older validation messages were overwritten)")
		}
	}
	*cursor = n
	return msgs
}

// reportValidation records msg in the validation log as the layer would
// (tests use it to check that recorded messages surface as errors).
func reportValidation(msg string) {
	cs := C.CString(msg)
	defer C.free(unsafe.Pointer(cs))
	C.sf_debug_report(cs)
}
