package train_test

import (
	"errors"
	"io/fs"
	"math"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/shaderflow/shaderflow/nn"
	"github.com/shaderflow/shaderflow/nn/internal/nntest"
	"github.com/shaderflow/shaderflow/nn/optim"
	"github.com/shaderflow/shaderflow/nn/safetensors"
	"github.com/shaderflow/shaderflow/nn/train"
	"github.com/shaderflow/shaderflow/tensor"
	"github.com/stretchr/testify/require"
)

// torchStepsScript loads a model's state and a few batches from a
// safetensors file, runs one SGD step per batch in PyTorch and writes the
// first batch's gradients (as "grad.<name>") and the final parameters.
//
//	python3 -c SCRIPT MODEL LR MOMENTUM IN OUT
const torchStepsScript = `
import json, struct, sys
try:
    import numpy as np, torch
    from torch import nn
except ImportError as e:
    print('missing:', e); sys.exit(77)
DT = {'F32': np.float32, 'I32': np.int32}
def read(path):
    b = open(path, 'rb').read()
    n = struct.unpack('<Q', b[:8])[0]
    hdr = json.loads(b[8:8 + n]); data = b[8 + n:]
    out = {}
    for k, v in hdr.items():
        if k == '__metadata__': continue
        s, e = v['data_offsets']
        out[k] = torch.from_numpy(np.frombuffer(data[s:e], dtype=DT[v['dtype']]).reshape(v['shape']).copy())
    return out
def write(path, sd):
    hdr, blobs, off = {}, [], 0
    for k, t in sd.items():
        raw = t.detach().contiguous().numpy().astype(np.float32).tobytes()
        hdr[k] = {'dtype': 'F32', 'shape': list(t.shape), 'data_offsets': [off, off + len(raw)]}
        off += len(raw); blobs.append(raw)
    h = json.dumps(hdr).encode(); h += b' ' * ((8 - len(h) % 8) % 8)
    open(path, 'wb').write(struct.pack('<Q', len(h)) + h + b''.join(blobs))
name, lr, momentum, src, dst = sys.argv[1], float(sys.argv[2]), float(sys.argv[3]), sys.argv[4], sys.argv[5]
torch.set_num_threads(1)
if name == 'mlp':
    m = nn.Sequential(nn.Flatten(), nn.Linear(784, 128), nn.ReLU(), nn.Linear(128, 10))
else:
    m = nn.Sequential(nn.Conv2d(1, 32, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2), nn.Conv2d(32, 64, 3, padding=1), nn.ReLU(),
        nn.MaxPool2d(2), nn.Flatten(), nn.Linear(3136, 128), nn.ReLU(), nn.Linear(128, 10))
st = read(src)
batches = sorted(k for k in st if k.startswith('x.'))
data = [(st.pop(k), st.pop('y.' + k[2:]).long()) for k in batches]
m.load_state_dict(st, strict=True)
opt = torch.optim.SGD(m.parameters(), lr=lr, momentum=momentum)
out = {}
for i, (x, y) in enumerate(data):
    opt.zero_grad()
    nn.functional.cross_entropy(m(x), y).backward()
    if i == 0:
        out.update({'grad.' + k: p.grad.clone() for k, p in m.named_parameters()})
    opt.step()
out.update(dict(m.named_parameters()))
write(dst, out)
`

// TestTrainingMatchesPyTorch runs the reference models for three SGD steps
// on real batches from the same initial weights in Shaderflow and in
// PyTorch, and compares the first step's gradients (within 1e-4 of the
// largest gradient: float32 sums over tens of thousands of terms in another
// order) and the final parameters (within 1e-5 of the largest).
func TestTrainingMatchesPyTorch(t *testing.T) {
	if testing.Short() {
		t.Skip("starts python3 with torch; skipped with -short")
	}
	trainSet, _ := nntest.FashionMNIST(t)
	dev := nntest.CPU(t)
	for _, c := range []struct {
		name         string
		build        func(*tensor.Device, *tensor.Generator) *nn.Sequential
		lr, momentum float64
	}{
		{"mlp", train.MLP, 0.1, 0},
		{"cnn", train.CNN, 0.05, 0.9},
	} {
		t.Run(c.name, func(t *testing.T) {
			const steps, batch = 3, 64
			m := c.build(dev, tensor.NewGenerator(1))
			state := nn.StateDict(m)
			xs := make([]*tensor.Tensor, steps)
			ys := make([]*tensor.Tensor, steps)
			for i := range steps {
				lo := i * batch
				xs[i] = tensor.FromFloat32s(dev, trainSet.X[lo*784:(lo+batch)*784], batch, 1, 28, 28)
				ys[i] = tensor.FromInt32s(dev, trainSet.Y[lo:lo+batch])
				state = append(state, nn.Named{Name: "x." + strconv.Itoa(i), Tensor: xs[i]}, nn.Named{Name: "y." + strconv.Itoa(i), Tensor: ys[i]})
			}
			dir := t.TempDir()
			in, out := filepath.Join(dir, "in.safetensors"), filepath.Join(dir, "out.safetensors")
			require.NoError(t, nn.SaveTensors(in, state))
			text, err := exec.Command("/usr/bin/python3", "-c", torchStepsScript, c.name,
				fmtFloat(c.lr), fmtFloat(c.momentum), in, out).CombinedOutput()
			var exit *exec.ExitError
			if errors.Is(err, exec.ErrNotFound) || errors.Is(err, fs.ErrNotExist) || (errors.As(err, &exit) && exit.ExitCode() == 77) {
				t.Skipf("/usr/bin/python3 with torch and numpy is not available: %v %s", err, text)
			}
			require.NoError(t, err, "python: %s", text)
			want, err := safetensors.ReadFile(out)
			require.NoError(t, err)

			opt := optim.NewSGD(nn.Parameters(m), optim.SGDConfig{LR: c.lr, Momentum: c.momentum})
			for i := range steps {
				require.NoError(t, nn.CrossEntropy(m.Forward(xs[i]), ys[i]).Backward())
				if i == 0 {
					for _, p := range m.NamedParameters() {
						compare(t, want, "grad."+p.Name, p.Tensor.Grad(), 1e-4)
					}
				}
				require.NoError(t, opt.Step())
				opt.ZeroGrad()
			}
			for _, p := range m.NamedParameters() {
				compare(t, want, p.Name, p.Tensor, 1e-5)
			}
		})
	}
}

// compare checks a tensor against the file's tensor name, elementwise
// within tol times the largest magnitude of the expected values.
func compare(t *testing.T, f *safetensors.File, name string, got *tensor.Tensor, tol float64) {
	t.Helper()
	st, ok := f.Get(name)
	require.True(t, ok, name)
	want, err := st.Float32()
	require.NoError(t, err)
	g := nntest.Values(t, got)
	require.Len(t, g, len(want), name)
	scale := 0.0
	for _, w := range want {
		scale = math.Max(scale, math.Abs(float64(w)))
	}
	for i, w := range want {
		if d := math.Abs(float64(g[i] - w)); d > tol*scale {
			t.Fatalf("%s[%d] = %g, PyTorch %g (difference %g, tolerance %g)", name, i, g[i], w, d, tol*scale)
		}
	}
}

func fmtFloat(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }
