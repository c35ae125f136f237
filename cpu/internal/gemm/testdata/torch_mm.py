"""Times torch.mm for TestCompareTorch: median GFLOP/s of C = A @ B.

usage: torch_mm.py THREADS REPS M,N,K [M,N,K ...]
prints one JSON object per shape, one per line
"""
import json
import statistics
import sys
import time

import torch

threads, reps = int(sys.argv[1]), int(sys.argv[2])
torch.set_num_threads(threads)
for shape in sys.argv[3:]:
    m, n, k = (int(x) for x in shape.split(","))
    a = torch.rand(m, k)
    b = torch.rand(k, n)
    c = torch.empty(m, n)
    for _ in range(3):  # warm-up
        torch.mm(a, b, out=c)
    times = []
    for _ in range(reps):
        t0 = time.perf_counter()
        torch.mm(a, b, out=c)
        times.append(time.perf_counter() - t0)
    med = statistics.median(times)
    print(json.dumps({"m": m, "n": n, "k": k, "threads": threads, "reps": reps,
                      "median_s": med, "best_s": min(times),
                      "gflops": 2.0 * m * n * k / med / 1e9,
                      "best_gflops": 2.0 * m * n * k / min(times) / 1e9,
                      "torch": torch.__version__}), flush=True)
