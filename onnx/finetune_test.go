package onnx

import (
	"fmt"
	"path/filepath"
	"testing"

	"github.com/shaderflow/shaderflow/nn/optim"
	"github.com/shaderflow/shaderflow/nn/safetensors"
	"github.com/shaderflow/shaderflow/tensor"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestFineTuneGradientsMatchTorch loads exported models with Trainable,
// back-propagates sum(out * w) and compares the parameters' gradients with
// PyTorch's: ResNet-18 exported in training mode (BatchNormalization with
// batch statistics) and the GPT (embedding gradients through Gather).
func TestFineTuneGradientsMatchTorch(t *testing.T) {
	root := torchExports(t)
	dev := openBackend(t, "cpu")
	for name, params := range map[string][]string{
		"resnet18_train": {"conv1.weight", "fc.weight", "fc.bias", "layer4.1.bn2.weight"},
		"gpt":            {"tok.weight", "blocks.0.qkv.bias", "ln.bias"},
	} {
		t.Run(name, func(t *testing.T) {
			dir := filepath.Join(root, name)
			m, err := Load(dev, filepath.Join(dir, "model.onnx"), Trainable())
			require.NoError(t, err)
			outs, err := m.Run(upload(t, dev, readPBs(t, dir, "input"))...)
			require.NoError(t, err)
			w := upload(t, dev, readPBs(t, dir, "weight"))[0]
			require.NoError(t, outs[0].Mul(w).Sum().Backward())
			byName := map[string]*tensor.Tensor{}
			for _, p := range m.Parameters() {
				byName[p.Name] = p.Tensor
				if stat := filepath.Ext(p.Name); (stat == ".running_mean" || stat == ".running_var") && p.Tensor.RequiresGrad() {
					t.Errorf("running statistic %s requires gradients", p.Name)
				}
			}
			for _, p := range params {
				tp, ok := byName[p]
				require.True(t, ok, "parameter %s", p)
				require.True(t, tp.RequiresGrad(), p)
				require.NotNil(t, tp.Grad(), p)
				assertClose(t, "gradient of "+p, tp.Grad(), readPB(t, filepath.Join(dir, fmt.Sprintf("grad.%s_0.pb", p))), 1e-4, 1e-3)
			}
		})
	}
}

// TestSavedWeightsRoundTrip changes a trained model's weights, writes them
// as ONNX and safetensors, and checks that the saved model computes what
// the changed one does and that the safetensors file holds the new values.
func TestSavedWeightsRoundTrip(t *testing.T) {
	dir := filepath.Join(torchExports(t), "mlp")
	dev := openBackend(t, "cpu")
	m, err := Load(dev, filepath.Join(dir, "model.onnx"), Trainable())
	require.NoError(t, err)
	in := upload(t, dev, readPBs(t, dir, "input"))
	before, err := m.Run(in...)
	require.NoError(t, err)
	for _, p := range m.Parameters() {
		p.Tensor.Assign(p.Tensor.Detach().MulScalar(1.5).AddScalar(0.01))
	}
	after, err := m.Run(in...)
	require.NoError(t, err)
	a, _ := after[0].Float32s()
	b, _ := before[0].Float32s()
	require.NotEqual(t, a, b, "changing the weights changed nothing")

	out := t.TempDir()
	require.NoError(t, m.SaveONNX(filepath.Join(out, "m.onnx")))
	m2, err := Load(dev, filepath.Join(out, "m.onnx"))
	require.NoError(t, err)
	again, err := m2.Run(in...)
	require.NoError(t, err)
	c, _ := again[0].Float32s()
	assert.Equal(t, a, c)
	assert.Equal(t, len(m.Proto().Graph.Nodes), len(m2.Proto().Graph.Nodes))

	require.NoError(t, m.SaveSafetensors(filepath.Join(out, "m.safetensors")))
	f, err := safetensors.ReadFile(filepath.Join(out, "m.safetensors"))
	require.NoError(t, err)
	for _, p := range m.Parameters() {
		st, ok := f.Get(p.Name)
		require.True(t, ok, p.Name)
		got, err := st.Float32()
		require.NoError(t, err)
		want, err := p.Tensor.Float32s()
		require.NoError(t, err)
		assert.Equal(t, want, got, p.Name)
		assert.Equal(t, p.Tensor.Shape(), st.Shape)
	}
}

// TestTrainingModeExportTrainsOn fine-tunes the ResNet-18 exported in
// training mode with SGD on mean(out²): the loss must fall.
func TestTrainingModeExportTrainsOn(t *testing.T) {
	dir := filepath.Join(torchExports(t), "resnet18_train")
	dev := openBackend(t, "cpu")
	m, err := Load(dev, filepath.Join(dir, "model.onnx"), Trainable())
	require.NoError(t, err)
	params := m.TrainableTensors()
	require.NotEmpty(t, params)
	opt := optim.NewSGD(params, optim.SGDConfig{LR: 0.01})
	x := upload(t, dev, readPBs(t, dir, "input"))
	var losses []float64
	for range 4 {
		require.NoError(t, dev.ScopeErr(func() error {
			outs, err := m.Run(x...)
			if err != nil {
				return err
			}
			loss := outs[0].Mul(outs[0]).Mean()
			if err := loss.Backward(); err != nil {
				return err
			}
			v, err := loss.Item()
			if err != nil {
				return err
			}
			losses = append(losses, v)
			if err := opt.Step(); err != nil {
				return err
			}
			opt.ZeroGrad()
			return nil
		}))
	}
	t.Logf("losses %v", losses)
	assert.Less(t, losses[len(losses)-1], losses[0]*0.9)
}
