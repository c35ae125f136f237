//go:build cgo

package vulkan_test

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/shaderflow/shaderflow/gpu/gputest"
	"github.com/shaderflow/shaderflow/tensor"
	"github.com/shaderflow/shaderflow/tensor/profiler"
)

// TestProfilerDeviceTimes runs a chain of dependent kernels through the
// tensor front end with the profiler on: every kernel's device time (from
// timestamp queries) reaches the summary next to its host time, and the
// trace's device lane holds the kernels in launch order, each starting after
// its host launch began.
func TestProfilerDeviceTimes(t *testing.T) {
	dev, err := tensor.Open("vulkan")
	if err != nil {
		if gputest.Required("vulkan") {
			t.Fatal(err)
		}
		t.Skip(err)
	}
	defer dev.Close()
	if !dev.Info().Features.Timestamps {
		t.Skipf("%s has no timestamps", dev.Info().Name)
	}
	prof := dev.Profiler()
	prof.SetEnabled(true)
	x := tensor.Randn(dev, 64, 48)
	w := tensor.Randn(dev, 48, 32)
	y := x.MatMul(w).Relu()
	for range 5 {
		y = y.Mul(y).Add(y).Sum(1).Unsqueeze(1).Add(y) // reduce then elementwise, each waiting for the last
	}
	_, err = y.Float32s()
	require.NoError(t, err)

	var kernels int
	for _, r := range prof.Rows() {
		if r.Category != "kernel" {
			continue
		}
		kernels += r.Count
		assert.Equal(t, r.Count, r.DeviceCount, "%s: one device time per launch", r.Name)
		assert.Positive(t, r.DeviceMin, "%s", r.Name)
		assert.LessOrEqual(t, r.DeviceMin, r.DeviceMean, "%s", r.Name)
		assert.LessOrEqual(t, r.DeviceMean, r.DeviceMax, "%s", r.Name)
	}
	assert.GreaterOrEqual(t, kernels, 6) // the matmul and five reductions at least
	var sum bytes.Buffer
	require.NoError(t, prof.WriteSummary(&sum))
	t.Log("\n" + sum.String())
	assert.Contains(t, sum.String(), "dev total")

	var buf bytes.Buffer
	require.NoError(t, prof.WriteChromeTrace(&buf))
	var trace struct {
		TraceEvents []struct {
			Name, Ph string
			Ts, Dur  float64
			Tid      int
		}
	}
	require.NoError(t, json.Unmarshal(buf.Bytes(), &trace))
	var host, device []string
	var hostStart, deviceStart []float64
	for _, e := range trace.TraceEvents {
		switch {
		case e.Ph != "X":
		case e.Tid >= profiler.DeviceLane:
			assert.Positive(t, e.Dur, "%s", e.Name)
			device, deviceStart = append(device, e.Name), append(deviceStart, e.Ts)
		default:
			host, hostStart = append(host, e.Name), append(hostStart, e.Ts)
		}
	}
	require.Equal(t, host, device, "the device ran the kernels in launch order")
	for i := range device {
		assert.GreaterOrEqual(t, deviceStart[i], hostStart[i], "kernel %d (%s) starts on the device before its launch", i, device[i])
		if i > 0 {
			assert.GreaterOrEqual(t, deviceStart[i], deviceStart[i-1], "kernel %d (%s)", i, device[i])
		}
	}
}
