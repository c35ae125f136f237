//go:build cgo

package vulkan

import (
	"fmt"

	vk "github.com/vulkan-go/vulkan"

	"github.com/shaderflow/shaderflow/tensor/device"
)

// VkResult codes the binding's list lacks or that the backend tests for.
const (
	resultErrorOutOfPoolMemory = -1000069000
	resultErrorUnknown         = -13
	resultErrorValidation      = -1000011001
)

// resultNames names the VkResult error codes.
var resultNames = map[int32]string{
	-1:                         "VK_ERROR_OUT_OF_HOST_MEMORY",
	-2:                         "VK_ERROR_OUT_OF_DEVICE_MEMORY",
	-3:                         "VK_ERROR_INITIALIZATION_FAILED",
	-4:                         "VK_ERROR_DEVICE_LOST",
	-5:                         "VK_ERROR_MEMORY_MAP_FAILED",
	-6:                         "VK_ERROR_LAYER_NOT_PRESENT",
	-7:                         "VK_ERROR_EXTENSION_NOT_PRESENT",
	-8:                         "VK_ERROR_FEATURE_NOT_PRESENT",
	-9:                         "VK_ERROR_INCOMPATIBLE_DRIVER",
	-10:                        "VK_ERROR_TOO_MANY_OBJECTS",
	-11:                        "VK_ERROR_FORMAT_NOT_SUPPORTED",
	-12:                        "VK_ERROR_FRAGMENTED_POOL",
	resultErrorUnknown:         "VK_ERROR_UNKNOWN",
	resultErrorOutOfPoolMemory: "VK_ERROR_OUT_OF_POOL_MEMORY",
	resultErrorValidation:      "VK_ERROR_VALIDATION_FAILED_EXT",
	2:                          "VK_TIMEOUT",
	1:                          "VK_NOT_READY",
}

// Error is a failed Vulkan call. It wraps device.ErrOutOfMemory for the
// out-of-memory results and device.ErrDeviceLost for VK_ERROR_DEVICE_LOST.
type Error struct {
	Op     string // the Vulkan function
	Result int32  // its VkResult
}

// Error renders the call and its result.
func (e *Error) Error() string {
	name, ok := resultNames[e.Result]
	if !ok {
		name = fmt.Sprintf("VkResult %d", e.Result)
	}
	return fmt.Sprintf("vulkan: %s: %s", e.Op, name)
}

// Unwrap returns the device error class of the result, if any.
func (e *Error) Unwrap() error {
	switch e.Result {
	case -1, -2:
		return device.ErrOutOfMemory
	case -4:
		return device.ErrDeviceLost
	}
	return nil
}

// vkErr returns nil for success and an *Error otherwise.
func vkErr(op string, r vk.Result) error {
	if r == vk.Success {
		return nil
	}
	return &Error{Op: op, Result: int32(r)}
}
