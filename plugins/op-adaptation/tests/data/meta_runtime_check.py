"""Runs generated Meta kernels under the real torch dispatcher (python3-torch, CPU build).

Defines every custom op of the checkout's op_plugin_functions.yaml in a "npu" library, imports
op_plugin/python/meta/_meta_registrations.py, then calls each op named on the command line with
meta tensors, passing every argument (keyword-only ones by name, with values that differ from
most defaults so the dispatcher does not drop them), so a Meta function whose parameter names
or keyword-only split disagree with the schema raises here as it would under FakeTensor.
Checks the number of outputs against the schema's returns. Prints one line per op; exits 1 on
the first failure.

With --omit-defaults, every argument that has a schema default is left out instead, so the
dispatcher passes nothing for it and the Meta function's own default must take its place.

usage: meta_runtime_check.py [--omit-defaults] <checkout> <op> [<op> ...]
"""
import importlib.util
import re
import sys

import torch
import yaml


def split_args(text):
    out, depth, cur = [], 0, ""
    for c in text:
        depth += c in "([" and 1 or 0
        depth -= c in ")]" and 1 or 0
        if c == "," and depth == 0:
            out.append(cur.strip())
            cur = ""
        else:
            cur += c
    if cur.strip():
        out.append(cur.strip())
    return out


def sample(typ, name):
    meta = torch.empty(2, 8, device="meta")
    base = re.sub(r"\(.*?\)", "", typ)
    if base == "Tensor":
        return meta
    if base == "Tensor[]":
        return [meta]
    if base.endswith("?"):
        return None
    if base in ("int", "SymInt"):
        return 1
    if base in ("int[]", "SymInt[]") or re.fullmatch(r"(int|SymInt)\[\d+\]", base):
        return [2, 8]
    if base == "float":
        return 1.0
    if base == "bool":
        return False
    if base == "str":
        return "x"
    if base == "Scalar":
        return 1
    raise ValueError("no sample value for %s %s" % (typ, name))


def main():
    argv = sys.argv[1:]
    omit_defaults = bool(argv) and argv[0] == "--omit-defaults"
    if omit_defaults:
        argv = argv[1:]
    root, ops = argv[0], argv[1:]
    functions = yaml.safe_load(open(root + "/op_plugin/config/op_plugin_functions.yaml"))
    lib = torch.library.Library("npu", "DEF")
    schemas = {}
    for entry in functions.get("custom") or []:
        lib.define(entry["func"])
        schemas[entry["func"].split("(")[0]] = entry["func"]
    path = root + "/op_plugin/python/meta/_meta_registrations.py"
    spec = importlib.util.spec_from_file_location("meta_registrations", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    # Below autograd: the CPU build has no autograd kernel for ops defined here.
    guard = torch._C._AutoDispatchBelowAutograd()
    for op in ops:
        schema = schemas[op]
        head, ret = schema.rsplit(") -> ", 1)
        args, kwargs, kwonly = [], {}, False
        for a in split_args(head[head.index("(") + 1:]):
            if a == "*":
                kwonly = True
                continue
            typ, name = a.split("=", 1)[0].rsplit(" ", 1)
            if omit_defaults and "=" in a:
                continue
            value = sample(typ, name)
            if kwonly:
                kwargs[name] = value
            else:
                args.append(value)
        name, _, overload = op.partition(".")
        packet = getattr(torch.ops.npu, name)
        fn = getattr(packet, overload or "default")
        result = fn(*args, **kwargs)
        want = len(split_args(ret[1:-1])) if ret.startswith("(") else 1
        got = len(result) if isinstance(result, tuple) else 1
        if got != want:
            print("FAIL %s: %d outputs, schema returns %d" % (op, got, want))
            return 1
        print("ok %s: %d output(s)" % (op, got))
    del guard
    return 0


if __name__ == "__main__":
    sys.exit(main())
