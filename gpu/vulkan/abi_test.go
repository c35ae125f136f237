//go:build cgo

package vulkan

import (
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// abiStructs lists every struct of vkdecl.h with the fields whose offsets
// must match the official header.
var abiStructs = map[string][]string{
	"VkPhysicalDeviceProperties2":               {"pNext", "properties"},
	"VkPhysicalDeviceFeatures2":                 {"pNext", "features"},
	"VkPhysicalDeviceSubgroupProperties":        {"subgroupSize", "supportedStages", "supportedOperations", "quadOperationsInAllStages"},
	"VkPhysicalDeviceMaintenance3Properties":    {"maxPerSetDescriptors", "maxMemoryAllocationSize"},
	"VkPhysicalDeviceDriverProperties":          {"driverID", "driverName", "driverInfo", "conformanceVersion"},
	"VkPhysicalDeviceShaderFloat16Int8Features": {"shaderFloat16", "shaderInt8"},
	"VkPhysicalDeviceFloatControlsProperties":   {"pNext", "denormBehaviorIndependence", "shaderSignedZeroInfNanPreserveFloat32", "shaderRoundingModeRTZFloat64"},
	"VkPhysicalDevice16BitStorageFeatures":      {"storageBuffer16BitAccess", "storageInputOutput16"},
	"VkExtensionProperties":                     {"extensionName", "specVersion"},
	"VkLayerProperties":                         {"layerName", "specVersion", "implementationVersion", "description"},
	"VkQueueFamilyProperties":                   {"queueFlags", "queueCount", "timestampValidBits", "minImageTransferGranularity"},
	"VkPipelineShaderStageCreateInfo":           {"flags", "stage", "module", "pName", "pSpecializationInfo"},
	"VkComputePipelineCreateInfo":               {"flags", "stage", "layout", "basePipelineHandle", "basePipelineIndex"},
	"VkDebugReportCallbackCreateInfoEXT":        {"flags", "pfnCallback", "pUserData"},
	"VkDescriptorSetAllocateInfo":               {"descriptorPool", "descriptorSetCount", "pSetLayouts"},
	"VkDescriptorBufferInfo":                    {"buffer", "offset", "range"},
	"VkWriteDescriptorSet":                      {"dstSet", "dstBinding", "dstArrayElement", "descriptorCount", "descriptorType", "pImageInfo", "pBufferInfo", "pTexelBufferView"},
	"VkCommandBufferBeginInfo":                  {"flags", "pInheritanceInfo"},
	"VkMemoryBarrier":                           {"srcAccessMask", "dstAccessMask"},
	"VkBufferCopy":                              {"srcOffset", "dstOffset", "size"},
	"VkSubmitInfo":                              {"waitSemaphoreCount", "pWaitSemaphores", "pWaitDstStageMask", "commandBufferCount", "pCommandBuffers", "signalSemaphoreCount", "pSignalSemaphores"},

	// Push descriptors.
	"VkPhysicalDevicePushDescriptorPropertiesKHR": {"pNext", "maxPushDescriptors"},
}

// abiConstants are vkdecl.h's SF_VK_ constants with their official names.
var abiConstants = map[string]string{
	"SF_VK_STRUCTURE_TYPE_SUBMIT_INFO":                                  "VK_STRUCTURE_TYPE_SUBMIT_INFO",
	"SF_VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO":            "VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO",
	"SF_VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO":                 "VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO",
	"SF_VK_QUEUE_COMPUTE_BIT":                                           "VK_QUEUE_COMPUTE_BIT",
	"SF_VK_MAX_DESCRIPTION_SIZE":                                        "VK_MAX_DESCRIPTION_SIZE",
	"SF_VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO":                 "VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO",
	"SF_VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET":                         "VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET",
	"SF_VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO":                    "VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO",
	"SF_VK_STRUCTURE_TYPE_MEMORY_BARRIER":                               "VK_STRUCTURE_TYPE_MEMORY_BARRIER",
	"SF_VK_STRUCTURE_TYPE_DEBUG_REPORT_CALLBACK_CREATE_INFO_EXT":        "VK_STRUCTURE_TYPE_DEBUG_REPORT_CALLBACK_CREATE_INFO_EXT",
	"SF_VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2":                   "VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2",
	"SF_VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2":                 "VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2",
	"SF_VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_FLOAT16_INT8_FEATURES": "VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_FLOAT16_INT8_FEATURES",
	"SF_VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_16BIT_STORAGE_FEATURES":       "VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_16BIT_STORAGE_FEATURES",
	"SF_VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SUBGROUP_PROPERTIES":          "VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SUBGROUP_PROPERTIES",
	"SF_VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_MAINTENANCE_3_PROPERTIES":     "VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_MAINTENANCE_3_PROPERTIES",
	"SF_VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_DRIVER_PROPERTIES":            "VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_DRIVER_PROPERTIES",
	"SF_VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FLOAT_CONTROLS_PROPERTIES":    "VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FLOAT_CONTROLS_PROPERTIES",
	"SF_VK_DESCRIPTOR_TYPE_STORAGE_BUFFER":                              "VK_DESCRIPTOR_TYPE_STORAGE_BUFFER",
	"SF_VK_PIPELINE_BIND_POINT_COMPUTE":                                 "VK_PIPELINE_BIND_POINT_COMPUTE",
	"SF_VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT":                    "VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT",
	"SF_VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT":                              "VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT",
	"SF_VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT":                           "VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT",
	"SF_VK_PIPELINE_STAGE_TRANSFER_BIT":                                 "VK_PIPELINE_STAGE_TRANSFER_BIT",
	"SF_VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT":                           "VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT",
	"SF_VK_PIPELINE_STAGE_HOST_BIT":                                     "VK_PIPELINE_STAGE_HOST_BIT",
	"SF_VK_PIPELINE_STAGE_ALL_COMMANDS_BIT":                             "VK_PIPELINE_STAGE_ALL_COMMANDS_BIT",
	"SF_VK_ACCESS_SHADER_READ_BIT":                                      "VK_ACCESS_SHADER_READ_BIT",
	"SF_VK_ACCESS_SHADER_WRITE_BIT":                                     "VK_ACCESS_SHADER_WRITE_BIT",
	"SF_VK_ACCESS_TRANSFER_READ_BIT":                                    "VK_ACCESS_TRANSFER_READ_BIT",
	"SF_VK_ACCESS_TRANSFER_WRITE_BIT":                                   "VK_ACCESS_TRANSFER_WRITE_BIT",
	"SF_VK_ACCESS_HOST_READ_BIT":                                        "VK_ACCESS_HOST_READ_BIT",
	"SF_VK_ACCESS_HOST_WRITE_BIT":                                       "VK_ACCESS_HOST_WRITE_BIT",
	"SF_VK_QUERY_RESULT_64_BIT":                                         "VK_QUERY_RESULT_64_BIT",
	"SF_VK_QUERY_RESULT_WAIT_BIT":                                       "VK_QUERY_RESULT_WAIT_BIT",
	"SF_VK_SHADER_STAGE_COMPUTE_BIT":                                    "VK_SHADER_STAGE_COMPUTE_BIT",
	"SF_VK_SUBGROUP_FEATURE_BASIC_BIT":                                  "VK_SUBGROUP_FEATURE_BASIC_BIT",
	"SF_VK_SUBGROUP_FEATURE_ARITHMETIC_BIT":                             "VK_SUBGROUP_FEATURE_ARITHMETIC_BIT",
	"SF_VK_DEBUG_REPORT_WARNING_BIT_EXT":                                "VK_DEBUG_REPORT_WARNING_BIT_EXT",
	"SF_VK_DEBUG_REPORT_PERFORMANCE_WARNING_BIT_EXT":                    "VK_DEBUG_REPORT_PERFORMANCE_WARNING_BIT_EXT",
	"SF_VK_DEBUG_REPORT_ERROR_BIT_EXT":                                  "VK_DEBUG_REPORT_ERROR_BIT_EXT",
	"SF_VK_MAX_EXTENSION_NAME_SIZE":                                     "VK_MAX_EXTENSION_NAME_SIZE",
	"SF_VK_MAX_DRIVER_NAME_SIZE":                                        "VK_MAX_DRIVER_NAME_SIZE",
	"SF_VK_MAX_DRIVER_INFO_SIZE":                                        "VK_MAX_DRIVER_INFO_SIZE",
	"SF_VK_ERROR_DEVICE_LOST":                                           "VK_ERROR_DEVICE_LOST",
	"SF_VK_ERROR_OUT_OF_POOL_MEMORY":                                    "VK_ERROR_OUT_OF_POOL_MEMORY",
	"SF_VK_TIMEOUT":                                                     "VK_TIMEOUT",

	// Descriptor caching and push descriptors.
	"SF_VK_DESCRIPTOR_TYPE_STORAGE_BUFFER_DYNAMIC":                        "VK_DESCRIPTOR_TYPE_STORAGE_BUFFER_DYNAMIC",
	"SF_VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PUSH_DESCRIPTOR_PROPERTIES_KHR": "VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PUSH_DESCRIPTOR_PROPERTIES_KHR",
}

// layoutProgram writes a C program that prints the size of every struct
// and the offset of its fields, and the value of every constant; official
// selects the system header (official names) or vkdecl.h.
func layoutProgram(official bool) string {
	var b strings.Builder
	if official {
		b.WriteString("#include <vulkan/vulkan.h>\n")
	} else {
		b.WriteString("#include \"vkdecl.h\"\n")
	}
	b.WriteString("#include <stdio.h>\n#include <stddef.h>\nint main(void) {\n")
	for _, s := range sortedKeys(abiStructs) {
		fmt.Fprintf(&b, "\tprintf(\"%s size %%zu\\n\", sizeof(%s));\n", s, s)
		for _, f := range abiStructs[s] {
			fmt.Fprintf(&b, "\tprintf(\"%s.%s %%zu\\n\", offsetof(%s, %s));\n", s, f, s, f)
		}
	}
	if official {
		b.WriteString("\tprintf(\"properties %zu features %zu\\n\", sizeof(VkPhysicalDeviceProperties), sizeof(VkPhysicalDeviceFeatures));\n")
	} else {
		b.WriteString("\tprintf(\"properties %d features %d\\n\", SF_VK_PHYSICAL_DEVICE_PROPERTIES_SIZE, SF_VK_PHYSICAL_DEVICE_FEATURES_SIZE);\n")
	}
	for _, c := range sortedKeys(abiConstants) {
		name := c
		if official {
			name = abiConstants[c]
		}
		fmt.Fprintf(&b, "\tprintf(\"%s %%lld\\n\", (long long)(%s));\n", c, name)
	}
	b.WriteString("\treturn 0;\n}\n")
	return b.String()
}

func sortedKeys[V any](m map[string]V) []string {
	return slices.Sorted(maps.Keys(m))
}

// runC compiles and runs a C program and returns its output.
func runC(t *testing.T, cc, src string) string {
	dir := t.TempDir()
	c := filepath.Join(dir, "layout.c")
	require.NoError(t, os.WriteFile(c, []byte(src), 0o644))
	_, self, _, ok := runtime.Caller(0) // vkdecl.h sits next to this file
	require.True(t, ok)
	exe := filepath.Join(dir, "layout")
	out, err := exec.Command(cc, "-I", filepath.Dir(self), "-o", exe, c).CombinedOutput()
	require.NoError(t, err, "%s", out)
	out, err = exec.Command(exe).Output()
	require.NoError(t, err)
	return string(out)
}

// TestABI checks vkdecl.h against the system's Vulkan headers: every size,
// field offset and constant must agree.
func TestABI(t *testing.T) {
	if _, err := os.Stat("/usr/include/vulkan/vulkan_core.h"); err != nil {
		t.Skip("no system Vulkan headers (Debian: apt-get install libvulkan-dev)")
	}
	cc := os.Getenv("CC")
	if cc == "" {
		cc = "gcc"
	}
	if _, err := exec.LookPath(cc); err != nil {
		t.Skipf("no C compiler: %v", err)
	}
	ours := runC(t, cc, layoutProgram(false))
	theirs := runC(t, cc, layoutProgram(true))
	ol, tl := strings.Split(ours, "\n"), strings.Split(theirs, "\n")
	require.Equal(t, len(tl), len(ol))
	for i := range ol {
		assert.Equal(t, tl[i], ol[i])
	}
}
