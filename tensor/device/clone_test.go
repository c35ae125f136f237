package device

import (
	"reflect"
	"testing"

	"github.com/stretchr/testify/require"
)

type fakeBuffer struct{ n int64 }

func (b *fakeBuffer) Bytes() int64 { return b.n }

// fill sets every field reachable from v to a distinct non-zero value, with
// slices of two elements, so that a Clone that forgets a field or shares a
// slice shows.
func fill(v reflect.Value, next *int) {
	*next++
	switch v.Kind() {
	case reflect.Struct:
		for i := range v.NumField() {
			fill(v.Field(i), next)
		}
	case reflect.Slice:
		v.Set(reflect.MakeSlice(v.Type(), 2, 2))
		for i := range 2 {
			fill(v.Index(i), next)
		}
	case reflect.Array:
		for i := range v.Len() {
			fill(v.Index(i), next)
		}
	case reflect.Interface:
		v.Set(reflect.ValueOf(&fakeBuffer{n: int64(*next)}))
	case reflect.Bool:
		v.SetBool(true)
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		v.SetInt(int64(*next % 100))
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		v.SetUint(uint64(*next % 100))
	case reflect.Float32, reflect.Float64:
		v.SetFloat(float64(*next) + 0.5)
	default:
		panic("fill: unhandled kind " + v.Kind().String())
	}
}

// sharedSlice returns the path of a slice of b that shares memory with the
// same slice of a, or "".
func sharedSlice(a, b reflect.Value, path string) string {
	switch a.Kind() {
	case reflect.Struct:
		for i := range a.NumField() {
			if p := sharedSlice(a.Field(i), b.Field(i), path+"."+a.Type().Field(i).Name); p != "" {
				return p
			}
		}
	case reflect.Slice:
		if a.Len() > 0 && b.Len() > 0 && a.Index(0).Addr().Pointer() == b.Index(0).Addr().Pointer() {
			return path
		}
		for i := range min(a.Len(), b.Len()) {
			if p := sharedSlice(a.Index(i), b.Index(i), path+"[]"); p != "" {
				return p
			}
		}
	case reflect.Array:
		for i := range a.Len() {
			if p := sharedSlice(a.Index(i), b.Index(i), path+"[]"); p != "" {
				return p
			}
		}
	}
	return ""
}

func TestCloneCopiesEveryFieldAndSharesNoSlice(t *testing.T) {
	kernels := []any{
		&ElementwiseKernel{}, &ReduceKernel{}, &MatMulKernel{}, &ConvKernel{}, &PoolKernel{},
		&GatherKernel{}, &ScatterKernel{}, &CopyKernel{}, &SoftmaxKernel{}, &SoftmaxBackwardKernel{},
		&NormalizeKernel{}, &NormalizeBackwardKernel{}, &AttentionKernel{}, &AttentionBackwardKernel{},
		&SortKernel{}, &CumsumKernel{},
	}
	for _, k := range kernels {
		next := 0
		fill(reflect.ValueOf(k).Elem(), &next)
		c := reflect.ValueOf(k).MethodByName("Clone").Call(nil)[0]
		name := reflect.TypeOf(k).Elem().Name()
		require.True(t, reflect.DeepEqual(k, c.Interface()), "%s.Clone differs from the original", name)
		require.Empty(t, sharedSlice(reflect.ValueOf(k).Elem(), c.Elem(), name), "%s.Clone shares a slice", name)
		// Appending to a cloned slice must not write into another one.
		require.Empty(t, sharedSlice(c.Elem(), reflect.ValueOf(k).Elem(), name))
	}
}
