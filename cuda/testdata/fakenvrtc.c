// A fake libnvrtc for tests. Compiling "succeeds" by returning an image the
// fake libcuda accepts: "SFFAKE <arch> <cubin|ptx> builtins=<0|1>\n" and the
// source. SF_FAKE_NVRTC_FAIL=compile fails with a log, =arch fails sm_ targets
// with NVRTC_ERROR_INVALID_OPTION. Options are logged to SF_FAKE_CUDA_LOG.
// Build with -DFAKE_NO_CUBIN to leave out nvrtcGetCUBIN (NVRTC before 11.1).

#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
	char *src, *out, *log;
	int cubin;
} prog_t;

static void logline(const char *a, const char *b) {
	const char *path = getenv("SF_FAKE_CUDA_LOG");
	FILE *f = path && *path ? fopen(path, "a") : NULL;
	if (f) {
		fprintf(f, "%s %s\n", a, b);
		fclose(f);
	}
}

const char *nvrtcGetErrorString(int r) {
	switch (r) {
	case 0: return "NVRTC_SUCCESS";
	case 5: return "NVRTC_ERROR_INVALID_OPTION";
	case 6: return "NVRTC_ERROR_COMPILATION";
	}
	return "NVRTC_ERROR_UNKNOWN";
}

int nvrtcVersion(int *major, int *minor) {
	*major = 13;
	*minor = 0;
	return 0;
}

int nvrtcCreateProgram(prog_t **p, const char *src, const char *name, int nh, const char *const *h,
		       const char *const *inc) {
	*p = calloc(1, sizeof **p);
	(*p)->src = strdup(src);
	logline("nvrtcCreateProgram", name);
	return 0;
}

int nvrtcDestroyProgram(prog_t **p) {
	free((*p)->src);
	free((*p)->out);
	free((*p)->log);
	free(*p);
	*p = NULL;
	return 0;
}

int nvrtcCompileProgram(prog_t *p, int n, const char *const *opts) {
	const char *fail = getenv("SF_FAKE_NVRTC_FAIL");
	const char *arch = "?";
	for (int i = 0; i < n; i++) {
		logline("nvrtcCompileProgram", opts[i]);
		if (strncmp(opts[i], "--gpu-architecture=", 19) == 0) {
			arch = opts[i] + 19;
		}
	}
	if (fail && strcmp(fail, "compile") == 0) {
		p->log = strdup("copy.cu(3): error: identifier \"oops\" is undefined\n1 error detected in the compilation of \"copy.cu\".\n");
		return 6;
	}
	if (fail && strcmp(fail, "arch") == 0 && strncmp(arch, "sm_", 3) == 0) {
		p->log = strdup("");
		return 5;
	}
	p->cubin = strncmp(arch, "sm_", 3) == 0;
	int builtins = dlsym(RTLD_DEFAULT, "sf_fake_builtins_marker") != NULL;
	size_t len = strlen(p->src) + 128;
	p->out = malloc(len);
	snprintf(p->out, len, "SFFAKE %s %s builtins=%d\n%s", arch, p->cubin ? "cubin" : "ptx", builtins, p->src);
	p->log = strdup("");
	return 0;
}

int nvrtcGetProgramLogSize(prog_t *p, size_t *n) {
	*n = p->log ? strlen(p->log) + 1 : 1;
	return 0;
}

int nvrtcGetProgramLog(prog_t *p, char *log) {
	strcpy(log, p->log ? p->log : "");
	return 0;
}

int nvrtcGetPTXSize(prog_t *p, size_t *n) {
	*n = strlen(p->out) + 1;
	return 0;
}

int nvrtcGetPTX(prog_t *p, char *out) {
	strcpy(out, p->out);
	return 0;
}

#ifndef FAKE_NO_CUBIN
// The fake CUBIN is NUL-terminated text too, so the fake driver can read it.
int nvrtcGetCUBINSize(prog_t *p, size_t *n) {
	*n = strlen(p->out) + 1;
	return p->cubin ? 0 : 4;
}

int nvrtcGetCUBIN(prog_t *p, char *out) {
	strcpy(out, p->out);
	return 0;
}
#endif
