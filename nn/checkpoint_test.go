package nn_test

import (
	"encoding/binary"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/shaderflow/shaderflow/nn"
	"github.com/shaderflow/shaderflow/nn/internal/nntest"
	"github.com/shaderflow/shaderflow/nn/safetensors"
	"github.com/shaderflow/shaderflow/tensor"
	"github.com/shaderflow/shaderflow/tensor/device"
	"github.com/stretchr/testify/require"
)

// smallNet is a model with parameters of several shapes and buffers.
func smallNet(dev *tensor.Device, seed uint64) *nn.Sequential {
	g := nn.WithGenerator(tensor.NewGenerator(seed))
	return nn.NewSequential(
		nn.NewConv2d(dev, 1, 2, 3, g),
		nn.NewBatchNorm2d(dev, 2),
		nn.NewReLU(),
		nn.NewFlatten(),
		nn.NewLinear(dev, 2*4*4, 3, g),
	)
}

// stateValues reads every state tensor of m.
func stateValues(t *testing.T, m nn.Module) map[string][]float32 {
	out := map[string][]float32{}
	for _, n := range nn.StateDict(m) {
		out[n.Name] = nntest.Values(t, n.Tensor)
	}
	return out
}

func TestSaveLoadRoundTrip(t *testing.T) {
	nntest.ForEachBackend(t, func(t *testing.T, dev *tensor.Device) {
		r := nntest.Rand(t)
		a := smallNet(dev, 1)
		a.Forward(randn(dev, r, 4, 1, 6, 6).T) // moves the running statistics
		path := filepath.Join(t.TempDir(), "a.safetensors")
		require.NoError(t, nn.Save(path, a, nn.WithMetadata(map[string]string{"epoch": "3"})))

		f, err := safetensors.ReadFile(path)
		require.NoError(t, err)
		require.Equal(t, map[string]string{"format": "pt", "epoch": "3"}, f.Metadata)
		nbt, ok := f.Get("1.num_batches_tracked")
		require.True(t, ok)
		require.Equal(t, safetensors.I32, nbt.DType)
		require.Empty(t, nbt.Shape)

		b := smallNet(dev, 2)
		require.NotEqual(t, stateValues(t, a), stateValues(t, b))
		require.NoError(t, nn.Load(path, b))
		require.Equal(t, stateValues(t, a), stateValues(t, b))
		for _, p := range nn.Parameters(b) {
			require.True(t, p.RequiresGrad(), "loading keeps parameters trainable")
		}
	})
}

func TestSaveAsHalfPrecision(t *testing.T) {
	dev := nntest.CPU(t)
	a := smallNet(dev, 1)
	want := stateValues(t, a)
	for _, c := range []struct {
		dt    tensor.DType
		sdt   safetensors.DType
		round func(float32) float32
	}{
		{tensor.Float16, safetensors.F16, func(v float32) float32 { return device.Float16ToFloat32(device.Float32ToFloat16(v)) }},
		{tensor.BFloat16, safetensors.BF16, func(v float32) float32 { return device.BFloat16ToFloat32(device.Float32ToBFloat16(v)) }},
	} {
		path := filepath.Join(t.TempDir(), c.dt.String()+".safetensors")
		require.NoError(t, nn.Save(path, a, nn.SaveAs(c.dt)))
		f, err := safetensors.ReadFile(path)
		require.NoError(t, err)
		w, _ := f.Get("0.weight")
		require.Equal(t, c.sdt, w.DType)
		nbt, _ := f.Get("1.num_batches_tracked")
		require.Equal(t, safetensors.I32, nbt.DType, "integers keep their type")

		b := smallNet(dev, 2)
		require.NoError(t, nn.Load(path, b))
		for name, vals := range stateValues(t, b) {
			for i, v := range vals {
				require.Equal(t, c.round(want[name][i]), v, "%s %s[%d]", c.dt, name, i)
			}
		}

		// Into a half-precision tensor: the stored bits as they are.
		h := tensor.FromFloat32sAs(dev, c.dt, make([]float32, 2*1*3*3), 2, 1, 3, 3)
		require.NoError(t, nn.LoadTensors(path, []nn.Named{{Name: "0.weight", Tensor: h}}, nn.AllowUnexpected()))
		got := nntest.Values(t, h)
		for i, v := range got {
			require.Equal(t, c.round(want["0.weight"][i]), v)
		}
	}
}

// writeFile writes tensors as a safetensors file and returns its path.
func writeFile(t *testing.T, ts ...safetensors.Tensor) string {
	path := filepath.Join(t.TempDir(), "x.safetensors")
	require.NoError(t, safetensors.WriteFile(path, ts, nil))
	return path
}

func TestLoadConvertsTypes(t *testing.T) {
	dev := nntest.CPU(t)
	w := tensor.FromFloat32s(dev, []float32{0, 0, 0}, 3)
	n := tensor.FromInt32s(dev, []int32{0}).Reshape()
	i64 := make([]byte, 8)
	binary.LittleEndian.PutUint64(i64, 41)
	f64 := make([]byte, 24)
	for i, v := range []float64{1.5, -2, 1e-3} {
		binary.LittleEndian.PutUint64(f64[8*i:], math.Float64bits(v))
	}
	path := writeFile(t,
		safetensors.Tensor{Name: "w", DType: safetensors.F64, Shape: []int{3}, Data: f64},
		safetensors.Tensor{Name: "n", DType: safetensors.I64, Shape: []int{}, Data: i64},
	)
	require.NoError(t, nn.LoadTensors(path, []nn.Named{{Name: "w", Tensor: w}, {Name: "n", Tensor: n}}))
	require.Equal(t, []float32{1.5, -2, 1e-3}, nntest.Values(t, w))
	require.Equal(t, []float32{41}, nntest.Values(t, n))
}

func TestLoadErrors(t *testing.T) {
	dev := nntest.CPU(t)
	m := smallNet(dev, 1)
	before := stateValues(t, m)
	good := filepath.Join(t.TempDir(), "good.safetensors")
	require.NoError(t, nn.Save(good, m))
	raw, err := os.ReadFile(good)
	require.NoError(t, err)
	write := func(b []byte) string {
		p := filepath.Join(t.TempDir(), "bad.safetensors")
		require.NoError(t, os.WriteFile(p, b, 0o644))
		return p
	}
	other := smallNet(dev, 3)
	otherState := nn.StateDict(other)

	// Malformed files.
	for name, b := range map[string][]byte{
		"truncated data":   raw[:len(raw)-5],
		"truncated header": raw[:20],
		"empty":            {},
		"garbage header":   append([]byte{16, 0, 0, 0, 0, 0, 0, 0}, []byte("not json at all!")...),
	} {
		err := nn.Load(write(b), m)
		require.ErrorIs(t, err, safetensors.ErrMalformed, name)
	}
	require.ErrorIs(t, nn.Load(filepath.Join(t.TempDir(), "nope"), m), os.ErrNotExist)

	// A file that lacks a tensor, has an extra one, or has another shape.
	var part []nn.Named
	for _, n := range otherState {
		if n.Name != "4.bias" {
			part = append(part, n)
		}
	}
	missing := filepath.Join(t.TempDir(), "missing.safetensors")
	require.NoError(t, nn.SaveTensors(missing, part))
	err = nn.Load(missing, m)
	require.ErrorIs(t, err, nn.ErrMismatch)
	require.ErrorContains(t, err, "missing 4.bias")
	require.NoError(t, nn.Load(missing, m, nn.AllowMissing()))
	m = smallNet(dev, 1) // reset

	extra := filepath.Join(t.TempDir(), "extra.safetensors")
	require.NoError(t, nn.SaveTensors(extra, append(nn.StateDict(other), nn.Named{Name: "5.weight", Tensor: tensor.Zeros(dev, 2)})))
	err = nn.Load(extra, m)
	require.ErrorIs(t, err, nn.ErrMismatch)
	require.ErrorContains(t, err, "unexpected 5.weight")
	require.Equal(t, before, stateValues(t, m), "a failed load changes nothing")

	wide := nn.NewSequential(nn.NewConv2d(dev, 1, 2, 3), nn.NewBatchNorm2d(dev, 2), nn.NewReLU(), nn.NewFlatten(), nn.NewLinear(dev, 2*4*4, 4))
	wrongShape := filepath.Join(t.TempDir(), "shape.safetensors")
	require.NoError(t, nn.Save(wrongShape, wide))
	err = nn.Load(wrongShape, m)
	require.ErrorIs(t, err, nn.ErrMismatch)
	require.ErrorContains(t, err, `"4.weight" has shape [4 32] in the file, [3 32] in the module`)
	require.Equal(t, before, stateValues(t, m), "a failed load changes nothing")

	// A float tensor where the module has an integer one.
	floatCount := writeFile(t, safetensors.FromFloat32("n", safetensors.F32, nil, []float32{1}))
	n := tensor.FromInt32s(dev, []int32{0}).Reshape()
	err = nn.LoadTensors(floatCount, []nn.Named{{Name: "n", Tensor: n}})
	require.ErrorIs(t, err, nn.ErrMismatch)
	require.ErrorContains(t, err, "F32 in the file and int32 in the module")

	// An integer that does not fit.
	big := make([]byte, 8)
	binary.LittleEndian.PutUint64(big, 1<<40)
	err = nn.LoadTensors(writeFile(t, safetensors.Tensor{Name: "n", DType: safetensors.I64, Shape: []int{}, Data: big}), []nn.Named{{Name: "n", Tensor: n}})
	require.ErrorIs(t, err, nn.ErrMismatch)
	require.ErrorContains(t, err, "does not fit in int32")
}
