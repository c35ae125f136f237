// Minimal Vulkan declarations for the backend's own C code, written from the
// Vulkan specification so that building needs no Vulkan SDK or -dev package:
// only the handles, enums, structs and function-pointer types this package
// calls. Non-dispatchable handles are 64-bit integers, which is their ABI on
// every 64-bit platform. abi_test.go compares every size and offset here with
// the system's vulkan_core.h where one is installed.

#ifndef SF_VKDECL_H
#define SF_VKDECL_H

#include <stddef.h>
#include <stdint.h>

typedef uint32_t VkFlags;
typedef uint32_t VkBool32;
typedef uint64_t VkDeviceSize;
typedef int32_t VkResult;
typedef int32_t VkStructureType;

typedef struct VkInstance_T *VkInstance;
typedef struct VkPhysicalDevice_T *VkPhysicalDevice;
typedef struct VkDevice_T *VkDevice;
typedef struct VkQueue_T *VkQueue;
typedef struct VkCommandBuffer_T *VkCommandBuffer;
typedef uint64_t VkBuffer;
typedef uint64_t VkFence;
typedef uint64_t VkSemaphore;
typedef uint64_t VkPipeline;
typedef uint64_t VkPipelineLayout;
typedef uint64_t VkDescriptorSet;
typedef uint64_t VkDescriptorSetLayout;
typedef uint64_t VkDescriptorPool;
typedef uint64_t VkQueryPool;
typedef uint64_t VkDebugReportCallbackEXT;
typedef uint64_t VkShaderModule;
typedef uint64_t VkPipelineCache;

#define SF_VK_SUCCESS 0
#define SF_VK_TIMEOUT 2
#define SF_VK_ERROR_DEVICE_LOST (-4)
#define SF_VK_ERROR_OUT_OF_POOL_MEMORY (-1000069000)

#define SF_VK_STRUCTURE_TYPE_SUBMIT_INFO 4
#define SF_VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO 18
#define SF_VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO 29
#define SF_VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO 34
#define SF_VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET 35
#define SF_VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO 42
#define SF_VK_STRUCTURE_TYPE_MEMORY_BARRIER 46
#define SF_VK_STRUCTURE_TYPE_DEBUG_REPORT_CALLBACK_CREATE_INFO_EXT 1000011000
#define SF_VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2 1000059000
#define SF_VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2 1000059001
#define SF_VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_FLOAT16_INT8_FEATURES 1000082000
#define SF_VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_16BIT_STORAGE_FEATURES 1000083000
#define SF_VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SUBGROUP_PROPERTIES 1000094000
#define SF_VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_MAINTENANCE_3_PROPERTIES 1000168000
#define SF_VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_DRIVER_PROPERTIES 1000196000
#define SF_VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FLOAT_CONTROLS_PROPERTIES 1000197000

#define SF_VK_DESCRIPTOR_TYPE_STORAGE_BUFFER 7
#define SF_VK_DESCRIPTOR_TYPE_STORAGE_BUFFER_DYNAMIC 9
#define SF_VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PUSH_DESCRIPTOR_PROPERTIES_KHR 1000080000
#define SF_VK_PIPELINE_BIND_POINT_COMPUTE 1
#define SF_VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT 0x1

#define SF_VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT 0x1
#define SF_VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT 0x800
#define SF_VK_PIPELINE_STAGE_TRANSFER_BIT 0x1000
#define SF_VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT 0x2000
#define SF_VK_PIPELINE_STAGE_HOST_BIT 0x4000
#define SF_VK_PIPELINE_STAGE_ALL_COMMANDS_BIT 0x10000

#define SF_VK_ACCESS_SHADER_READ_BIT 0x20
#define SF_VK_ACCESS_SHADER_WRITE_BIT 0x40
#define SF_VK_ACCESS_TRANSFER_READ_BIT 0x800
#define SF_VK_ACCESS_TRANSFER_WRITE_BIT 0x1000
#define SF_VK_ACCESS_HOST_READ_BIT 0x2000
#define SF_VK_ACCESS_HOST_WRITE_BIT 0x4000

#define SF_VK_QUERY_RESULT_64_BIT 0x1
#define SF_VK_QUERY_RESULT_WAIT_BIT 0x2

#define SF_VK_SHADER_STAGE_COMPUTE_BIT 0x20
#define SF_VK_SUBGROUP_FEATURE_BASIC_BIT 0x1
#define SF_VK_SUBGROUP_FEATURE_ARITHMETIC_BIT 0x4

#define SF_VK_DEBUG_REPORT_WARNING_BIT_EXT 0x2
#define SF_VK_DEBUG_REPORT_PERFORMANCE_WARNING_BIT_EXT 0x4
#define SF_VK_DEBUG_REPORT_ERROR_BIT_EXT 0x8

#define SF_VK_QUEUE_COMPUTE_BIT 0x2
#define SF_VK_MAX_EXTENSION_NAME_SIZE 256
#define SF_VK_MAX_DESCRIPTION_SIZE 256
#define SF_VK_MAX_DRIVER_NAME_SIZE 256
#define SF_VK_MAX_DRIVER_INFO_SIZE 256

// The 1.0 property and feature structs are carried opaquely: the Go binding
// reads them; the C code only needs their size to reach the pNext chain.
#define SF_VK_PHYSICAL_DEVICE_PROPERTIES_SIZE 824
#define SF_VK_PHYSICAL_DEVICE_FEATURES_SIZE 220

typedef struct VkPhysicalDeviceProperties2 {
	VkStructureType sType;
	void *pNext;
	uint64_t properties[SF_VK_PHYSICAL_DEVICE_PROPERTIES_SIZE / 8];
} VkPhysicalDeviceProperties2;

typedef struct VkPhysicalDeviceFeatures2 {
	VkStructureType sType;
	void *pNext;
	VkBool32 features[SF_VK_PHYSICAL_DEVICE_FEATURES_SIZE / 4];
} VkPhysicalDeviceFeatures2;

typedef struct VkPhysicalDeviceSubgroupProperties {
	VkStructureType sType;
	void *pNext;
	uint32_t subgroupSize;
	VkFlags supportedStages;
	VkFlags supportedOperations;
	VkBool32 quadOperationsInAllStages;
} VkPhysicalDeviceSubgroupProperties;

typedef struct VkPhysicalDeviceMaintenance3Properties {
	VkStructureType sType;
	void *pNext;
	uint32_t maxPerSetDescriptors;
	VkDeviceSize maxMemoryAllocationSize;
} VkPhysicalDeviceMaintenance3Properties;

typedef struct VkConformanceVersion {
	uint8_t major, minor, subminor, patch;
} VkConformanceVersion;

typedef struct VkPhysicalDeviceDriverProperties {
	VkStructureType sType;
	void *pNext;
	int32_t driverID;
	char driverName[SF_VK_MAX_DRIVER_NAME_SIZE];
	char driverInfo[SF_VK_MAX_DRIVER_INFO_SIZE];
	VkConformanceVersion conformanceVersion;
} VkPhysicalDeviceDriverProperties;

typedef struct VkPhysicalDeviceFloatControlsProperties {
	VkStructureType sType;
	void *pNext;
	int32_t denormBehaviorIndependence;
	int32_t roundingModeIndependence;
	VkBool32 shaderSignedZeroInfNanPreserveFloat16;
	VkBool32 shaderSignedZeroInfNanPreserveFloat32;
	VkBool32 shaderSignedZeroInfNanPreserveFloat64;
	VkBool32 shaderDenormPreserveFloat16;
	VkBool32 shaderDenormPreserveFloat32;
	VkBool32 shaderDenormPreserveFloat64;
	VkBool32 shaderDenormFlushToZeroFloat16;
	VkBool32 shaderDenormFlushToZeroFloat32;
	VkBool32 shaderDenormFlushToZeroFloat64;
	VkBool32 shaderRoundingModeRTEFloat16;
	VkBool32 shaderRoundingModeRTEFloat32;
	VkBool32 shaderRoundingModeRTEFloat64;
	VkBool32 shaderRoundingModeRTZFloat16;
	VkBool32 shaderRoundingModeRTZFloat32;
	VkBool32 shaderRoundingModeRTZFloat64;
} VkPhysicalDeviceFloatControlsProperties;

typedef struct VkPhysicalDeviceShaderFloat16Int8Features {
	VkStructureType sType;
	void *pNext;
	VkBool32 shaderFloat16;
	VkBool32 shaderInt8;
} VkPhysicalDeviceShaderFloat16Int8Features;

typedef struct VkPhysicalDevice16BitStorageFeatures {
	VkStructureType sType;
	void *pNext;
	VkBool32 storageBuffer16BitAccess;
	VkBool32 uniformAndStorageBuffer16BitAccess;
	VkBool32 storagePushConstant16;
	VkBool32 storageInputOutput16;
} VkPhysicalDevice16BitStorageFeatures;

typedef struct VkPhysicalDevicePushDescriptorPropertiesKHR {
	VkStructureType sType;
	void *pNext;
	uint32_t maxPushDescriptors;
} VkPhysicalDevicePushDescriptorPropertiesKHR;

typedef struct VkExtensionProperties {
	char extensionName[SF_VK_MAX_EXTENSION_NAME_SIZE];
	uint32_t specVersion;
} VkExtensionProperties;

typedef struct VkLayerProperties {
	char layerName[SF_VK_MAX_EXTENSION_NAME_SIZE];
	uint32_t specVersion;
	uint32_t implementationVersion;
	char description[SF_VK_MAX_DESCRIPTION_SIZE];
} VkLayerProperties;

typedef struct VkExtent3D {
	uint32_t width, height, depth;
} VkExtent3D;

typedef struct VkQueueFamilyProperties {
	VkFlags queueFlags;
	uint32_t queueCount;
	uint32_t timestampValidBits;
	VkExtent3D minImageTransferGranularity;
} VkQueueFamilyProperties;

typedef struct VkPipelineShaderStageCreateInfo {
	VkStructureType sType;
	const void *pNext;
	VkFlags flags;
	VkFlags stage;
	VkShaderModule module;
	const char *pName;
	const void *pSpecializationInfo;
} VkPipelineShaderStageCreateInfo;

typedef struct VkComputePipelineCreateInfo {
	VkStructureType sType;
	const void *pNext;
	VkFlags flags;
	VkPipelineShaderStageCreateInfo stage;
	VkPipelineLayout layout;
	VkPipeline basePipelineHandle;
	int32_t basePipelineIndex;
} VkComputePipelineCreateInfo;

typedef VkBool32 (*PFN_vkDebugReportCallbackEXT)(VkFlags flags, int32_t objectType, uint64_t object,
	size_t location, int32_t messageCode, const char *pLayerPrefix, const char *pMessage, void *pUserData);

typedef struct VkDebugReportCallbackCreateInfoEXT {
	VkStructureType sType;
	const void *pNext;
	VkFlags flags;
	PFN_vkDebugReportCallbackEXT pfnCallback;
	void *pUserData;
} VkDebugReportCallbackCreateInfoEXT;

typedef struct VkDescriptorSetAllocateInfo {
	VkStructureType sType;
	const void *pNext;
	VkDescriptorPool descriptorPool;
	uint32_t descriptorSetCount;
	const VkDescriptorSetLayout *pSetLayouts;
} VkDescriptorSetAllocateInfo;

typedef struct VkDescriptorBufferInfo {
	VkBuffer buffer;
	VkDeviceSize offset;
	VkDeviceSize range;
} VkDescriptorBufferInfo;

typedef struct VkWriteDescriptorSet {
	VkStructureType sType;
	const void *pNext;
	VkDescriptorSet dstSet;
	uint32_t dstBinding;
	uint32_t dstArrayElement;
	uint32_t descriptorCount;
	int32_t descriptorType;
	const void *pImageInfo;
	const VkDescriptorBufferInfo *pBufferInfo;
	const uint64_t *pTexelBufferView;
} VkWriteDescriptorSet;

typedef struct VkCommandBufferBeginInfo {
	VkStructureType sType;
	const void *pNext;
	VkFlags flags;
	const void *pInheritanceInfo;
} VkCommandBufferBeginInfo;

typedef struct VkMemoryBarrier {
	VkStructureType sType;
	const void *pNext;
	VkFlags srcAccessMask;
	VkFlags dstAccessMask;
} VkMemoryBarrier;

typedef struct VkBufferCopy {
	VkDeviceSize srcOffset;
	VkDeviceSize dstOffset;
	VkDeviceSize size;
} VkBufferCopy;

typedef struct VkSubmitInfo {
	VkStructureType sType;
	const void *pNext;
	uint32_t waitSemaphoreCount;
	const VkSemaphore *pWaitSemaphores;
	const VkFlags *pWaitDstStageMask;
	uint32_t commandBufferCount;
	const VkCommandBuffer *pCommandBuffers;
	uint32_t signalSemaphoreCount;
	const VkSemaphore *pSignalSemaphores;
} VkSubmitInfo;

typedef void (*PFN_vkVoidFunction)(void);
typedef PFN_vkVoidFunction (*PFN_vkGetInstanceProcAddr)(VkInstance, const char *);
typedef PFN_vkVoidFunction (*PFN_vkGetDeviceProcAddr)(VkDevice, const char *);
typedef VkResult (*PFN_vkEnumerateDeviceExtensionProperties)(VkPhysicalDevice, const char *, uint32_t *,
	VkExtensionProperties *);
typedef VkResult (*PFN_vkEnumerateInstanceLayerProperties)(uint32_t *, VkLayerProperties *);
typedef void (*PFN_vkGetPhysicalDeviceQueueFamilyProperties)(VkPhysicalDevice, uint32_t *, VkQueueFamilyProperties *);
typedef VkResult (*PFN_vkCreateComputePipelines)(VkDevice, VkPipelineCache, uint32_t, const VkComputePipelineCreateInfo *,
	const void *, VkPipeline *);
typedef void (*PFN_vkDestroyPipeline)(VkDevice, VkPipeline, const void *);
typedef void (*PFN_vkGetPhysicalDeviceProperties2)(VkPhysicalDevice, VkPhysicalDeviceProperties2 *);
typedef void (*PFN_vkGetPhysicalDeviceFeatures2)(VkPhysicalDevice, VkPhysicalDeviceFeatures2 *);
typedef VkResult (*PFN_vkCreateDebugReportCallbackEXT)(VkInstance, const VkDebugReportCallbackCreateInfoEXT *,
	const void *, VkDebugReportCallbackEXT *);
typedef void (*PFN_vkDestroyDebugReportCallbackEXT)(VkInstance, VkDebugReportCallbackEXT, const void *);

typedef VkResult (*PFN_vkAllocateDescriptorSets)(VkDevice, const VkDescriptorSetAllocateInfo *, VkDescriptorSet *);
typedef void (*PFN_vkUpdateDescriptorSets)(VkDevice, uint32_t, const VkWriteDescriptorSet *, uint32_t, const void *);
typedef VkResult (*PFN_vkResetDescriptorPool)(VkDevice, VkDescriptorPool, VkFlags);
typedef VkResult (*PFN_vkBeginCommandBuffer)(VkCommandBuffer, const VkCommandBufferBeginInfo *);
typedef VkResult (*PFN_vkEndCommandBuffer)(VkCommandBuffer);
typedef VkResult (*PFN_vkResetCommandBuffer)(VkCommandBuffer, VkFlags);
typedef void (*PFN_vkCmdBindPipeline)(VkCommandBuffer, int32_t, VkPipeline);
typedef void (*PFN_vkCmdBindDescriptorSets)(VkCommandBuffer, int32_t, VkPipelineLayout, uint32_t, uint32_t,
	const VkDescriptorSet *, uint32_t, const uint32_t *);
typedef void (*PFN_vkCmdDispatch)(VkCommandBuffer, uint32_t, uint32_t, uint32_t);
typedef void (*PFN_vkCmdPipelineBarrier)(VkCommandBuffer, VkFlags, VkFlags, VkFlags, uint32_t, const VkMemoryBarrier *,
	uint32_t, const void *, uint32_t, const void *);
typedef void (*PFN_vkCmdCopyBuffer)(VkCommandBuffer, VkBuffer, VkBuffer, uint32_t, const VkBufferCopy *);
typedef void (*PFN_vkCmdFillBuffer)(VkCommandBuffer, VkBuffer, VkDeviceSize, VkDeviceSize, uint32_t);
typedef void (*PFN_vkCmdWriteTimestamp)(VkCommandBuffer, VkFlags, VkQueryPool, uint32_t);
typedef void (*PFN_vkCmdResetQueryPool)(VkCommandBuffer, VkQueryPool, uint32_t, uint32_t);
typedef void (*PFN_vkCmdPushDescriptorSetKHR)(VkCommandBuffer, int32_t, VkPipelineLayout, uint32_t, uint32_t,
	const VkWriteDescriptorSet *);
typedef VkResult (*PFN_vkQueueSubmit)(VkQueue, uint32_t, const VkSubmitInfo *, VkFence);
typedef VkResult (*PFN_vkWaitForFences)(VkDevice, uint32_t, const VkFence *, VkBool32, uint64_t);
typedef VkResult (*PFN_vkResetFences)(VkDevice, uint32_t, const VkFence *);
typedef VkResult (*PFN_vkGetFenceStatus)(VkDevice, VkFence);
typedef VkResult (*PFN_vkGetQueryPoolResults)(VkDevice, VkQueryPool, uint32_t, uint32_t, size_t, void *, VkDeviceSize,
	VkFlags);

#endif
