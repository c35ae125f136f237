# PyTorch side of `go run ./cmd/bench`: times the same benchmarks as the Go
# side, described by the JSON spec file named on the command line. It prints
# one JSON line with torch's version, then, for every line read from stdin,
# times the next benchmark of the spec and prints one JSON line with its
# samples in nanoseconds, so that the Go side can interleave its own
# measurement of each benchmark with PyTorch's on a machine whose load
# changes. It exits at the end of the spec or of stdin.
#
# Elementwise benchmarks are timed twice: "alloc" (y = f(x), a fresh result
# each call) and "out" (a preallocated result through out= or in place). The
# small matrix product is timed with 1 and 2 threads and the faster is kept.
# Warm-up iterations are excluded; medians are taken by the Go side.
#
# The GPT cases build shaderflow_gpt.GPT (the PyTorch twin of nn.GPT, which
# the Go side writes beside this script) and time its forward pass in eval
# mode and generation as train.Generate does it. The model cases (ResNet-18,
# the GPT) run under the allocator setting of keep_freed_memory.

import json
import sys
import time

import torch


def timeit(fn, warmup, iters, min_time_ns, max_time_ns):
    for _ in range(warmup):
        fn()
    samples = []
    total = 0
    while True:
        t0 = time.perf_counter_ns()
        fn()
        dt = time.perf_counter_ns() - t0
        samples.append(dt)
        total += dt
        if len(samples) >= iters and total >= min_time_ns:
            break
        if max_time_ns and total >= max_time_ns:
            break
    return samples


def unary(op):
    return {
        "relu": (torch.relu, lambda x, y: torch.clamp(x, min=0, out=y)),
        "tanh": (torch.tanh, lambda x, y: torch.tanh(x, out=y)),
        "sigmoid": (torch.sigmoid, lambda x, y: torch.sigmoid(x, out=y)),
        "exp": (torch.exp, lambda x, y: torch.exp(x, out=y)),
        "gelu": (torch.nn.functional.gelu, None),
    }[op]


def variants(c):
    """Returns {variant: fn} for one benchmark case."""
    kind, n = c["kind"], c.get("n", 0)
    if kind == "matmul":
        a = torch.randn(c["m"], c["k"])
        b = torch.randn(c["k"], c["n_cols"])
        out = torch.empty(c["m"], c["n_cols"])
        return {"alloc": lambda: torch.mm(a, b), "out": lambda: torch.mm(a, b, out=out)}
    if kind == "binary":
        x, z, y = torch.randn(n), torch.randn(n), torch.empty(n)
        f = {"add": torch.add, "mul": torch.mul}[c["op"]]
        return {"alloc": lambda: f(x, z), "out": lambda: f(x, z, out=y)}
    if kind == "unary":
        x, y = torch.randn(n), torch.empty(n)
        fa, fo = unary(c["op"])
        v = {"alloc": lambda: fa(x)}
        if fo is not None:
            v["out"] = lambda: fo(x, y)
        return v
    if kind == "chain":
        x, z, y = torch.randn(n), torch.randn(n), torch.empty(n)

        def chain_out():
            torch.mul(x, z, out=y)
            y.add_(x)
            y.relu_()
            y.mul_(0.5)

        return {"alloc": lambda: torch.relu(x * z + x) * 0.5, "out": chain_out}
    if kind == "sum_rows":
        x, y = torch.randn(c["rows"], c["cols"]), torch.empty(c["rows"])
        return {"alloc": lambda: torch.sum(x, 1), "out": lambda: torch.sum(x, 1, out=y)}
    if kind == "softmax_rows":
        x = torch.randn(c["rows"], c["cols"])
        return {"alloc": lambda: torch.softmax(x, 1)}
    if kind == "log_softmax_rows":
        x = torch.randn(c["rows"], c["cols"])
        return {"alloc": lambda: torch.log_softmax(x, 1)}
    if kind == "layernorm_rows":
        x = torch.randn(c["rows"], c["cols"])
        return {"alloc": lambda: torch.nn.functional.layer_norm(x, (c["cols"],), eps=1e-5)}
    if kind == "conv2d":
        x = torch.randn(*c["x"])
        w = torch.randn(*c["w"])
        return {"alloc": lambda: torch.nn.functional.conv2d(x, w)}
    if kind == "to_f16":
        x, y = torch.randn(n), torch.empty(n, dtype=torch.float16)
        return {"alloc": lambda: x.half(), "out": lambda: y.copy_(x)}
    if kind == "onnx_resnet18":
        import torchvision

        keep_freed_memory()
        model = torchvision.models.resnet18().eval()
        x = torch.randn(n, 3, 224, 224)
        return {"alloc": lambda: model(x)}
    if kind == "gpt_forward":
        model = gpt(c)
        x = torch.randint(0, c["gpt"]["vocab"], (n, c["gpt"]["context"]))
        return {"alloc": lambda: model(x)}
    if kind == "gpt_generate":
        model = gpt(c)
        return {"alloc": lambda: generate(model, c["gpt"]["context"], n, c["temperature"], c["top_k"])}
    raise ValueError("unknown benchmark kind " + kind)


def keep_freed_memory():
    """Raises glibc's mmap and trim thresholds (mallopt) so that freed
    activations stay in the heap for the next call, as Shaderflow's pool
    keeps them. With glibc's defaults PyTorch maps and unmaps every large
    activation: on 1 thread (2026-11-26) the GPT's forward at batch 32 took
    20 000 page faults and 0.3-0.9 s instead of 0.065 s, ResNet-18's at
    batch 32 166 000 and 5.0-5.8 s instead of 1.1 s. It lasts for the rest
    of the process; the model cases (ResNet-18, the GPT) come last."""
    import ctypes

    try:
        libc = ctypes.CDLL("libc.so.6")
    except OSError:
        return  # not glibc: its own allocator's behaviour stands
    m_trim_threshold, m_mmap_threshold = -1, -3
    libc.mallopt(m_mmap_threshold, 1 << 30)
    libc.mallopt(m_trim_threshold, 1 << 30)


def gpt(c):
    """The GPT of a gpt_ case (shaderflow_gpt, written beside this script),
    in eval mode, with keep_freed_memory in force."""
    from shaderflow_gpt import GPT

    keep_freed_memory()
    torch.manual_seed(0)
    return GPT(c["gpt"]).eval()


def generate(model, context, n, temperature, top_k):
    """n tokens after a one-token prompt, as train.Generate draws them: each
    from the last position's logits of a forward pass over the last `context`
    tokens (no cache of keys and values), divided by the temperature and
    restricted to the top_k largest."""
    ids = [0]
    for _ in range(n):
        x = torch.tensor([ids[-context:]])
        logits = model(x)[0, -1] / temperature
        vals, idx = torch.topk(logits, min(top_k, logits.shape[0]))
        ids.append(int(idx[torch.multinomial(torch.softmax(vals, 0), 1)]))
    return ids[1:]


def main():
    with open(sys.argv[1]) as f:
        spec = json.load(f)
    print(json.dumps({"version": torch.__version__}), flush=True)
    with torch.no_grad():
        for c in spec["cases"]:
            if not sys.stdin.readline():
                return
            best = None
            for t in c.get("threads", [2]):
                torch.set_num_threads(t)
                got = {}
                for name, fn in variants(c).items():
                    got[name] = timeit(fn, spec["warmup"], spec["iterations"], spec["min_time_ns"], spec["max_time_ns"])
                med = sorted(got["alloc"])[len(got["alloc"]) // 2]
                if best is None or med < best[0]:
                    best = (med, t, got)
            print(json.dumps({"name": c["name"], "threads": best[1], "variants": best[2]}), flush=True)


if __name__ == "__main__":
    main()
