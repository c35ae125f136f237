package cuda

import (
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// The environment variables that name a library explicitly; when one is set
// only that file is tried.
const (
	EnvDriver = "SHADERFLOW_CUDA_DRIVER"
	EnvNVRTC  = "SHADERFLOW_CUDA_NVRTC"
	EnvCuBLAS = "SHADERFLOW_CUDA_CUBLAS"
)

// library describes where one CUDA library may be found.
type library struct {
	env     string   // the variable naming the file
	sonames []string // tried in order, newest first
	wheels  []string // directories under site-packages that NVIDIA's wheels use
	toolkit bool     // whether the toolkit's directories can hold it
}

var (
	driverLib = library{env: EnvDriver, sonames: []string{"libcuda.so.1"}}
	nvrtcLib  = library{
		env:     EnvNVRTC,
		sonames: []string{"libnvrtc.so.13", "libnvrtc.so.12"},
		wheels:  []string{"nvidia/cu13/lib", "nvidia/cuda_nvrtc/lib"},
		toolkit: true,
	}
	cublasLib = library{
		env:     EnvCuBLAS,
		sonames: []string{"libcublas.so.13", "libcublas.so.12"},
		wheels:  []string{"nvidia/cu13/lib", "nvidia/cublas/lib"},
		toolkit: true,
	}
)

// searchEnv is what the search reads from the system, so tests can fake it.
type searchEnv struct {
	getenv func(string) string
	glob   func(string) ([]string, error)
}

// hostEnv reads the real environment and file system.
var hostEnv = searchEnv{getenv: os.Getenv, glob: filepath.Glob}

// toolkitDirs are the CUDA toolkit's and the container runtime's directories.
var toolkitDirs = []string{
	"/usr/local/cuda/targets/*/lib",
	"/usr/local/cuda-*/targets/*/lib",
	"/usr/local/cuda/lib64",
	"/usr/local/cuda-*/lib64",
}

// driverDirs hold libcuda where the dynamic linker may not look.
var driverDirs = []string{"/usr/local/nvidia/lib64", "/usr/local/nvidia/lib", "/usr/lib/wsl/lib"}

// sitePackages returns the Python package directories found without running
// Python: system, /usr/local, the user's, and an active virtualenv or conda.
func (e searchEnv) sitePackages() []string {
	pats := []string{
		"/usr/lib/python3*/site-packages",
		"/usr/lib/python3/dist-packages",
		"/usr/local/lib/python3*/dist-packages",
		"/usr/local/lib/python3*/site-packages",
	}
	if h := e.getenv("HOME"); h != "" {
		pats = append(pats, filepath.Join(h, ".local/lib/python3*/site-packages"))
	}
	for _, v := range []string{"VIRTUAL_ENV", "CONDA_PREFIX"} {
		if p := e.getenv(v); p != "" {
			pats = append(pats, filepath.Join(p, "lib/python3*/site-packages"))
		}
	}
	return e.globAll(pats)
}

// globAll expands the patterns in order, each one's matches sorted newest
// (lexically greatest) first, without duplicates.
func (e searchEnv) globAll(pats []string) []string {
	var out []string
	seen := map[string]bool{}
	for _, p := range pats {
		m, _ := e.glob(p)
		sort.Sort(sort.Reverse(sort.StringSlice(m)))
		for _, x := range m {
			if !seen[x] {
				seen[x] = true
				out = append(out, x)
			}
		}
	}
	return out
}

// candidates lists the files to try for lib, in order: the environment
// variable's file alone when it is set; otherwise the bare sonames (the
// dynamic linker's own search), then each soname in the toolkit's, the
// container runtime's and the Python wheels' directories where it exists.
func (e searchEnv) candidates(lib library) []string {
	if p := e.getenv(lib.env); p != "" {
		return []string{p}
	}
	out := append([]string{}, lib.sonames...)
	var dirs []string
	if lib.toolkit {
		dirs = append(dirs, toolkitDirs...)
	}
	dirs = append(dirs, driverDirs...)
	var pats []string
	for _, d := range dirs {
		for _, s := range lib.sonames {
			pats = append(pats, filepath.Join(d, s))
		}
	}
	for _, sp := range e.sitePackages() {
		for _, w := range lib.wheels {
			for _, s := range lib.sonames {
				pats = append(pats, filepath.Join(sp, w, s))
			}
		}
	}
	return append(out, e.globAll(pats)...)
}

// nvrtcBuiltins returns the libnvrtc-builtins of the same major version in
// the directory of nvrtcPath, or "" when nvrtcPath is a bare soname (the
// dynamic linker then finds both the same way) or none is there.
func (e searchEnv) nvrtcBuiltins(nvrtcPath string) string {
	if !strings.ContainsRune(nvrtcPath, '/') {
		return ""
	}
	major := ""
	if i := strings.Index(filepath.Base(nvrtcPath), ".so."); i >= 0 {
		major = strings.SplitN(filepath.Base(nvrtcPath)[i+4:], ".", 2)[0]
	}
	pat := filepath.Join(filepath.Dir(nvrtcPath), "libnvrtc-builtins.so")
	if major != "" {
		pat += "." + major + "*"
	} else {
		pat += "*"
	}
	if m := e.globAll([]string{pat}); len(m) > 0 {
		return m[0]
	}
	return ""
}
