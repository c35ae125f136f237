package tensor_test

import (
	"sync"
	"testing"

	"github.com/shaderflow/shaderflow/tensor"
	"github.com/stretchr/testify/require"
)

func TestNilTensorMethodsAreUsageErrors(t *testing.T) {
	var x *tensor.Tensor
	for name, fn := range map[string]func(){
		"Float32s":    func() { _, _ = x.Float32s() },
		"Int32s":      func() { _, _ = x.Int32s() },
		"Bools":       func() { _, _ = x.Bools() },
		"Bytes":       func() { _, _ = x.Bytes() },
		"Item":        func() { _, _ = x.Item() },
		"Realize":     func() { _ = x.Realize() },
		"Shape":       func() { x.Shape() },
		"DType":       func() { x.DType() },
		"Device":      func() { x.Device() },
		"NumElements": func() { x.NumElements() },
		"Dim":         func() { x.Dim() },
		"AddScalar":   func() { x.AddScalar(1) },
		"zero Tensor": func() { _, _ = new(tensor.Tensor).Float32s() },
	} {
		t.Run(name, func(t *testing.T) { requireUsage(t, fn) })
	}
	require.Equal(t, "Tensor(nil)", x.String())
}

func TestItemOfInt32IsExact(t *testing.T) {
	dev := openCPU(t)
	for _, v := range []int32{1<<24 + 1, 1<<31 - 1, -(1<<31 - 1)} {
		got, err := tensor.FromInt32s(dev, []int32{v}, 1).Item()
		require.NoError(t, err)
		require.Equal(t, float64(v), got)
	}
}

// TestScopesOnSeveralGoroutines ends scopes on one goroutine while another
// creates and uses tensors: a scope releases every tensor created while it
// is open, so the other goroutine's tensors may be released under it, which
// must show as a UsageError naming the scope (never a data race or a wrong
// value). Run it with -race.
func TestScopesOnSeveralGoroutines(t *testing.T) {
	dev := openCPU(t)
	var wg sync.WaitGroup
	wg.Add(2)
	go func() {
		defer wg.Done()
		for range 3000 {
			dev.Scope(func() { tensor.Zeros(dev, 1) })
		}
	}()
	errs := make(chan error, 3000)
	go func() {
		defer wg.Done()
		for i := range 3000 {
			if err := tensor.Catch(func() {
				x := tensor.Full(dev, float64(i), 2).AddScalar(1)
				for range 4 {
					if v, err := x.Float32s(); err == nil {
						require.Equal(t, []float32{float32(i + 1), float32(i + 1)}, v)
					} else {
						errs <- err
					}
				}
			}); err != nil {
				errs <- err
			}
		}
	}()
	wg.Wait()
	close(errs)
	for err := range errs {
		require.ErrorContains(t, err, "Scope")
	}
}
