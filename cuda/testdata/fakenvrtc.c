// A fake libnvrtc for tests. Compiling compiles the CUDA C for the host:
// SF_FAKE_PRELUDE (fakeprelude.h, built in with -D) and the source, plus a
// shim per __global__ function, go through the C++ compiler SF_FAKE_CXX
// (default g++) into a shared library in SF_FAKE_NVRTC_DIR (default /tmp).
// The image is "SFFAKE <arch> <cubin|ptx> builtins=<0|1>\n<library>\n" and
// the source, which the fake libcuda loads; a compiler error is a failed
// compilation with the compiler's messages as the log. SF_FAKE_NVRTC_FAIL=
// compile fails with a canned log, =arch fails sm_ targets with
// NVRTC_ERROR_INVALID_OPTION. Options are logged to SF_FAKE_CUDA_LOG.
// SF_FAKE_NVRTC_CACHE names a directory of compiled kernels, shared by
// processes and kept by content. Build with -DFAKE_NO_CUBIN to leave out
// nvrtcGetCUBIN (NVRTC before 11.1).

#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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

// entry_name reads the identifier after "void " at s into name.
static int entry_name(const char *s, char *name, size_t n) {
	size_t i = 0;
	while (i + 1 < n && (s[i] == '_' || (s[i] >= 'a' && s[i] <= 'z') || (s[i] >= 'A' && s[i] <= 'Z') ||
			     (s[i] >= '0' && s[i] <= '9'))) {
		name[i] = s[i];
		i++;
	}
	name[i] = 0;
	return i > 0;
}

// write_shims appends a shim for every "__global__ void NAME(" and
// "SF_KERNEL void NAME(" of src (the kernels' spellings) to f (the host
// call, the parameter count and each parameter's size, which graph nodes
// need to copy their arguments), and
// sf_fake_barriers, which tells the prelude to run blocks as coroutines.
static void write_shims(FILE *f, const char *src) {
	fprintf(f, "\nextern \"C\" const int sf_fake_barriers = %d;\n",
		strstr(src, "__syncthreads") != NULL || strstr(src, "__shfl") != NULL);
	static const char *marks[] = {"__global__ void ", "SF_KERNEL void "};
	for (int m = 0; m < 2; m++) {
		for (const char *s = src; (s = strstr(s, marks[m])) != NULL;) {
			s += strlen(marks[m]);
			char name[256];
			if (!entry_name(s, name, sizeof name) || s[strlen(name)] != '(') {
				continue;
			}
			fprintf(f, "\nextern \"C\" int %s__sf_host(void **args) { return sf_fake_call(%s, args); }\n", name, name);
			fprintf(f, "extern \"C\" const int %s__sf_nargs = sf_fake_nargs(%s);\n", name, name);
			fprintf(f, "extern \"C\" unsigned long long %s__sf_argsize(int i) { return sf_fake_argsize(%s, i); }\n",
				name, name);
		}
	}
}

// slurp returns a file's bytes (NUL-terminated) and their count, or NULL.
static char *slurp(const char *path, size_t *n) {
	FILE *f = fopen(path, "rb");
	if (!f) {
		return NULL;
	}
	size_t cap = 1 << 16, got = 0;
	char *b = malloc(cap);
	size_t r;
	while ((r = fread(b + got, 1, cap - got - 1, f)) > 0) {
		got += r;
		if (got + 1 == cap) {
			b = realloc(b, cap *= 2);
		}
	}
	fclose(f);
	b[got] = 0;
	*n = got;
	return b;
}

// copy_file copies from to to through a temporary name and a rename, so that
// a concurrent reader sees the whole file or none.
static int copy_file(const char *from, const char *to) {
	size_t n;
	char *b = slurp(from, &n);
	if (!b) {
		return -1;
	}
	char tmp[4096];
	snprintf(tmp, sizeof tmp, "%s.%d.tmp", to, (int)getpid());
	FILE *f = fopen(tmp, "wb");
	int ok = f && fwrite(b, 1, n, f) == n;
	if (f && fclose(f) != 0) {
		ok = 0;
	}
	free(b);
	if (!ok || rename(tmp, to) != 0) {
		unlink(tmp);
		return -1;
	}
	return 0;
}

// fnv1a hashes n bytes of p into h.
static unsigned long long fnv1a(unsigned long long h, const char *p, size_t n) {
	for (size_t i = 0; i < n; i++) {
		h = (h ^ (unsigned char)p[i]) * 1099511628211ull;
	}
	return h;
}

// cache_paths names the cached source and library of the host source in
// text (compiled by cxx with SF_FAKE_PRELUDE) in SF_FAKE_NVRTC_CACHE, or
// returns -1 when no cache is set. The name hashes the compiler, the
// prelude and the source; a hit also compares the whole source.
static int cache_paths(const char *cxx, const char *text, size_t n, char *src, char *lib, size_t size) {
	const char *dir = getenv("SF_FAKE_NVRTC_CACHE");
	if (!dir || !*dir) {
		return -1;
	}
	size_t pn = 0;
	char *prelude = slurp(SF_FAKE_PRELUDE, &pn);
	if (!prelude) {
		return -1;
	}
	unsigned long long h = fnv1a(14695981039346656037ull, cxx, strlen(cxx) + 1);
	h = fnv1a(fnv1a(h, prelude, pn), text, n);
	free(prelude);
	snprintf(src, size, "%s/%016llx.cpp", dir, h);
	snprintf(lib, size, "%s/%016llx.so", dir, h);
	return 0;
}

// host_compile compiles p's source for the host into a shared library
// whose path it writes to lib; on failure it sets p->log and returns -1.
// With SF_FAKE_NVRTC_CACHE set, a source compiled before (by any process)
// is copied from the cache instead: a copy, so that each module loads its
// own library.
static int host_compile(prog_t *p, char *lib, size_t n) {
	static int serial;
	const char *dir = getenv("SF_FAKE_NVRTC_DIR"), *cxx = getenv("SF_FAKE_CXX");
	if (!dir || !*dir) {
		dir = "/tmp";
	}
	if (!cxx || !*cxx) {
		cxx = "g++";
	}
	char src[4096], log[4096], cmd[16384];
	snprintf(src, sizeof src, "%s/sffake-%d-%d.cpp", dir, (int)getpid(), serial);
	snprintf(lib, n, "%s/sffake-%d-%d.so", dir, (int)getpid(), serial);
	snprintf(log, sizeof log, "%s/sffake-%d-%d.log", dir, (int)getpid(), serial);
	serial++;
	FILE *f = fopen(src, "w");
	if (!f) {
		p->log = strdup("fake nvrtc: cannot write the host source\n");
		return -1;
	}
	fprintf(f, "#include \"%s\"\n#line 1 \"program.cu\"\n%s\n", SF_FAKE_PRELUDE, p->src);
	write_shims(f, p->src);
	fclose(f);
	// The source as given, for tests that compile it with clang too.
	char cu[4096];
	snprintf(cu, sizeof cu, "%s/sffake-%d-%d.cu", dir, (int)getpid(), serial - 1);
	if ((f = fopen(cu, "w")) != NULL) {
		fputs(p->src, f);
		fclose(f);
	}
	size_t tn = 0;
	char *text = slurp(src, &tn);
	char csrc[4096], clib[4096];
	int cached = text && cache_paths(cxx, text, tn, csrc, clib, sizeof csrc) == 0;
	if (cached) {
		size_t cn = 0;
		char *was = slurp(csrc, &cn);
		int hit = was && cn == tn && memcmp(was, text, tn) == 0 && copy_file(clib, lib) == 0;
		free(was);
		if (hit) {
			free(text);
			logline("host compile", "cached");
			return 0;
		}
	}
	snprintf(cmd, sizeof cmd, "'%s' -std=c++17 -shared -fPIC -O1 -w -o '%s' '%s' >'%s' 2>&1", cxx, lib, src, log);
	int rc = system(cmd);
	logline("host compile", rc == 0 ? "ok" : "failed");
	if (rc == 0) {
		// The library first: a cached source promises its library.
		if (cached && copy_file(lib, clib) == 0) {
			copy_file(src, csrc);
		}
		free(text);
		return 0;
	}
	free(text);
	FILE *l = fopen(log, "r");
	size_t cap = 1 << 16, got = 0;
	p->log = calloc(1, cap);
	if (l) {
		got = fread(p->log, 1, cap - 1, l);
		fclose(l);
	}
	p->log[got] = 0;
	return -1;
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
	char lib[4096];
	if (host_compile(p, lib, sizeof lib)) {
		return 6;
	}
	int builtins = dlsym(RTLD_DEFAULT, "sf_fake_builtins_marker") != NULL;
	size_t len = strlen(p->src) + strlen(lib) + 128;
	p->out = malloc(len);
	snprintf(p->out, len, "SFFAKE %s %s builtins=%d\n%s\n%s", arch, p->cubin ? "cubin" : "ptx", builtins, lib, p->src);
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
