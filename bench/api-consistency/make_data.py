#!/usr/bin/python3
"""Writes an expected/actual float32 .npy pair of N elements in bounded chunks."""
import sys

import numpy as np

n = int(sys.argv[1])
out = sys.argv[2]
rng = np.random.default_rng(1)
chunk = 1 << 22
e = np.lib.format.open_memmap(out + "/expected.npy", mode="w+", dtype=np.float32, shape=(n,))
a = np.lib.format.open_memmap(out + "/actual.npy", mode="w+", dtype=np.float32, shape=(n,))
for s in range(0, n, chunk):
    k = min(chunk, n - s)
    x = rng.standard_normal(k).astype(np.float32)
    e[s:s + k] = x
    a[s:s + k] = x * (1 + rng.standard_normal(k).astype(np.float32) * 1e-6)
e.flush()
a.flush()
