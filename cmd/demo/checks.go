package main

import (
	"fmt"
	"math"

	"github.com/shaderflow/shaderflow/tensor"
)

// check is one operation run on the device and compared with a result
// computed here on the host.
type check struct {
	name string
	run  func(dev *tensor.Device) (got, want []float32, err error)
}

var demoChecks = []check{
	{"matmul 2x3 @ 3x2", func(dev *tensor.Device) ([]float32, []float32, error) {
		a := tensor.FromFloat32s(dev, []float32{1, 2, 3, 4, 5, 6}, 2, 3)
		b := tensor.FromFloat32s(dev, []float32{7, 8, 9, 10, 11, 12}, 3, 2)
		got, err := a.MatMul(b).Float32s()
		return got, []float32{58, 64, 139, 154}, err
	}},
	{"fused (x*2+1).relu().sum()", func(dev *tensor.Device) ([]float32, []float32, error) {
		x := tensor.FromFloat32s(dev, []float32{-3, -1, 0, 1, 2}, 5)
		got, err := x.MulScalar(2).AddScalar(1).Relu().Sum().Float32s()
		return got, []float32{0 + 0 + 1 + 3 + 5}, err
	}},
	{"softmax of [1 2 3]", func(dev *tensor.Device) ([]float32, []float32, error) {
		x := tensor.FromFloat32s(dev, []float32{1, 2, 3}, 1, 3)
		got, err := x.Softmax(-1).Float32s()
		e := []float64{math.Exp(-2), math.Exp(-1), 1}
		s := e[0] + e[1] + e[2]
		return got, []float32{float32(e[0] / s), float32(e[1] / s), float32(e[2] / s)}, err
	}},
	{"linear+relu+softmax (the README example)", func(dev *tensor.Device) ([]float32, []float32, error) {
		x := tensor.FromFloat32s(dev, []float32{1, -1}, 1, 2)
		w := tensor.FromFloat32s(dev, []float32{1, 0, 2, 0, 1, -1}, 2, 3)
		b := tensor.FromFloat32s(dev, []float32{0, 1, 0}, 3)
		got, err := x.MatMul(w).Add(b).Relu().Softmax(-1).Float32s()
		// logits relu([1, -1+1, 2+1]) = [1, 0, 3]
		e := []float64{math.E, 1, math.Exp(3)}
		s := e[0] + e[1] + e[2]
		return got, []float32{float32(e[0] / s), float32(e[1] / s), float32(e[2] / s)}, err
	}},
}

// checks runs every check and fails on the first wrong result.
func checks(dev *tensor.Device) error {
	fmt.Println("Checks:")
	for _, c := range demoChecks {
		got, want, err := c.run(dev)
		if err != nil {
			return fmt.Errorf("%s: %w", c.name, err)
		}
		if !close(got, want) {
			return fmt.Errorf("%s: got %v, want %v", c.name, got, want)
		}
		fmt.Printf("  ok  %-42s %v\n", c.name, got)
	}
	return nil
}

func close(got, want []float32) bool {
	if len(got) != len(want) {
		return false
	}
	for i := range got {
		if math.Abs(float64(got[i]-want[i])) > 1e-4*(1+math.Abs(float64(want[i]))) {
			return false
		}
	}
	return true
}
