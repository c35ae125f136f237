"""Times torch.mm for TestCompareTorch: median GFLOP/s of C = A @ B.

usage: torch_mm.py M N K THREADS REPS  (prints one JSON object)
"""
import json
import statistics
import sys
import time

import torch

m, n, k, threads, reps = (int(x) for x in sys.argv[1:6])
torch.set_num_threads(threads)
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
                  "median_s": med, "gflops": 2.0 * m * n * k / med / 1e9,
                  "torch": torch.__version__}))
