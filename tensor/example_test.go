package tensor_test

import (
	"fmt"

	_ "github.com/shaderflow/shaderflow/cpu" // registers the cpu backend
	"github.com/shaderflow/shaderflow/tensor"
)

// Operations are recorded and run when a result is read; printing a tensor
// reads it.
func Example() {
	dev, err := tensor.Open("cpu")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer dev.Close()

	x := tensor.FromFloat32s(dev, []float32{1, 2, 3, 4}, 2, 2)
	y := x.MatMul(x.T()).AddScalar(1).Relu() // one fused kernel, not yet run
	fmt.Println(y)
	sum, err := y.Sum().Item()
	fmt.Println(sum, err)
	// Output:
	// tensor([[ 6., 12.],
	//         [12., 26.]], device=cpu:0)
	// 56 <nil>
}

// Backward fills the gradients of the leaves that require them.
func ExampleTensor_Backward() {
	dev := tensor.MustOpen("cpu")
	defer dev.Close()

	w := tensor.FromFloat32s(dev, []float32{1, 2, 3}).SetRequiresGrad(true)
	loss := w.Mul(w).Sum() // d/dw = 2w
	if err := loss.Backward(); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(w.Grad())
	// Output:
	// tensor([2., 4., 6.], device=cpu:0)
}

// ScopeErr releases every tensor a step creates, except those kept, and
// returns the step's error.
func ExampleDevice_ScopeErr() {
	dev := tensor.MustOpen("cpu")
	defer dev.Close()

	var total *tensor.Tensor
	err := dev.ScopeErr(func() error {
		x := tensor.Arange(dev, 0, 4, 1)
		total = x.Sum().Keep() // survives the scope; x does not
		return total.Realize()
	})
	fmt.Println(total, err)
	// Output:
	// tensor(6., device=cpu:0) <nil>
}

// To copies a tensor to another device; MoveTo moves it in place.
func ExampleTensor_To() {
	a, b := tensor.MustOpen("cpu"), tensor.MustOpen("cpu") // two independent devices
	defer a.Close()
	defer b.Close()

	x := tensor.FromInt32s(a, []int32{1, 2, 3}, 3)
	y, err := x.To(b)
	fmt.Println(y, err, y.Device() == b)
	// Output:
	// tensor([1, 2, 3], device=cpu:0, dtype=int32) <nil> true
}
