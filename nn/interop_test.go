package nn_test

import (
	"encoding/json"
	"errors"
	"io/fs"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/shaderflow/shaderflow/nn"
	"github.com/shaderflow/shaderflow/nn/internal/nntest"
	"github.com/shaderflow/shaderflow/tensor"
	"github.com/stretchr/testify/require"
)

// interopScript reads and writes safetensors files with the standard library
// and NumPy (the safetensors Python package is not needed) and runs the
// same model as smallNet in PyTorch.
//
//	python3 -c SCRIPT IN OUT
//
// loads IN strictly and prints the output of the model in evaluation mode
// on a fixed input; then reinitializes the model, moves its BatchNorm
// statistics with two training-mode batches, saves it to OUT and prints its
// output on the same input.
const interopScript = `
import json, struct, sys
try:
    import numpy as np, torch
except ImportError as e:
    print('missing:', e)
    sys.exit(77)
DT = {'F32': np.float32, 'F16': np.float16, 'I32': np.int32, 'I64': np.int64}
def read(path):
    b = open(path, 'rb').read()
    n = struct.unpack('<Q', b[:8])[0]
    hdr = json.loads(b[8:8 + n]); data = b[8 + n:]
    out = {}
    for k, v in hdr.items():
        if k == '__metadata__':
            continue
        s, e = v['data_offsets']
        out[k] = torch.from_numpy(np.frombuffer(data[s:e], dtype=DT[v['dtype']]).reshape(v['shape']).copy())
    return out
def write(path, sd):
    hdr, blobs, off = {}, [], 0
    for k, t in sd.items():
        a = t.detach().contiguous().numpy()
        raw = a.tobytes()
        name = {v: k2 for k2, v in DT.items()}[a.dtype.type]
        hdr[k] = {'dtype': name, 'shape': list(a.shape), 'data_offsets': [off, off + len(raw)]}
        off += len(raw); blobs.append(raw)
    h = json.dumps(hdr).encode()
    h += b' ' * ((8 - len(h) % 8) % 8)
    open(path, 'wb').write(struct.pack('<Q', len(h)) + h + b''.join(blobs))
torch.manual_seed(0)
nn = torch.nn
m = nn.Sequential(nn.Conv2d(1, 2, 3), nn.BatchNorm2d(2), nn.ReLU(), nn.Flatten(), nn.Linear(32, 3))
x = (torch.arange(4 * 36, dtype=torch.float32) * 0.01 - 0.5).reshape(4, 1, 6, 6)
def show():
    m.eval()
    with torch.no_grad():
        print(json.dumps(m(x).flatten().tolist()))
m.load_state_dict(read(sys.argv[1]), strict=True)
show()
m = nn.Sequential(nn.Conv2d(1, 2, 3), nn.BatchNorm2d(2), nn.ReLU(), nn.Flatten(), nn.Linear(32, 3))
m.train()
for _ in range(2):
    m(torch.randn(8, 1, 6, 6))
write(sys.argv[2], m.state_dict())
show()
`

// runTorch runs the interop script and returns the two outputs it prints,
// skipping the test when Debian's python3 with torch is not installed.
func runTorch(t *testing.T, in, out string) (fromIn, fromOut []float64) {
	t.Helper()
	text, err := exec.Command("/usr/bin/python3", "-c", interopScript, in, out).CombinedOutput()
	var exit *exec.ExitError
	if errors.Is(err, exec.ErrNotFound) || errors.Is(err, fs.ErrNotExist) || (errors.As(err, &exit) && exit.ExitCode() == 77) {
		t.Skipf("/usr/bin/python3 with torch and numpy is not available: %v %s", err, text)
	}
	require.NoError(t, err, "python: %s", text)
	lines := strings.Split(strings.TrimSpace(string(text)), "\n")
	require.GreaterOrEqual(t, len(lines), 2, "python: %s", text)
	require.NoError(t, json.Unmarshal([]byte(lines[len(lines)-2]), &fromIn), "python: %s", text)
	require.NoError(t, json.Unmarshal([]byte(lines[len(lines)-1]), &fromOut), "python: %s", text)
	return fromIn, fromOut
}

// interopInput is the script's x.
func interopInput(dev *tensor.Device) *tensor.Tensor {
	return tensor.Arange(dev, 0, 4*36, 1).MulScalar(0.01).AddScalar(-0.5).Reshape(4, 1, 6, 6)
}

func TestCheckpointsInteroperateWithPyTorch(t *testing.T) {
	if testing.Short() {
		t.Skip("starts python3 with torch (seconds to import); skipped with -short")
	}
	dev := nntest.CPU(t)
	r := nntest.Rand(t)
	dir := t.TempDir()
	goFile, torchFile := filepath.Join(dir, "go.safetensors"), filepath.Join(dir, "torch.safetensors")
	m := smallNet(dev, 1)
	m.Forward(randn(dev, r, 8, 1, 6, 6).T) // non-trivial running statistics
	require.NoError(t, nn.Save(goFile, m))
	torchOfGo, torchOwn := runTorch(t, goFile, torchFile)

	// Shaderflow's checkpoint in torch gives Shaderflow's output.
	nn.Eval(m)
	require.InDeltaSlice(t, torchOfGo, f64(nntest.Values(t, m.Forward(interopInput(dev)))), 1e-5)

	// torch's checkpoint (int64 num_batches_tracked included) in Shaderflow
	// gives torch's output.
	m2 := smallNet(dev, 2)
	require.NoError(t, nn.Load(torchFile, m2))
	nn.Eval(m2)
	require.InDeltaSlice(t, torchOwn, f64(nntest.Values(t, m2.Forward(interopInput(dev)))), 1e-5)
	n, err := m2.Layers[1].(*nn.BatchNorm).NumBatchesTracked.Item()
	require.NoError(t, err)
	require.Equal(t, 2.0, n)
}

func f64(v []float32) []float64 {
	out := make([]float64, len(v))
	for i, x := range v {
		out[i] = float64(x)
	}
	return out
}
