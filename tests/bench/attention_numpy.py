"""attention_numpy.py — the benchmark's yardstick for the cost explorer's standard
algorithm: softmax(Q Kᵀ / √d) V in float64 with numpy, on whatever BLAS numpy is
linked to, for n = 1024, 2048 and 4096 and d = 64 (Q, K, V drawn N(0, 1)).

    python3 attention_numpy.py

Prints `blas NAME` (the BLAS library numpy has loaded, from /proc/self/maps), then
one line `N MEDIAN_MS` per n: the median of several runs. A yardstick, not a
second implementation of qkv: qkv never runs it.
"""
import os
import time

import numpy as np

D = 64
RUNS = {1024: 9, 2048: 7, 4096: 5}


def attention(q, k, v):
    """The standard algorithm: S, S', A = softmax(S') by rows, then A V."""
    s = (q @ k.T) / np.sqrt(q.shape[1])
    e = np.exp(s - s.max(axis=1, keepdims=True))
    a = e / e.sum(axis=1, keepdims=True)
    return a @ v


def blas_name():
    """The BLAS shared library in this process, named by its folder when Debian's
    alternatives put it in one (openblas-pthread, blas, atlas)."""
    with open("/proc/self/maps", encoding="utf-8") as maps:
        for line in maps:
            path = line.split()[-1]
            base = os.path.basename(path)
            if "blas" in base and ".so" in base:
                real = os.path.realpath(path)
                folder = os.path.basename(os.path.dirname(real))
                return folder if folder != "x86_64-linux-gnu" else os.path.basename(real)
    return "unknown"


def main():
    rng = np.random.default_rng(1)
    attention(*(rng.standard_normal((64, D)) for _ in range(3)))  # loads the BLAS
    print("blas", blas_name())
    for n, runs in RUNS.items():
        q, k, v = (rng.standard_normal((n, D)) for _ in range(3))
        attention(q, k, v)
        times = []
        for _ in range(runs):
            start = time.perf_counter()
            attention(q, k, v)
            times.append((time.perf_counter() - start) * 1e3)
        times.sort()
        print(n, times[len(times) // 2])


if __name__ == "__main__":
    main()
