// The backend's own C layer: loading the Vulkan loader, the Vulkan 1.1+
// queries the Go binding lacks, the validation message log, and the
// per-kernel path (descriptor sets, command recording, submission), where one
// cgo call replaces the binding's struct-converting calls.

#ifndef SF_NATIVE_H
#define SF_NATIVE_H

#include "vkdecl.h"

// sf_open_loader dlopens the Vulkan loader (libvulkan.so.1, then
// libvulkan.so) and returns its vkGetInstanceProcAddr, or NULL with a
// message in err.
void *sf_open_loader(char *err, int errlen);

// sf_has_instance_layer reports whether the loader knows the named layer.
int sf_has_instance_layer(const char *name);

// sf_instance_init loads the instance-level functions the C layer calls.
void sf_instance_init(VkInstance inst);

// sf_has_device_extension reports whether a physical device offers the
// named extension.
int sf_has_device_extension(VkPhysicalDevice pd, const char *name);

// sf_compute_queue finds the first queue family with compute; it returns 0
// when there is none.
int sf_compute_queue(VkPhysicalDevice pd, uint32_t *family, uint32_t *timestamp_bits);

// sf_device_info is what the Vulkan 1.1+ property and feature chains say.
typedef struct sf_device_info {
	int have_props2;
	uint32_t subgroup_size, subgroup_stages, subgroup_ops;
	int have_max_alloc;
	uint64_t max_alloc;
	int have_driver;
	int32_t driver_id;
	char driver_name[SF_VK_MAX_DRIVER_NAME_SIZE];
	char driver_info[SF_VK_MAX_DRIVER_INFO_SIZE];
	VkBool32 float16, storage16;
	VkBool32 preserve_nan32; // shaderSignedZeroInfNanPreserveFloat32
} sf_device_info;

// sf_query_device fills out for a physical device whose API version is at
// least 1.1; want_driver, want_f16 and want_float_controls say whether the
// driver-properties, float16 and float-controls structs may be chained
// (Vulkan 1.2 or their extensions).
void sf_query_device(VkPhysicalDevice pd, int want_driver, int want_f16, int want_float_controls, sf_device_info *out);

// sf_debug_enable installs the validation message callback; 0 on success.
VkResult sf_debug_enable(VkInstance inst);
// sf_debug_count returns how many validation errors were reported so far.
uint64_t sf_debug_count(void);
// sf_debug_get copies message i (0-based, counting every error so far) into
// buf; it returns 0 when the message was overwritten by newer ones.
int sf_debug_get(uint64_t i, char *buf, int len);
// sf_debug_report records a message as if the layer had sent it (tests).
void sf_debug_report(const char *msg);

// sf_dev holds a logical device's queue and the functions of the hot path.
typedef struct sf_dev {
	VkDevice dev;
	VkQueue queue;
	PFN_vkAllocateDescriptorSets allocateDescriptorSets;
	PFN_vkUpdateDescriptorSets updateDescriptorSets;
	PFN_vkResetDescriptorPool resetDescriptorPool;
	PFN_vkBeginCommandBuffer beginCommandBuffer;
	PFN_vkEndCommandBuffer endCommandBuffer;
	PFN_vkResetCommandBuffer resetCommandBuffer;
	PFN_vkCmdBindPipeline cmdBindPipeline;
	PFN_vkCmdBindDescriptorSets cmdBindDescriptorSets;
	PFN_vkCmdDispatch cmdDispatch;
	PFN_vkCmdPipelineBarrier cmdPipelineBarrier;
	PFN_vkCmdCopyBuffer cmdCopyBuffer;
	PFN_vkCmdFillBuffer cmdFillBuffer;
	PFN_vkCmdWriteTimestamp cmdWriteTimestamp;
	PFN_vkCmdResetQueryPool cmdResetQueryPool;
	PFN_vkQueueSubmit queueSubmit;
	PFN_vkWaitForFences waitForFences;
	PFN_vkResetFences resetFences;
	PFN_vkGetFenceStatus getFenceStatus;
	PFN_vkGetQueryPoolResults getQueryPoolResults;
	PFN_vkCreateComputePipelines createComputePipelines;
	PFN_vkDestroyPipeline destroyPipeline;
	PFN_vkCmdPushDescriptorSetKHR cmdPushDescriptorSet; // NULL unless VK_KHR_push_descriptor is enabled
} sf_dev;

// sf_dev_new allocates an sf_dev and loads its functions; it returns NULL
// and the first missing function's name in missing.
sf_dev *sf_dev_new(VkDevice dev, VkQueue queue, const char **missing);
void sf_dev_free(sf_dev *d);
// sf_dev_load_push loads vkCmdPushDescriptorSetKHR (the device must have
// been created with VK_KHR_push_descriptor); it returns 0 when missing.
int sf_dev_load_push(sf_dev *d);
// sf_max_push_descriptors returns the device's maxPushDescriptors (0 when
// the properties cannot be queried).
uint32_t sf_max_push_descriptors(VkPhysicalDevice pd);

// sf_create_pipeline creates a compute pipeline of the entry point of a
// shader module.
VkResult sf_create_pipeline(sf_dev *d, VkShaderModule module, VkPipelineLayout layout, const char *entry, VkPipeline *out);

// sf_destroy_pipeline destroys a pipeline.
void sf_destroy_pipeline(sf_dev *d, VkPipeline p);

// sf_bind is one storage-buffer binding of a dispatch.
typedef struct sf_bind {
	VkBuffer buffer;
	VkDeviceSize offset;
	VkDeviceSize range;
} sf_bind;

#define SF_MAX_BINDINGS 64

// sf_dispatch_args describes one dispatch. The Go side keeps one in C memory
// per device and fills it in place, so that a dispatch is one cgo call with
// one pointer argument.
typedef struct sf_dispatch_args {
	VkCommandBuffer cb;
	int32_t barrier;              // first order every earlier compute and transfer access before it
	int32_t dynamic;              // binding 0 is a dynamic storage buffer, at dyn_offset
	uint32_t dyn_offset;
	uint32_t n;                   // bindings in b: binding i = b[i]
	VkPipelineLayout layout;
	VkPipeline pipeline;
	VkDescriptorPool pool;        // not 0: allocate a set from it and write b into it
	VkDescriptorSetLayout dsl;    // the set layout, for pool
	VkDescriptorSet set;          // with pool 0: the set to bind, or 0 to push b (push descriptors)
	int32_t write;                // with set: write b into it first
	uint32_t gx, gy, gz;          // workgroups
	VkQueryPool qp;               // not 0: write timestamps query and query+1 around the dispatch
	uint32_t query;
	sf_bind b[SF_MAX_BINDINGS];
} sf_dispatch_args;

// sf_begin begins a command buffer, resets queries [0, nquery) of qp when qp
// is not 0, and makes earlier submissions' writes visible.
VkResult sf_begin(sf_dev *d, VkCommandBuffer cb, VkQueryPool qp, uint32_t nquery);
// sf_alloc_set allocates one descriptor set of layout dsl from pool.
VkResult sf_alloc_set(sf_dev *d, VkDescriptorPool pool, VkDescriptorSetLayout dsl, VkDescriptorSet *set);
// sf_dispatch records the dispatch a describes: the optional barrier, the
// descriptors (a set allocated from a->pool and written, a->set, written
// first when a->write is set, or pushed), the pipeline, and the timestamps
// when a->qp is not 0.
VkResult sf_dispatch(sf_dev *d, const sf_dispatch_args *a);
// sf_copy records a buffer-to-buffer copy, after a barrier when barrier is set.
void sf_copy(sf_dev *d, VkCommandBuffer cb, int barrier, VkBuffer src, VkDeviceSize srcOff, VkBuffer dst,
	VkDeviceSize dstOff, VkDeviceSize size);
// sf_fill records filling size bytes (a multiple of 4) with the word value.
void sf_fill(sf_dev *d, VkCommandBuffer cb, VkBuffer dst, VkDeviceSize off, VkDeviceSize size, uint32_t value);
// sf_submit makes the buffer's writes visible to the host, ends it and
// submits it with fence.
VkResult sf_submit(sf_dev *d, VkCommandBuffer cb, VkFence fence);
// sf_wait waits for fence up to timeout nanoseconds.
VkResult sf_wait(sf_dev *d, VkFence fence, uint64_t timeout);
// sf_fence_status returns VK_SUCCESS when fence is signaled, VK_NOT_READY if not.
VkResult sf_fence_status(sf_dev *d, VkFence fence);
// sf_recycle resets a finished batch's fence, descriptor pool and command buffer.
VkResult sf_recycle(sf_dev *d, VkCommandBuffer cb, VkFence fence, VkDescriptorPool pool);
// sf_timestamps reads n 64-bit timestamps from qp.
VkResult sf_timestamps(sf_dev *d, VkQueryPool qp, uint32_t n, uint64_t *out);

#endif
