#!/usr/bin/python3
"""Benchmark baseline: the seed document's compare_outputs logic, in numpy.

Loads both .npy files fully (as the seed does with .numpy() on tensors), computes the maximum
absolute and maximum relative difference (relative to |cpu| + 1e-8), and applies the seed's
acceptance test (max_abs < atol or max_rel < rtol). Written for this benchmark; prints one JSON
line with the numbers so the run can check both tools agree.
"""
import json
import sys

import numpy as np


def compare_outputs(cpu_np, npu_np, atol=1e-5, rtol=1e-3):
    max_abs_diff = abs(cpu_np - npu_np).max()
    max_rel_diff = (abs(cpu_np - npu_np) / (abs(cpu_np) + 1e-8)).max()
    return float(max_abs_diff), float(max_rel_diff), bool(max_abs_diff < atol or max_rel_diff < rtol)


def main():
    cpu = np.load(sys.argv[1])
    npu = np.load(sys.argv[2])
    max_abs, max_rel, ok = compare_outputs(cpu, npu)
    print(json.dumps({"max_abs": max_abs, "max_rel": max_rel, "pass": ok}))


if __name__ == "__main__":
    main()
