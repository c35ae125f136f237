//go:build cgo && linux

package cuda

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/shaderflow/shaderflow/gpu/gputest"
)

// TestPoolKernels runs the shared GPU pooling tests (max and average, 1-,
// 2- and 3-D, padding, dilation, adaptive windows, with and without
// count_include_pad, indices, forward and backward, NaN and infinities
// mixed into max pooling's input) on generated CUDA C through the fake
// driver, then compiles every generated source with clang-19 for sm_80 and
// sm_90.
func TestPoolKernels(t *testing.T) {
	f := buildFake(t, nil, nil)
	d := f.open(t, 1<<20)
	gputest.RunKinds(t, d, "Pool")
	assert.Equal(t, f.count(t, "nvrtcCreateProgram pool.cu"), len(d.programs), "one compilation per signature")
	t.Run("PTX", func(t *testing.T) { compileSourcesToPTX(t, generatedSources(t, f, plEntry), plEntry) })
}
