# The PyTorch side of gpucheck: the same cases, timed the same way (warm-up,
# then one operation and a torch.cuda.synchronize per timed run, median), on
# CUDA in float32 with TF32 off. Prints one JSON object: case name -> seconds.
import json
import statistics
import sys
import time

import torch

torch.backends.cuda.matmul.allow_tf32 = False
torch.backends.cudnn.allow_tf32 = False
dev = torch.device("cuda")
BIG, ROWS, COLS, GEMM = 64 << 20, 8192, 8192, 4096


def rand(*shape):
    return torch.rand(*shape, device=dev, dtype=torch.float32)


def chain8(a, b):
    return torch.reciprocal(torch.exp((torch.relu(a * b + 0.5) * 1.5) - 0.25) + 1)


def mlp_setup():
    torch.manual_seed(1)
    model = torch.nn.Sequential(
        torch.nn.Flatten(), torch.nn.Linear(784, 128), torch.nn.ReLU(), torch.nn.Linear(128, 10)
    ).to(dev)
    x, y = torch.rand(64, 1, 28, 28), torch.randint(0, 10, (64,), dtype=torch.int32)
    return [model, torch.optim.SGD(model.parameters(), lr=0.1), x, y]


def mlp_step(model, opt, x, y):
    # gpucheck's step: a batch uploaded from the host (made before the
    # timer), forward, cross-entropy read back, backward, an SGD step.
    loss = torch.nn.functional.cross_entropy(model(x.to(dev)), y.to(dev).long())
    loss.item()
    loss.backward()
    opt.step()
    opt.zero_grad()


CASES = {
    "copy f32 64M": (lambda: [rand(BIG)], lambda x: x.clone()),
    "add f32 64M": (lambda: [rand(BIG), rand(BIG)], lambda x, y: x + y),
    "chain8 f32 64M": (lambda: [rand(BIG), rand(BIG)], chain8),
    "sum rows 8192x8192": (lambda: [rand(ROWS, COLS)], lambda x: x.sum(1)),
    "softmax rows 8192x8192": (lambda: [rand(ROWS, COLS)], lambda x: torch.softmax(x, 1)),
    "layernorm rows 8192x8192": (lambda: [rand(ROWS, COLS)], lambda x: torch.nn.functional.layer_norm(x, (COLS,), eps=1e-5)),
    "sgemm 4096": (lambda: [rand(GEMM, GEMM), rand(GEMM, GEMM)], lambda a, b: a @ b),
    "tiny add 1": (lambda: [rand(1)], lambda x: x + 1),
    "mlp train step 64": (mlp_setup, mlp_step),
}


def measure(setup, op, warmup, runs):
    args = setup()
    torch.cuda.synchronize()
    for _ in range(warmup):
        op(*args)
    torch.cuda.synchronize()
    times = []
    for _ in range(runs):
        t0 = time.perf_counter()
        op(*args)
        torch.cuda.synchronize()
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def main():
    out = {"torch": torch.__version__, "device": torch.cuda.get_device_name(0), "seconds": {}}
    for name, (setup, op) in CASES.items():
        tiny = name.startswith("tiny") or name.startswith("mlp")
        out["seconds"][name] = measure(setup, op, 20 if tiny else 3, 200 if tiny else 10)
    json.dump(out, sys.stdout)


if __name__ == "__main__":
    main()
