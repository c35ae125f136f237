package main

import (
	"fmt"
	"time"

	"github.com/shaderflow/shaderflow/tensor"
	"github.com/shaderflow/shaderflow/tensor/bench"
	"github.com/shaderflow/shaderflow/tensor/device"
)

// measure times a matmul and an elementwise add on the device, warm-up
// excluded and the device synchronized before each clock stop.
func measure(dev *tensor.Device) error {
	label := ""
	if dev.Info().Kind == device.KindSoftwareGPU {
		label = " (software-emulated GPU: these are CPU numbers)"
	}
	fmt.Printf("Speed%s:\n", label)
	const n = 512
	a, b := tensor.Randn(dev, n, n), tensor.Randn(dev, n, n)
	if err := tensor.Realize(a, b); err != nil {
		return err
	}
	opt := bench.Options{Warmup: 2, Iterations: 10, MaxTime: 3 * time.Second, Sync: dev.Sync, Flops: 2 * n * n * n}
	r, err := bench.Run(fmt.Sprintf("matmul %d³", n), opt, func() error {
		var err error
		dev.Scope(func() { err = a.MatMul(b).Realize() })
		return err
	})
	if err != nil {
		return err
	}
	fmt.Printf("  %-22s median %-10v %8.1f GFLOP/s\n", r.Name, r.Median, r.GFLOPPerSec())

	const m = 1 << 22
	x, y := tensor.Rand(dev, m), tensor.Rand(dev, m)
	if err := tensor.Realize(x, y); err != nil {
		return err
	}
	opt = bench.Options{Warmup: 2, Iterations: 20, MaxTime: 3 * time.Second, Sync: dev.Sync, Bytes: 3 * 4 * m}
	r, err = bench.Run("add 4M float32", opt, func() error {
		var err error
		dev.Scope(func() { err = x.Add(y).Realize() })
		return err
	})
	if err != nil {
		return err
	}
	fmt.Printf("  %-22s median %-10v %8.1f GB/s\n", r.Name, r.Median, r.GBPerSec())
	return nil
}
