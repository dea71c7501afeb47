#!/usr/bin/python3
"""torchgen's side of the op_schema benchmark: parse + print every schema of a
native_functions.yaml with torchgen.model.FunctionSchema.parse (which itself prints and compares),
median of N runs. Also times torchgen's YAML load of the whole file plus parsing (the C++ side's
load_file figure), with PyYAML's C loader as torchgen uses when available.

  /usr/bin/python3 torchgen_bench.py <native_functions.yaml> [runs]
"""
import json
import statistics
import sys
import time

import yaml
from torchgen.model import FunctionSchema

try:
    from yaml import CSafeLoader as Loader
except ImportError:  # pragma: no cover - Debian's python3-yaml has the C loader
    from yaml import SafeLoader as Loader


def main():
    path = sys.argv[1]
    runs = int(sys.argv[2]) if len(sys.argv) > 2 else 20
    text = open(path, encoding="utf-8").read()
    funcs = [e["func"] for e in yaml.load(text, Loader=Loader) if "func" in e]
    parse_ms, load_ms, parse_cpu, load_cpu = [], [], [], []
    # Two phases, as on the C++ side: parse + print every schema, then load the whole file.
    for _ in range(runs):
        c0 = time.process_time()
        t0 = time.perf_counter()
        for f in funcs:
            if str(FunctionSchema.parse(f)) != f:
                raise SystemExit(f"round trip differs: {f}")
        t1 = time.perf_counter()
        c1 = time.process_time()
        parse_ms.append((t1 - t0) * 1000)
        parse_cpu.append((c1 - c0) * 1000)
    for _ in range(runs):
        c0 = time.process_time()
        t0 = time.perf_counter()
        entries = yaml.load(text, Loader=Loader)
        for e in entries:
            if "func" in e:
                FunctionSchema.parse(e["func"])
        t1 = time.perf_counter()
        c1 = time.process_time()
        load_ms.append((t1 - t0) * 1000)
        load_cpu.append((c1 - c0) * 1000)
    print(json.dumps({"impl": "torchgen (Python, python3-torch %s)" % torch_version(),
                      "schemas": len(funcs), "runs": runs,
                      "parse_print_median_ms": round(statistics.median(parse_ms), 3),
                      "parse_print_cpu_median_ms": round(statistics.median(parse_cpu), 3),
                      "load_file_median_ms": round(statistics.median(load_ms), 3),
                      "load_file_cpu_median_ms": round(statistics.median(load_cpu), 3)}))


def torch_version():
    try:
        import importlib.metadata
        return importlib.metadata.version("torch")
    except Exception:  # the Debian package may not register metadata
        return "unknown"


if __name__ == "__main__":
    main()
