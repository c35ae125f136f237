package safetensors_test

import (
	"bytes"
	"fmt"

	"github.com/shaderflow/shaderflow/nn/safetensors"
)

// Write and Read work on host tensors; nn.Save and nn.Load move a model's
// state through them.
func Example() {
	var buf bytes.Buffer
	w := safetensors.FromFloat32("weight", safetensors.F32, []int{2, 2}, []float32{1, 2, 3, 4})
	if err := safetensors.Write(&buf, []safetensors.Tensor{w}, map[string]string{"epoch": "3"}); err != nil {
		fmt.Println(err)
		return
	}
	f, err := safetensors.Read(buf.Bytes())
	if err != nil {
		fmt.Println(err)
		return
	}
	t, _ := f.Get("weight")
	vals, _ := t.Float32()
	fmt.Println(f.Names(), t.DType, t.Shape, vals, f.Metadata["epoch"])
	// Output:
	// [weight] F32 [2 2] [1 2 3 4] 3
}
