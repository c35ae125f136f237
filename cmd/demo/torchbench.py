# The PyTorch side of `demo --bench`: trains the same model on the same data
# with the same protocol as the Shaderflow side and prints one JSON object per
# epoch. Run by the demo with Debian's /usr/bin/python3 (or the interpreter
# $SHADERFLOW_PYTHON names); not a user script.
#
#   python3 torchbench.py DATADIR MODEL EPOCHS THREADS SEED SCHEDULE DEVICE
#
# Protocol: Fashion-MNIST scaled to [0,1] and normalized with mean 0.2860,
# std 0.3530; batch 64, reshuffled every epoch, the last short batch kept;
# PyTorch's default initialization; MLP: SGD lr 0.1; CNN: SGD lr 0.05,
# momentum 0.9; SCHEDULE constant, or cosine: CosineAnnealingLR to 0 over
# all the run's batches, stepped every batch; torch.manual_seed(SEED);
# cross-entropy. The epoch time covers the training steps only
# (batch gathering included); test accuracy is measured after it, in
# evaluation mode, batches of 1000. DEVICE is cpu or cuda: on cuda the data
# and the model live on the GPU and the clock stops after
# torch.cuda.synchronize(); exit status 78 says torch has no CUDA device.
import gzip, json, os, sys, time

try:
    import numpy as np
    import torch
    from torch import nn
except ImportError as e:
    print('torchbench: %s' % e, file=sys.stderr)
    sys.exit(77)


def idx(path):
    opener = gzip.open if path.endswith('.gz') else open
    with opener(path, 'rb') as f:
        raw = f.read()
    ndim = raw[3]
    dims = [int.from_bytes(raw[4 + 4 * i:8 + 4 * i], 'big') for i in range(ndim)]
    return np.frombuffer(raw, dtype=np.uint8, offset=4 + 4 * ndim).reshape(dims)


def find(datadir, name):
    for candidate in (name, name + '.gz'):
        p = os.path.join(datadir, candidate)
        if os.path.exists(p):
            return p
    raise SystemExit('missing ' + name + ' in ' + datadir)


def load(datadir, prefix):
    x = idx(find(datadir, prefix + '-images-idx3-ubyte')).astype(np.float32) / 255
    y = idx(find(datadir, prefix + '-labels-idx1-ubyte')).astype(np.int64)
    x = (x - 0.2860) / 0.3530
    return torch.from_numpy(x).unsqueeze(1), torch.from_numpy(y)


def model(name):
    if name == 'mlp':
        return nn.Sequential(nn.Flatten(), nn.Linear(784, 128), nn.ReLU(), nn.Linear(128, 10)), 0.1, 0.0
    return nn.Sequential(
        nn.Conv2d(1, 32, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
        nn.Conv2d(32, 64, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
        nn.Flatten(), nn.Linear(3136, 128), nn.ReLU(), nn.Linear(128, 10)), 0.05, 0.9


def main():
    datadir, name, epochs, threads = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
    seed, schedule = int(sys.argv[5]), sys.argv[6]
    device = sys.argv[7] if len(sys.argv) > 7 else 'cpu'
    if device == 'cuda' and not torch.cuda.is_available():
        print('torchbench: torch %s has no CUDA device' % torch.__version__, file=sys.stderr)
        sys.exit(78)
    sync = torch.cuda.synchronize if device == 'cuda' else (lambda: None)
    torch.set_num_threads(threads)
    torch.manual_seed(seed)
    xtr, ytr = (t.to(device) for t in load(datadir, 'train'))
    xte, yte = (t.to(device) for t in load(datadir, 't10k'))
    m, lr, momentum = model(name)
    m = m.to(device)
    opt = torch.optim.SGD(m.parameters(), lr=lr, momentum=momentum)
    sched = None
    if schedule == 'cosine':
        sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=(len(ytr) + 63) // 64 * epochs)
    loss_fn = nn.CrossEntropyLoss()
    n = len(ytr)
    for epoch in range(epochs):
        m.train()
        perm = torch.randperm(n, device=device)
        total, steps = torch.zeros((), device=device), 0  # summed on the device: no sync per step
        sync()
        start = time.perf_counter()
        for i in range(0, n, 64):
            b = perm[i:i + 64]
            loss = loss_fn(m(xtr[b]), ytr[b])
            opt.zero_grad()
            loss.backward()
            opt.step()
            if sched is not None:
                sched.step()
            total += loss.detach()
            steps += 1
        sync()
        elapsed = time.perf_counter() - start
        m.eval()
        correct = 0
        with torch.no_grad():
            for i in range(0, len(yte), 1000):
                correct += (m(xte[i:i + 1000]).argmax(1) == yte[i:i + 1000]).sum().item()
        print(json.dumps({'epoch': epoch, 'seconds': elapsed, 'loss': total.item() / steps,
                          'accuracy': correct / len(yte), 'threads': torch.get_num_threads(),
                          'torch': torch.__version__, 'device': device}), flush=True)


main()
