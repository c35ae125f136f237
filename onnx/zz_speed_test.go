package onnx

import (
	"os"
	"testing"
	"time"

	"github.com/shaderflow/shaderflow/tensor"
)

func TestZZSpeed(t *testing.T) {
	path := os.Getenv("ZZ_MODEL")
	if path == "" {
		t.Skip()
	}
	dev := openBackend(t, "cpu")
	m, err := Load(dev, path)
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range []int{1, 32} {
		x := tensor.Randn(dev, b, 3, 224, 224)
		x.Realize()
		var ts []time.Duration
		for i := 0; i < 6; i++ {
			t0 := time.Now()
			dev.Scope(func() {
				outs, err := m.Run(x)
				if err != nil {
					t.Fatal(err)
				}
				_ = outs
			})
			dev.Sync()
			ts = append(ts, time.Since(t0))
		}
		t.Logf("batch %d: %v", b, ts)
	}
}
