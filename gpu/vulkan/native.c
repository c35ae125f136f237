//go:build cgo

#include "native.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static PFN_vkGetInstanceProcAddr gipa;
static PFN_vkGetPhysicalDeviceProperties2 getProps2;
static PFN_vkGetPhysicalDeviceFeatures2 getFeatures2;
static PFN_vkCreateDebugReportCallbackEXT createDebugReport;
static PFN_vkGetDeviceProcAddr gdpa;
static PFN_vkEnumerateDeviceExtensionProperties enumDeviceExts;
static PFN_vkGetPhysicalDeviceQueueFamilyProperties getQueueFamilies;

void *sf_open_loader(char *err, int errlen) {
	static const char *names[] = {"libvulkan.so.1", "libvulkan.so"};
	const char *last = "";
	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
		void *lib = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
		if (!lib) {
			last = dlerror();
			continue;
		}
		gipa = (PFN_vkGetInstanceProcAddr)dlsym(lib, "vkGetInstanceProcAddr");
		if (gipa) {
			return (void *)gipa;
		}
		snprintf(err, errlen, "%s has no vkGetInstanceProcAddr", names[i]);
		return NULL;
	}
	snprintf(err, errlen, "%s", last ? last : "libvulkan.so.1 not found");
	return NULL;
}

int sf_has_instance_layer(const char *name) {
	PFN_vkEnumerateInstanceLayerProperties enumLayers =
		(PFN_vkEnumerateInstanceLayerProperties)gipa(NULL, "vkEnumerateInstanceLayerProperties");
	uint32_t n = 0;
	if (!enumLayers || enumLayers(&n, NULL) != SF_VK_SUCCESS || n == 0) {
		return 0;
	}
	VkLayerProperties *props = calloc(n, sizeof *props);
	if (!props) {
		return 0;
	}
	int found = 0;
	if (enumLayers(&n, props) >= SF_VK_SUCCESS) {
		for (uint32_t i = 0; i < n && !found; i++) {
			found = strncmp(props[i].layerName, name, SF_VK_MAX_EXTENSION_NAME_SIZE) == 0;
		}
	}
	free(props);
	return found;
}

void sf_instance_init(VkInstance inst) {
	getProps2 = (PFN_vkGetPhysicalDeviceProperties2)gipa(inst, "vkGetPhysicalDeviceProperties2");
	if (!getProps2) {
		getProps2 = (PFN_vkGetPhysicalDeviceProperties2)gipa(inst, "vkGetPhysicalDeviceProperties2KHR");
	}
	getFeatures2 = (PFN_vkGetPhysicalDeviceFeatures2)gipa(inst, "vkGetPhysicalDeviceFeatures2");
	if (!getFeatures2) {
		getFeatures2 = (PFN_vkGetPhysicalDeviceFeatures2)gipa(inst, "vkGetPhysicalDeviceFeatures2KHR");
	}
	createDebugReport = (PFN_vkCreateDebugReportCallbackEXT)gipa(inst, "vkCreateDebugReportCallbackEXT");
	gdpa = (PFN_vkGetDeviceProcAddr)gipa(inst, "vkGetDeviceProcAddr");
	enumDeviceExts = (PFN_vkEnumerateDeviceExtensionProperties)gipa(inst, "vkEnumerateDeviceExtensionProperties");
	getQueueFamilies = (PFN_vkGetPhysicalDeviceQueueFamilyProperties)gipa(inst, "vkGetPhysicalDeviceQueueFamilyProperties");
}

int sf_compute_queue(VkPhysicalDevice pd, uint32_t *family, uint32_t *timestamp_bits) {
	uint32_t n = 0;
	if (!getQueueFamilies) {
		return 0;
	}
	getQueueFamilies(pd, &n, NULL);
	if (n == 0) {
		return 0;
	}
	VkQueueFamilyProperties *qf = calloc(n, sizeof *qf);
	if (!qf) {
		return 0;
	}
	getQueueFamilies(pd, &n, qf);
	int found = 0;
	for (uint32_t i = 0; i < n && !found; i++) {
		if (qf[i].queueFlags & SF_VK_QUEUE_COMPUTE_BIT) {
			*family = i;
			*timestamp_bits = qf[i].timestampValidBits;
			found = 1;
		}
	}
	free(qf);
	return found;
}

int sf_has_device_extension(VkPhysicalDevice pd, const char *name) {
	uint32_t n = 0;
	if (!enumDeviceExts || enumDeviceExts(pd, NULL, &n, NULL) != SF_VK_SUCCESS || n == 0) {
		return 0;
	}
	VkExtensionProperties *props = calloc(n, sizeof *props);
	if (!props) {
		return 0;
	}
	int found = 0;
	if (enumDeviceExts(pd, NULL, &n, props) >= SF_VK_SUCCESS) { // VK_INCOMPLETE is fine
		for (uint32_t i = 0; i < n && !found; i++) {
			found = strncmp(props[i].extensionName, name, SF_VK_MAX_EXTENSION_NAME_SIZE) == 0;
		}
	}
	free(props);
	return found;
}

void sf_query_device(VkPhysicalDevice pd, int want_driver, int want_f16, int want_float_controls, sf_device_info *out) {
	memset(out, 0, sizeof *out);
	if (!getProps2 || !getFeatures2) {
		return;
	}
	VkPhysicalDeviceDriverProperties drv = {SF_VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_DRIVER_PROPERTIES};
	VkPhysicalDeviceFloatControlsProperties fc = {SF_VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FLOAT_CONTROLS_PROPERTIES};
	VkPhysicalDeviceMaintenance3Properties m3 = {SF_VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_MAINTENANCE_3_PROPERTIES};
	VkPhysicalDeviceSubgroupProperties sub = {SF_VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SUBGROUP_PROPERTIES};
	VkPhysicalDeviceProperties2 props = {SF_VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2};
	props.pNext = &sub;
	sub.pNext = &m3;
	if (want_driver) {
		m3.pNext = &drv;
	}
	if (want_float_controls) {
		fc.pNext = props.pNext;
		props.pNext = &fc;
	}
	getProps2(pd, &props);
	out->preserve_nan32 = fc.shaderSignedZeroInfNanPreserveFloat32;
	out->have_props2 = 1;
	out->subgroup_size = sub.subgroupSize;
	out->subgroup_stages = sub.supportedStages;
	out->subgroup_ops = sub.supportedOperations;
	out->have_max_alloc = m3.maxMemoryAllocationSize != 0;
	out->max_alloc = m3.maxMemoryAllocationSize;
	if (want_driver) {
		out->have_driver = 1;
		out->driver_id = drv.driverID;
		memcpy(out->driver_name, drv.driverName, sizeof out->driver_name);
		memcpy(out->driver_info, drv.driverInfo, sizeof out->driver_info);
		out->driver_name[sizeof out->driver_name - 1] = 0;
		out->driver_info[sizeof out->driver_info - 1] = 0;
	}

	VkPhysicalDeviceShaderFloat16Int8Features f16 = {SF_VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_FLOAT16_INT8_FEATURES};
	VkPhysicalDevice16BitStorageFeatures s16 = {SF_VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_16BIT_STORAGE_FEATURES};
	VkPhysicalDeviceFeatures2 feats = {SF_VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2};
	feats.pNext = &s16;
	if (want_f16) {
		s16.pNext = &f16;
	}
	getFeatures2(pd, &feats);
	out->float16 = f16.shaderFloat16;
	out->storage16 = s16.storageBuffer16BitAccess;
}

// The validation log: a ring of the most recent error messages. The layer
// may call back from any thread.
#define SF_LOG_SLOTS 64
#define SF_LOG_LEN 2048
static pthread_mutex_t logMu = PTHREAD_MUTEX_INITIALIZER;
static uint64_t logCount;
static char logRing[SF_LOG_SLOTS][SF_LOG_LEN];

void sf_debug_report(const char *msg) {
	pthread_mutex_lock(&logMu);
	snprintf(logRing[logCount % SF_LOG_SLOTS], SF_LOG_LEN, "%s", msg);
	logCount++;
	pthread_mutex_unlock(&logMu);
}

static VkBool32 onDebugReport(VkFlags flags, int32_t objectType, uint64_t object, size_t location, int32_t code,
	const char *prefix, const char *msg, void *user) {
	(void)objectType, (void)object, (void)location, (void)user;
	if (!(flags & SF_VK_DEBUG_REPORT_ERROR_BIT_EXT)) {
		return 0;
	}
	char buf[SF_LOG_LEN];
	snprintf(buf, sizeof buf, "%s (code %d): %s", prefix ? prefix : "", code, msg ? msg : "");
	sf_debug_report(buf);
	return 1; // skip the faulty call: VK_ERROR_VALIDATION_FAILED_EXT rather than a crash
}

VkResult sf_debug_enable(VkInstance inst) {
	if (!createDebugReport) {
		return -7; // VK_ERROR_EXTENSION_NOT_PRESENT
	}
	VkDebugReportCallbackCreateInfoEXT ci = {SF_VK_STRUCTURE_TYPE_DEBUG_REPORT_CALLBACK_CREATE_INFO_EXT};
	ci.flags = SF_VK_DEBUG_REPORT_ERROR_BIT_EXT;
	ci.pfnCallback = onDebugReport;
	VkDebugReportCallbackEXT cb;
	return createDebugReport(inst, &ci, NULL, &cb);
}

uint64_t sf_debug_count(void) {
	pthread_mutex_lock(&logMu);
	uint64_t n = logCount;
	pthread_mutex_unlock(&logMu);
	return n;
}

int sf_debug_get(uint64_t i, char *buf, int len) {
	int ok = 0;
	pthread_mutex_lock(&logMu);
	if (i < logCount && logCount - i <= SF_LOG_SLOTS) {
		snprintf(buf, len, "%s", logRing[i % SF_LOG_SLOTS]);
		ok = 1;
	}
	pthread_mutex_unlock(&logMu);
	return ok;
}

#define LOAD(field, name)                                                 \
	do {                                                              \
		d->field = (void *)gdpa(dev, name);                       \
		if (!d->field) {                                          \
			*missing = name;                                  \
			free(d);                                          \
			return NULL;                                      \
		}                                                         \
	} while (0)

sf_dev *sf_dev_new(VkDevice dev, VkQueue queue, const char **missing) {
	if (!gdpa) {
		*missing = "vkGetDeviceProcAddr";
		return NULL;
	}
	sf_dev *d = calloc(1, sizeof *d);
	if (!d) {
		*missing = "memory for the device";
		return NULL;
	}
	d->dev = dev;
	d->queue = queue;
	LOAD(allocateDescriptorSets, "vkAllocateDescriptorSets");
	LOAD(updateDescriptorSets, "vkUpdateDescriptorSets");
	LOAD(resetDescriptorPool, "vkResetDescriptorPool");
	LOAD(beginCommandBuffer, "vkBeginCommandBuffer");
	LOAD(endCommandBuffer, "vkEndCommandBuffer");
	LOAD(resetCommandBuffer, "vkResetCommandBuffer");
	LOAD(cmdBindPipeline, "vkCmdBindPipeline");
	LOAD(cmdBindDescriptorSets, "vkCmdBindDescriptorSets");
	LOAD(cmdDispatch, "vkCmdDispatch");
	LOAD(cmdPipelineBarrier, "vkCmdPipelineBarrier");
	LOAD(cmdCopyBuffer, "vkCmdCopyBuffer");
	LOAD(cmdFillBuffer, "vkCmdFillBuffer");
	LOAD(cmdWriteTimestamp, "vkCmdWriteTimestamp");
	LOAD(cmdResetQueryPool, "vkCmdResetQueryPool");
	LOAD(queueSubmit, "vkQueueSubmit");
	LOAD(waitForFences, "vkWaitForFences");
	LOAD(resetFences, "vkResetFences");
	LOAD(getFenceStatus, "vkGetFenceStatus");
	LOAD(getQueryPoolResults, "vkGetQueryPoolResults");
	LOAD(createComputePipelines, "vkCreateComputePipelines");
	LOAD(destroyPipeline, "vkDestroyPipeline");
	return d;
}

void sf_dev_free(sf_dev *d) { free(d); }

int sf_dev_load_push(sf_dev *d) {
	d->cmdPushDescriptorSet = (PFN_vkCmdPushDescriptorSetKHR)gdpa(d->dev, "vkCmdPushDescriptorSetKHR");
	return d->cmdPushDescriptorSet != NULL;
}

uint32_t sf_max_push_descriptors(VkPhysicalDevice pd) {
	if (!getProps2) {
		return 0;
	}
	VkPhysicalDevicePushDescriptorPropertiesKHR push = {SF_VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PUSH_DESCRIPTOR_PROPERTIES_KHR};
	VkPhysicalDeviceProperties2 props = {SF_VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2};
	props.pNext = &push;
	getProps2(pd, &props);
	return push.maxPushDescriptors;
}

VkResult sf_create_pipeline(sf_dev *d, VkShaderModule module, VkPipelineLayout layout, const char *entry, VkPipeline *out) {
	VkComputePipelineCreateInfo ci = {SF_VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO};
	ci.stage.sType = SF_VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO;
	ci.stage.stage = SF_VK_SHADER_STAGE_COMPUTE_BIT;
	ci.stage.module = module;
	ci.stage.pName = entry;
	ci.layout = layout;
	ci.basePipelineIndex = -1;
	return d->createComputePipelines(d->dev, 0, 1, &ci, NULL, out);
}

void sf_destroy_pipeline(sf_dev *d, VkPipeline p) { d->destroyPipeline(d->dev, p, NULL); }

// memoryBarrier records one global memory barrier.
static void memoryBarrier(sf_dev *d, VkCommandBuffer cb, VkFlags srcStage, VkFlags srcAccess, VkFlags dstStage,
	VkFlags dstAccess) {
	VkMemoryBarrier mb = {SF_VK_STRUCTURE_TYPE_MEMORY_BARRIER};
	mb.srcAccessMask = srcAccess;
	mb.dstAccessMask = dstAccess;
	d->cmdPipelineBarrier(cb, srcStage, dstStage, 0, 1, &mb, 0, NULL, 0, NULL);
}

#define WORK_STAGES (SF_VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | SF_VK_PIPELINE_STAGE_TRANSFER_BIT)
#define WORK_ACCESS                                                                      \
	(SF_VK_ACCESS_SHADER_READ_BIT | SF_VK_ACCESS_SHADER_WRITE_BIT | SF_VK_ACCESS_TRANSFER_READ_BIT | \
		SF_VK_ACCESS_TRANSFER_WRITE_BIT)
#define WORK_WRITES (SF_VK_ACCESS_SHADER_WRITE_BIT | SF_VK_ACCESS_TRANSFER_WRITE_BIT)

VkResult sf_begin(sf_dev *d, VkCommandBuffer cb, VkQueryPool qp, uint32_t nquery) {
	VkCommandBufferBeginInfo bi = {SF_VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
	bi.flags = SF_VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
	VkResult r = d->beginCommandBuffer(cb, &bi);
	if (r != SF_VK_SUCCESS) {
		return r;
	}
	if (qp && nquery) {
		d->cmdResetQueryPool(cb, qp, 0, nquery);
	}
	// Writes of earlier submissions on this queue become visible here.
	memoryBarrier(d, cb, WORK_STAGES, WORK_WRITES, WORK_STAGES, WORK_ACCESS);
	return SF_VK_SUCCESS;
}


VkResult sf_alloc_set(sf_dev *d, VkDescriptorPool pool, VkDescriptorSetLayout dsl, VkDescriptorSet *set) {
	VkDescriptorSetAllocateInfo ai = {SF_VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO};
	ai.descriptorPool = pool;
	ai.descriptorSetCount = 1;
	ai.pSetLayouts = &dsl;
	return d->allocateDescriptorSets(d->dev, &ai, set);
}

// fillWrites fills w and info with the bindings of a, for set (0 when pushed).
static uint32_t fillWrites(const sf_dispatch_args *a, VkDescriptorSet set, VkWriteDescriptorSet *w,
	VkDescriptorBufferInfo *info) {
	uint32_t n = a->n < SF_MAX_BINDINGS ? a->n : SF_MAX_BINDINGS;
	for (uint32_t i = 0; i < n; i++) {
		info[i].buffer = a->b[i].buffer;
		info[i].offset = a->b[i].offset;
		info[i].range = a->b[i].range;
		memset(&w[i], 0, sizeof w[i]);
		w[i].sType = SF_VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET;
		w[i].dstSet = set;
		w[i].dstBinding = i;
		w[i].descriptorCount = 1;
		w[i].descriptorType = i == 0 && a->dynamic ? SF_VK_DESCRIPTOR_TYPE_STORAGE_BUFFER_DYNAMIC
							   : SF_VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
		w[i].pBufferInfo = &info[i];
	}
	return n;
}

// writeSet writes the bindings of a (n, b and dynamic) into set.
static void writeSet(sf_dev *d, VkDescriptorSet set, const sf_dispatch_args *a) {
	VkDescriptorBufferInfo info[SF_MAX_BINDINGS];
	VkWriteDescriptorSet w[SF_MAX_BINDINGS];
	uint32_t n = fillWrites(a, set, w, info);
	d->updateDescriptorSets(d->dev, n, w, 0, NULL);
}

VkResult sf_dispatch(sf_dev *d, const sf_dispatch_args *a) {
	VkCommandBuffer cb = a->cb;
	VkDescriptorSet set = a->set;
	if (a->pool) {
		VkResult r = sf_alloc_set(d, a->pool, a->dsl, &set);
		if (r != SF_VK_SUCCESS) {
			return r;
		}
	}
	if (a->pool || a->write) {
		writeSet(d, set, a);
	}
	if (a->barrier) {
		memoryBarrier(d, cb, WORK_STAGES, WORK_WRITES, WORK_STAGES, WORK_ACCESS);
	}
	d->cmdBindPipeline(cb, SF_VK_PIPELINE_BIND_POINT_COMPUTE, a->pipeline);
	if (set) {
		d->cmdBindDescriptorSets(cb, SF_VK_PIPELINE_BIND_POINT_COMPUTE, a->layout, 0, 1, &set, a->dynamic ? 1 : 0,
			&a->dyn_offset);
	} else if (d->cmdPushDescriptorSet) {
		VkDescriptorBufferInfo info[SF_MAX_BINDINGS];
		VkWriteDescriptorSet w[SF_MAX_BINDINGS];
		uint32_t n = fillWrites(a, 0, w, info);
		d->cmdPushDescriptorSet(cb, SF_VK_PIPELINE_BIND_POINT_COMPUTE, a->layout, 0, n, w);
	} else {
		return -13; // VK_ERROR_UNKNOWN: the Go side never asks to push without the extension
	}
	if (a->qp) {
		d->cmdWriteTimestamp(cb, SF_VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT, a->qp, a->query);
	}
	d->cmdDispatch(cb, a->gx, a->gy, a->gz);
	if (a->qp) {
		d->cmdWriteTimestamp(cb, SF_VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, a->qp, a->query + 1);
	}
	return SF_VK_SUCCESS;
}

void sf_copy(sf_dev *d, VkCommandBuffer cb, int barrier, VkBuffer src, VkDeviceSize srcOff, VkBuffer dst,
	VkDeviceSize dstOff, VkDeviceSize size) {
	if (barrier) {
		memoryBarrier(d, cb, WORK_STAGES, WORK_WRITES, WORK_STAGES, WORK_ACCESS);
	}
	VkBufferCopy c = {srcOff, dstOff, size};
	d->cmdCopyBuffer(cb, src, dst, 1, &c);
}

void sf_fill(sf_dev *d, VkCommandBuffer cb, VkBuffer dst, VkDeviceSize off, VkDeviceSize size, uint32_t value) {
	d->cmdFillBuffer(cb, dst, off, size, value);
}

VkResult sf_submit(sf_dev *d, VkCommandBuffer cb, VkFence fence) {
	memoryBarrier(d, cb, WORK_STAGES, WORK_WRITES, SF_VK_PIPELINE_STAGE_HOST_BIT, SF_VK_ACCESS_HOST_READ_BIT);
	VkResult r = d->endCommandBuffer(cb);
	if (r != SF_VK_SUCCESS) {
		return r;
	}
	VkSubmitInfo si = {SF_VK_STRUCTURE_TYPE_SUBMIT_INFO};
	si.commandBufferCount = 1;
	si.pCommandBuffers = &cb;
	return d->queueSubmit(d->queue, 1, &si, fence);
}

VkResult sf_wait(sf_dev *d, VkFence fence, uint64_t timeout) { return d->waitForFences(d->dev, 1, &fence, 1, timeout); }

VkResult sf_fence_status(sf_dev *d, VkFence fence) { return d->getFenceStatus(d->dev, fence); }

VkResult sf_recycle(sf_dev *d, VkCommandBuffer cb, VkFence fence, VkDescriptorPool pool) {
	VkResult r = d->resetFences(d->dev, 1, &fence);
	if (r == SF_VK_SUCCESS) {
		r = d->resetDescriptorPool(d->dev, pool, 0);
	}
	if (r == SF_VK_SUCCESS) {
		r = d->resetCommandBuffer(cb, 0);
	}
	return r;
}

VkResult sf_timestamps(sf_dev *d, VkQueryPool qp, uint32_t n, uint64_t *out) {
	return d->getQueryPoolResults(d->dev, qp, 0, n, (size_t)n * 8, out, 8,
		SF_VK_QUERY_RESULT_64_BIT | SF_VK_QUERY_RESULT_WAIT_BIT);
}
