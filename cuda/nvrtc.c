//go:build cgo && linux

// NVRTC: loading the library and compiling one program to CUBIN or PTX,
// returning the compiler's log on failure.

#include "native.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>

sf_nvrtc_api *sf_nvrtc_load(const char *path, const char *builtins, char *err, int errlen) {
	if (builtins && *builtins) {
		// NVRTC dlopens its builtins by soname; loading them first from
		// the same directory makes that find them without LD_LIBRARY_PATH.
		if (!dlopen(builtins, RTLD_NOW | RTLD_GLOBAL)) {
			const char *m = dlerror();
			snprintf(err, errlen, "%s", m ? m : "dlopen of the NVRTC builtins failed");
			return NULL;
		}
	}
	void *lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	if (!lib) {
		const char *m = dlerror();
		snprintf(err, errlen, "%s", m ? m : "dlopen failed");
		return NULL;
	}
	sf_nvrtc_api *a = calloc(1, sizeof *a);
	if (!a) {
		snprintf(err, errlen, "out of host memory");
		return NULL;
	}
	a->lib = lib;
	struct {
		const char *name;
		void **slot;
		int optional;
	} e[] = {
		{"nvrtcGetErrorString", (void **)&a->nvrtcGetErrorString, 0},
		{"nvrtcVersion", (void **)&a->nvrtcVersion, 0},
		{"nvrtcCreateProgram", (void **)&a->nvrtcCreateProgram, 0},
		{"nvrtcDestroyProgram", (void **)&a->nvrtcDestroyProgram, 0},
		{"nvrtcCompileProgram", (void **)&a->nvrtcCompileProgram, 0},
		{"nvrtcGetProgramLogSize", (void **)&a->nvrtcGetProgramLogSize, 0},
		{"nvrtcGetProgramLog", (void **)&a->nvrtcGetProgramLog, 0},
		{"nvrtcGetPTXSize", (void **)&a->nvrtcGetPTXSize, 0},
		{"nvrtcGetPTX", (void **)&a->nvrtcGetPTX, 0},
		{"nvrtcGetCUBINSize", (void **)&a->nvrtcGetCUBINSize, 1},
		{"nvrtcGetCUBIN", (void **)&a->nvrtcGetCUBIN, 1},
	};
	for (size_t i = 0; i < sizeof e / sizeof e[0]; i++) {
		*e[i].slot = dlsym(lib, e[i].name);
		if (!*e[i].slot && !e[i].optional) {
			snprintf(err, errlen, "%s has no %s", path, e[i].name);
			free(a);
			return NULL;
		}
	}
	if (!a->nvrtcGetCUBINSize || !a->nvrtcGetCUBIN) {
		a->nvrtcGetCUBINSize = NULL;
		a->nvrtcGetCUBIN = NULL;
	}
	return a;
}

const char *sf_nvrtc_error_string(sf_nvrtc_api *a, int code) { return a->nvrtcGetErrorString(code); }

sf_status sf_nvrtc_version(sf_nvrtc_api *a, int *major, int *minor) {
	int r = a->nvrtcVersion(major, minor);
	return (sf_status){r, r ? "nvrtcVersion" : NULL};
}

// take copies a program's log or output into a malloc'd, NUL-terminated buffer.
static sf_status take(nvrtcProgram p, sf_pfn_nvrtcGetSize size, sf_pfn_nvrtcGetBytes get, const char *sizeCall,
		      const char *getCall, char **out, size_t *outlen) {
	size_t n = 0;
	int r = size(p, &n);
	if (r) {
		return (sf_status){r, sizeCall};
	}
	char *buf = malloc(n + 1);
	if (!buf) {
		return (sf_status){1, sizeCall}; // NVRTC_ERROR_OUT_OF_MEMORY
	}
	r = get(p, buf);
	if (r) {
		free(buf);
		return (sf_status){r, getCall};
	}
	buf[n] = 0;
	*out = buf;
	if (outlen) {
		*outlen = n;
	}
	return (sf_status){0, NULL};
}

sf_status sf_nvrtc_compile(sf_nvrtc_api *a, const char *src, const char *name, const char *const *opts, int nopts,
			   int cubin, char **out, size_t *outlen, char **log) {
	*out = NULL;
	*log = NULL;
	nvrtcProgram p = NULL;
	int r = a->nvrtcCreateProgram(&p, src, name, 0, NULL, NULL);
	if (r) {
		return (sf_status){r, "nvrtcCreateProgram"};
	}
	sf_status st = {0, NULL};
	r = a->nvrtcCompileProgram(p, nopts, opts);
	if (r) {
		st = (sf_status){r, "nvrtcCompileProgram"};
		take(p, a->nvrtcGetProgramLogSize, a->nvrtcGetProgramLog, "nvrtcGetProgramLogSize", "nvrtcGetProgramLog",
		     log, NULL);
	} else if (cubin && a->nvrtcGetCUBIN) {
		st = take(p, a->nvrtcGetCUBINSize, a->nvrtcGetCUBIN, "nvrtcGetCUBINSize", "nvrtcGetCUBIN", out, outlen);
	} else {
		st = take(p, a->nvrtcGetPTXSize, a->nvrtcGetPTX, "nvrtcGetPTXSize", "nvrtcGetPTX", out, outlen);
	}
	a->nvrtcDestroyProgram(&p);
	return st;
}
