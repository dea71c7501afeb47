#!/usr/bin/python3
"""Builds an op-plugin checkout of real size for the verify benchmark.

The YAML files (op_plugin_functions.yaml: 1514 entries, derivatives.yaml, the allowlist) are the
real ones from Ascend/op-plugin@517f2e7 (copied under plugins/op-adaptation/tests/data). The
sources that checkout would hold are synthesized: one op_api and/or acl_op kernel per entry
(schema-to-C++ mapping of op-adaptation.md section 4, ~20 lines each, spread over files like
op-plugin's), a Meta registration per custom op, a schema baseline, a test file per op and an
API page per exposed op. So verify reads and checks every file kind at op-plugin's scale.

usage: make_tree.py <data dir> <out dir>
"""
import json
import os
import re
import sys

import yaml

SCALAR = {"int": "int64_t", "float": "double", "bool": "bool", "str": "c10::string_view",
          "SymInt": "c10::SymInt", "ScalarType": "at::ScalarType", "Layout": "at::Layout",
          "Device": "at::Device", "MemoryFormat": "at::MemoryFormat", "Generator": "at::Generator",
          "Dimname": "at::Dimname"}


def split_args(text):
    out, depth, cur = [], 0, ""
    for c in text:
        if c in "([":
            depth += 1
        elif c in ")]":
            depth -= 1
        if c == "," and depth == 0:
            out.append(cur.strip())
            cur = ""
        else:
            cur += c
    if cur.strip():
        out.append(cur.strip())
    return out


def cpp_return(schema):
    ret = schema[schema.rindex("->") + 2:].strip()
    one = lambda r: "at::Tensor&" if "!" in r else (
        "std::vector<at::Tensor>" if r.startswith("Tensor[]") else
        "at::Tensor" if r.startswith("Tensor") else SCALAR.get(r.split(" ")[0], "at::Tensor"))
    if ret == "()":
        return "void"
    if ret.startswith("("):
        return "std::tuple<%s>" % ", ".join(one(r.strip()) for r in split_args(ret[1:-1]))
    return one(ret)


def parse(schema):
    name = schema[:schema.index("(")]
    head = schema[:schema.rindex(") ->")]
    args, kw = [], False
    for a in split_args(head[head.index("(") + 1:]):
        if a == "*":
            kw = True
            continue
        decl, eq, default = a.partition("=")
        typ, _, nm = decl.strip().rpartition(" ")
        args.append((typ, nm, default if eq else None, kw))
    return name, args


def cpp_type(t):
    if t.startswith("Tensor("):
        return "at::Tensor&" if "!" in t and not t.endswith("[]") else "const at::Tensor&"
    if t == "Tensor":
        return "const at::Tensor&"
    if t == "Tensor?":
        return "const c10::optional<at::Tensor>&"
    if t == "Tensor[]":
        return "at::TensorList"
    if t == "Tensor?[]":
        return "const c10::List<c10::optional<at::Tensor>>&"
    m = re.fullmatch(r"(\w+)(\[\d*\])?(\?)?", t)
    if not m:
        return "int64_t"
    base, lst, opt = m.groups()
    if lst:
        if base == "int":
            return "at::OptionalIntArrayRef" if opt else "at::IntArrayRef"
        if base == "SymInt":
            return "at::OptionalSymIntArrayRef" if opt else "c10::SymIntArrayRef"
        inner = "at::ArrayRef<%s>" % SCALAR.get(base, base)
        return "c10::optional<%s>" % inner if opt else inner
    if base == "Scalar":
        return "const c10::optional<at::Scalar>&" if opt else "const at::Scalar&"
    s = SCALAR.get(base, base)
    return "c10::optional<%s>" % s if opt else s


def camel(name):
    stem = name.lstrip("_")
    if stem.startswith("npu_"):
        stem = stem[4:]
    return "".join(p[:1].upper() + p[1:] for p in stem.split("_") if p)


def cpp_name(name, args):
    base, _, overload = name.partition(".")
    if overload == "out" or overload.endswith("_out") or any(
            "!" in t for t, _, _, kw in args if kw):
        base += "_out"
    if any(t.startswith("SymInt") for t, _, _, _ in args):
        base += "_symint"
    return base


def kernel(name, args, ns, aclnn, ret):
    params = ",\n    ".join("%s %s" % (cpp_type(t), n) for t, n, _, _ in args)
    used = ", ".join(n for _, n, _, _ in args)
    return ("%s %s(\n    %s)\n{\n"
            "    at::Tensor result = npu_preparation::apply_tensor_without_format({1}, {});\n"
            "    EXEC_NPU_CMD(%s, %s, result);\n    return result;\n}\n\n"
            % (ret, cpp_name(name, args), params, aclnn, used or "result"))


def main():
    data, out = sys.argv[1], sys.argv[2]
    fy = yaml.safe_load(open(os.path.join(data, "op_plugin_functions.yaml")))
    files = {}
    meta = ["import torch", "from torch.library import Library, impl", "",
            'm = Library("npu", "IMPL", "Meta")', ""]
    baseline = {}
    tests, docs = set(), {}
    for section in ("official", "custom", "autograd", "symint", "quant"):
        for e in fy.get(section) or []:
            schema = e["func"]
            try:
                name, args = parse(schema)
            except ValueError:
                continue
            baseline["func: " + schema] = {"version": ["all_version"]}
            if section in ("symint", "autograd"):
                continue
            stem = camel(name.partition(".")[0])
            aclnn = "aclnn" + stem
            if "op_api" in e and "gen_opapi" not in e:
                files.setdefault("op_plugin/ops/opapi/%sKernelNpuOpApi.cpp" % stem, ("op_api", []))[1].append(
                    kernel(name, args, "op_api", aclnn, cpp_return(schema)))
            if "acl_op" in e:
                files.setdefault("op_plugin/ops/aclops/%sKernelNpu.cpp" % stem, ("acl_op", []))[1].append(
                    kernel(name, args, "acl_op", aclnn, cpp_return(schema)))
            base = name.partition(".")[0]
            if section == "custom":
                params, star = [], False
                for t, n, d, kw in args:
                    if kw and not star:
                        params.append("*")
                        star = True
                    params.append(n + ("=" + d if d is not None else ""))
                meta += ["", '@impl(m, "%s")' % name, "def %s_meta(%s):" % (name.replace(".", "_"), ", ".join(params)),
                         "    return torch.empty_like(%s)" % (args[0][1] if args else "None"), ""]
            tests.add(("test_custom_ops" if section == "custom" else "test_base_ops", base))
            if "exposed" in e:
                docs[base] = ", ".join(n + ("=" + d if d is not None else "") for _, n, d, _ in args)
    for rel, (ns, fns) in files.items():
        path = os.path.join(out, rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w") as f:
            f.write('#include "op_plugin/OpApiInterface.h"\n\nnamespace %s {\n'
                    "using npu_preparation = at_npu::native::OpPreparation;\n\n%s}  // namespace %s\n"
                    % (ns, "".join(fns), ns))
    def write(rel, text):
        path = os.path.join(out, rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w") as f:
            f.write(text)
    write("op_plugin/config/op_plugin_functions.yaml", open(os.path.join(data, "op_plugin_functions.yaml")).read())
    write("op_plugin/config/derivatives.yaml", open(os.path.join(data, "derivatives.yaml")).read())
    write("test/allowlist_for_publicAPI.json", open(os.path.join(data, "allowlist_for_publicAPI.json")).read())
    write("op_plugin/python/meta/_meta_registrations.py", "\n".join(meta) + "\n")
    write("test/core_tests/torch_npu_OpApi_schema_all.json", json.dumps(baseline, indent=4) + "\n")
    for d, base in tests:
        write("test/%s/test_%s.py" % (d, base), "import torch\n")
    for base, sig in docs.items():
        write("docs/zh/custom_APIs/torch_npu/torch_npu-%s.md" % base,
              "# torch_npu.%s\n\n## 函数原型\n\n```python\ntorch_npu.%s(%s)\n```\n" % (base, base, sig))
    print("tree: %d kernel files, %d custom Meta kernels, %d baseline keys, %d tests, %d pages"
          % (len(files), sum(1 for l in meta if l.startswith("@impl")), len(baseline), len(tests), len(docs)))


if __name__ == "__main__":
    main()
