package cpu

import (
	"bufio"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync"

	"github.com/shaderflow/shaderflow/cpu/internal/vec"
	"github.com/shaderflow/shaderflow/tensor/device"
)

// simdName names the instruction set the slice kernels use; an assembly layer
// that replaces them updates it.
var simdName = "go"

var (
	hostOnce sync.Once
	host     device.Info
)

// hostInfo describes the host, reading /proc once.
func hostInfo() device.Info {
	hostOnce.Do(func() {
		name := procField("/proc/cpuinfo", "model name")
		if name == "" {
			name = runtime.GOARCH + " cpu"
		}
		mem := int64(0)
		if kb := procField("/proc/meminfo", "MemTotal"); kb != "" {
			f := strings.Fields(kb)
			if n, err := strconv.ParseInt(f[0], 10, 64); err == nil {
				mem = n << 10
			}
		}
		if mem == 0 {
			mem = 8 << 30 // unknown: assume a small machine
		}
		host = device.Info{
			Backend:     Name,
			Name:        name,
			Driver:      "shaderflow cpu (" + runtime.Version() + envNote() + ")",
			Kind:        device.KindCPU,
			MemoryBytes: mem,
			Limits: device.Limits{
				MaxAllocBytes:       mem,
				MaxBindingBytes:     mem,
				MaxBuffersPerKernel: 64,
				SharedMemoryBytes:   1 << 20,
			},
			Features:     device.Features{SIMD: simdName, Timestamps: true},
			DTypes:       device.AllDTypes,
			Accumulators: device.DTypes(device.Float32, device.Int32, device.Int64, device.Float64),
		}
	})
	return host
}

// envNote says, for the driver string, that SHADERFLOW_CPU_ISA was ignored
// and why, or is "" when it was not set or was understood.
func envNote() string {
	if err := vec.EnvError(); err != nil {
		return "; " + vec.EnvVar + " ignored: " + err.Error()
	}
	return ""
}

// procField returns the value after the colon of the first line of a
// /proc-style file that starts with key, or "".
func procField(path, key string) string {
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, key) {
			if i := strings.IndexByte(line, ':'); i >= 0 {
				return strings.TrimSpace(line[i+1:])
			}
		}
	}
	return ""
}
