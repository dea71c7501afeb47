#!/usr/bin/env python3
"""Builds a synthetic PyTorch-like git repository for pr-analysis tests, the demo and the bench.

    make_demo_repo.py OUT                 # planted repository: OUT/pytorch, OUT/torch_npu,
                                          # OUT/op-plugin, OUT/planted.json (expected labels)
    make_demo_repo.py OUT --commits 2000  # benchmark repository: OUT/pytorch only

Paths and commit messages follow upstream PyTorch (merge-bot messages with the
`Pull Request resolved:` trailer, `(#N)` title suffixes, bot reverts). The operator YAML files
start from the PyTorch 2.11 copies beside this script and are edited per change, so each planted
operator change is a real operator-level diff. Commits are written with `git fast-import`; the
only randomness is a seeded generator, so the same arguments give the same repository.
"""
import argparse
import json
import os
import random
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
NATIVE = "aten/src/ATen/native/native_functions.yaml"
DERIV = "tools/autograd/derivatives.yaml"
TAGS = "aten/src/ATen/native/tags.yaml"
START = 1793491200  # 2026-11-01T00:00:00Z
BOT = "PyTorch MergeBot <pytorchmergebot@users.noreply.github.com>"
AUTHORS = ["Ada Lin <ada@example.com>", "Bo Chen <bo@example.com>", "Cyd Park <cyd@example.com>",
           "Dee Rao <dee@example.com>", "Eli Wu <eli@example.com>"]

# Source files of the base tree (besides the operator YAML files), realistic upstream paths.
SOURCES = [
    "torchgen/model.py", "torch/csrc/autograd/function.h", "torch/autograd/function.py",
    "c10/core/DispatchKey.h", "aten/src/ATen/detail/PrivateUse1HooksInterface.h",
    "torch/utils/backend_registration.py", "torch/_tensor.py",
    "aten/src/ATen/core/dispatch/Dispatcher.cpp", "c10/core/TensorImpl.h",
    "aten/src/ATen/core/TensorBase.h", "c10/util/Exception.h",
    "torch/csrc/distributed/c10d/ProcessGroup.hpp", "torch/distributed/tensor/_ops/_math_ops.py",
    "torch/distributed/distributed_c10d.py", "torch/_inductor/codegen/common.py",
    "torch/_inductor/scheduler.py", "torch/_inductor/old_name.py",
    "torch/_dynamo/device_interface.py", "torch/fx/graph.py", "torch/_meta_registrations.py",
    "torch/_decomp/decompositions.py", "torch/cuda/memory.py", "torch/accelerator/memory.py",
    "torch/testing/_internal/common_device_type.py", "test/test_nn.py", "torch/serialization.py",
    "torch/profiler/profiler.py", "torch/utils/cpp_extension.py", "CMakeLists.txt",
    "cmake/Dependencies.cmake", "docs/source/notes/cuda.rst", ".github/workflows/pull.yml",
    "caffe2/perfkernels/embedding_lookup.cc", "docs/source/torch.compiler.md",
    "functorch/experimental/ops.py",
]
# Extra files the benchmark spreads its edits over.
BENCH_DIRS = ["torch/_inductor", "torch/_dynamo", "torch/distributed", "torch/nn/modules",
              "aten/src/ATen/native", "aten/src/ATen/native/cuda", "c10/core", "torch/csrc/jit",
              "test/inductor", "test/distributed", "docs/source", "torch/fx", "torch/utils",
              "caffe2/core", "torch/onnx", "torch/csrc/api/src"]


def body_lines(path, n):
    """Plausible code for a file, one function per few lines, so diffs look like code diffs."""
    stem = os.path.splitext(os.path.basename(path))[0].replace("-", "_").replace(".", "_")
    out = []
    if path.endswith((".py",)):
        out.append("# mypy: allow-untyped-defs")
        out.append("import torch")
        for i in range((n - 2) // 4):
            out += ["def %s_helper_%d(x, scale=%d):" % (stem, i, i + 1),
                    "    y = x * scale + %d" % i, "    return y.contiguous()", ""]
    elif path.endswith((".h", ".hpp", ".cpp", ".cc")):
        out.append("#pragma once" if path.endswith((".h", ".hpp")) else '#include <c10/core/TensorImpl.h>')
        out.append("namespace at {")
        for i in range((n - 3) // 4):
            out += ["inline int64_t %s_fn_%d(int64_t x) {" % (stem, i),
                    "  return x * %d + 1;" % (i + 1), "}", ""]
        out.append("}  // namespace at")
    elif path.endswith((".md", ".rst")):
        for i in range(n // 3):
            out += ["Section %d" % i, "", "Text about %s, paragraph %d." % (stem, i)]
    else:
        for i in range(n):
            out.append("# %s setting %d" % (stem, i))
            out.append("set(%s_OPTION_%d ON)" % (stem.upper(), i))
    return out


class Repo:
    """Commits through git fast-import; flushes when a message must name an earlier sha."""

    def __init__(self, path):
        self.path = path
        os.makedirs(path, exist_ok=True)
        subprocess.run(["git", "init", "-q", "-b", "main", path], check=True)
        self.files = {}
        self.pending = []
        self.mark = 0
        self.started = False
        self.sha_of_mark = {}
        self.marks_file = os.path.join(path, ".git", "demo-marks")

    def commit(self, message, author, when, changes):
        """changes: {path: list of lines, or None to delete}. Returns the commit's mark."""
        self.mark += 1
        out = ["commit refs/heads/main", "mark :%d" % self.mark,
               "author %s %d +0000" % (author, when), "committer %s %d +0000" % (BOT, when)]
        msg = message.encode()
        chunks = ["\n".join(out).encode() + b"\n", b"data %d\n" % len(msg), msg, b"\n"]
        if self.started and not self.pending:
            chunks.append(b"from refs/heads/main^0\n")
        for path, lines in changes.items():
            if lines is None:
                chunks.append(b"D %s\n" % path.encode())
                self.files.pop(path, None)
                continue
            data = ("\n".join(lines) + "\n").encode()
            chunks.append(b"M 100644 inline %s\ndata %d\n" % (path.encode(), len(data)))
            chunks.append(data + b"\n")
            self.files[path] = lines
        self.pending.append(b"".join(chunks))
        return self.mark

    def flush(self):
        if not self.pending:
            return
        args = ["git", "-C", self.path, "fast-import", "--quiet", "--export-marks=" + self.marks_file]
        if self.started:
            args.append("--import-marks=" + self.marks_file)
        subprocess.run(args, input=b"".join(self.pending), check=True)
        self.pending = []
        self.started = True
        with open(self.marks_file) as f:
            for line in f:
                m, sha = line.split()
                self.sha_of_mark[int(m[1:])] = sha

    def sha(self, mark):
        if mark not in self.sha_of_mark:
            self.flush()
        return self.sha_of_mark[mark]


def bot_message(title, n, body, style="trailer"):
    if style == "title":
        return "%s (#%d)\n\n%s\n" % (title, n, body)
    if style == "trailer_only":
        return "%s\n\n%s\n\nPull Request resolved: https://github.com/pytorch/pytorch/pull/%d\n" % (
            title, body, n)
    if style == "dash_trailer":
        return "%s (#%d)\n\n%s\n\nPull-Request-resolved: https://github.com/pytorch/pytorch/pull/%d\n" % (
            title, n, body, n)
    return ("%s (#%d)\n\n%s\n\nPull Request resolved: https://github.com/pytorch/pytorch/pull/%d\n"
            "Approved by: https://github.com/ezyang\n" % (title, n, body, n))


def revert_message(title, n, sha):
    return ('Revert "%s (#%d)"\n\nThis reverts commit %s.\n\nReverted '
            "https://github.com/pytorch/pytorch/pull/%d on behalf of https://github.com/malfet due "
            "to breaking trunk\n" % (title, n, sha, n))


def read_lines(name):
    with open(os.path.join(HERE, name), encoding="utf-8") as f:
        return f.read().split("\n")[:-1]


def find_line(lines, prefix):
    for i, l in enumerate(lines):
        if l.startswith(prefix):
            return i
    raise SystemExit("make_demo_repo: no line starting with %r" % prefix)


def entry_end(lines, start):
    """Index one past the last line of the YAML entry starting at `start`."""
    i = start + 1
    while i < len(lines) and lines[i].startswith(" "):
        i += 1
    return i


def base_tree():
    files = {NATIVE: read_lines("native_functions.yaml"), DERIV: read_lines("derivatives.yaml"),
             TAGS: read_lines("tags.yaml")}
    for p in SOURCES:
        files[p] = body_lines(p, 120)
    return files


def planted(out):
    repo = Repo(os.path.join(out, "pytorch"))
    files = base_tree()
    t = START
    repo.commit("Initial import of the synthetic tree\n", AUTHORS[0], t - 86400, dict(files))
    plan = []
    op_plugin = read_lines("npu/op_plugin_functions.yaml")

    def op_plugin_line(op):
        return find_line(op_plugin, "  - func: %s(" % op) + 1

    def change(n, title, edits, impact, categories, evidence, style="trailer", npu=None,
               revert_of=None):
        nonlocal t
        t += 3600
        author = AUTHORS[len(plan) % len(AUTHORS)]
        changes = {}
        for path, new in edits.items():
            changes[path] = new
            if new is not None:
                files[path] = new
            else:
                files.pop(path, None)
        if revert_of is not None:
            msg = revert_message(revert_of["title"], revert_of["pr"], repo.sha(revert_of["mark"]))
        elif n is None:
            msg = title + "\n\nDirect push without a PR.\n"
        else:
            msg = bot_message(title, n, "Synthetic change for pr-analysis tests.", style)
        mark = repo.commit(msg, author, t, changes)
        entry = {"pr": n, "title": title, "mark": mark, "revert": revert_of is not None,
                 "impact": impact, "categories": sorted(categories), "evidence": evidence,
                 "npu_hits": npu or [], "style": style}
        plan.append(entry)
        return entry

    def insert(path, after, new_lines):
        lines = list(files[path])
        lines[after:after] = new_lines
        return lines, after + 1

    def code_edit(path, text):
        """Inserts a line after line 10; the evidence line is 11 in the new file."""
        lines, line = insert(path, 10, [text])
        return {path: lines}, line

    # --- operator YAML: every operator-diff kind ----------------------------------------------
    nf = files[NATIVE]
    i = find_line(nf, "- func: abs(Tensor self) -> Tensor")
    new = list(nf)
    new[i] = "- func: abs(Tensor self, *, bool fast=False) -> Tensor"
    sig = change(90001, "Add fast flag to abs", {NATIVE: new}, "high", {"operator-schema"},
                 [{"rule": "op-signature-changed", "file": NATIVE, "op": "abs",
                   "op_change": "signature_changed", "line": i + 1}],
                 npu=[{"npu_file": "op-plugin:op_plugin/config/op_plugin_functions.yaml",
                       "npu_line": op_plugin_line("abs")}])

    nf = files[NATIVE]
    i = find_line(nf, "- func: cumsum.out(")
    new = nf[:i] + nf[entry_end(nf, i) + 1:]
    change(90002, "Remove cumsum.out overload", {NATIVE: new}, "high", {"operator-schema"},
           [{"rule": "op-removed", "file": NATIVE, "op": "cumsum.out", "op_change": "op_removed",
             "line": i + 1}],
           npu=[{"npu_file": "op-plugin:op_plugin/config/op_plugin_functions.yaml",
                 "npu_line": op_plugin_line("cumsum.out")}])

    nf = files[NATIVE]
    i = find_line(nf, "- func: argmax(Tensor self")
    new = list(nf)
    new[i] = new[i].replace("bool keepdim=False", "bool keepdim=True")
    change(90003, "Make argmax keep dims by default", {NATIVE: new}, "medium", {"operator-schema"},
           [{"rule": "op-default-changed", "file": NATIVE, "op": "argmax",
             "op_change": "default_changed", "line": i + 1}])

    nf = files[NATIVE]
    i = find_line(nf, "- func: clamp(Tensor self, Scalar? min=None")
    j = find_line(nf[i:], "    QuantizedCPU: clamp_quantized_cpu") + i
    new = list(nf)
    new[j + 1:j + 1] = ["    CompositeExplicitAutograd: clamp_composite"]
    change(90004, "Give clamp a composite kernel", {NATIVE: new}, "medium", {"operator-schema"},
           [{"rule": "op-dispatch-changed", "file": NATIVE, "op": "clamp",
             "op_change": "dispatch_changed", "line": i + 1}])

    nf = files[NATIVE]
    i = find_line(nf, "- func: argmax(Tensor self")
    end = entry_end(nf, i)
    new = nf[:end + 1] + ["- func: fused_rms_norm(Tensor input, int[] normalized_shape, Tensor? weight=None, float? eps=None) -> Tensor",
                          "  variants: function",
                          "  dispatch:",
                          "    CompositeImplicitAutograd: fused_rms_norm", ""] + nf[end + 1:]
    change(90005, "Add fused_rms_norm operator", {NATIVE: new}, "medium", {"operator-schema"},
           [{"rule": "op-added", "file": NATIVE, "op": "fused_rms_norm", "op_change": "op_added",
             "line": end + 2}], style="title")

    nf = files[NATIVE]
    i = find_line(nf, "- func: argmax(Tensor self")
    j = find_line(nf[i:], "  tags: [core, reduction]") + i
    new = list(nf)
    new[j] = "  tags: [core, reduction, pt2_compliant_tag]"
    change(90006, "Tag argmax as pt2 compliant", {NATIVE: new}, "low", {"operator-schema"},
           [{"rule": "op-metadata-changed", "file": NATIVE, "op": "argmax",
             "op_change": "metadata_changed", "line": i + 1}], style="trailer_only")

    nf = files[NATIVE]
    i = find_line(nf, "- func: cumsum(Tensor self, int dim")
    new = list(nf)
    new[i] = new[i].replace(") -> Tensor", ") -> (Tensor, Tensor)")
    change(90007, "Return the carry from cumsum", {NATIVE: new}, "high", {"operator-schema"},
           [{"rule": "op-signature-changed", "file": NATIVE, "op": "cumsum",
             "op_change": "signature_changed", "line": i + 1}],
           npu=[{"npu_file": "op-plugin:op_plugin/config/op_plugin_functions.yaml",
                 "npu_line": op_plugin_line("cumsum")}], style="dash_trailer")

    dv = files[DERIV]
    i = find_line(dv, "- name: abs(Tensor self) -> Tensor")
    new = list(dv)
    new[i + 1] = "  self: grad * self.sign()"
    change(90008, "Use sign in the abs backward", {DERIV: new}, "medium", {"autograd"},
           [{"rule": "derivative-changed", "file": DERIV, "op": "abs",
             "op_change": "derivative_changed", "line": i + 1}])

    tg = files[TAGS]
    new = tg + ["- tag: needs_exact_strides", "  desc: |", "          Synthetic tag."]
    change(90009, "Add needs_exact_strides tag", {TAGS: new}, "low", {"operator-schema"},
           [{"rule": "op-yaml-other", "file": TAGS, "line": len(tg) + 1}])

    nf = files[NATIVE]
    dv = files[DERIV]
    i = find_line(nf, "- func: argmax(Tensor self")
    end = entry_end(nf, i)
    new_nf = nf[:end + 1] + ["- func: softclip(Tensor self, float limit=1.0) -> Tensor",
                             "  variants: function, method",
                             "  dispatch:",
                             "    CompositeExplicitAutograd: softclip", ""] + nf[end + 1:]
    k = find_line(dv, "- name: abs(Tensor self) -> Tensor")
    new_dv = dv[:k] + ["- name: softclip(Tensor self, float limit=1.0) -> Tensor",
                       "  self: softclip_backward(grad, self, limit)", ""] + dv[k:]
    change(90010, "Add softclip with its derivative", {NATIVE: new_nf, DERIV: new_dv}, "medium",
           {"operator-schema", "autograd"},
           [{"rule": "op-added", "file": NATIVE, "op": "softclip", "op_change": "op_added",
             "line": end + 2},
            {"rule": "derivative-changed", "file": DERIV, "op": "softclip",
             "op_change": "derivative_changed", "line": k + 1}])

    # --- code paths: one per rule -------------------------------------------------------------
    simple = [
        (90011, "torchgen/model.py", "    annotations = None  # codegen", "Codegen: keep annotations",
         "high", "operator-schema", "torchgen"),
        (90012, "torch/csrc/autograd/function.h", "  using NodePtr = c10::intrusive_ptr<Node>;",
         "Hold autograd nodes by intrusive_ptr", "high", "autograd", "autograd-cpp"),
        (90013, "torch/autograd/function.py", "    once_differentiable = True",
         "Autograd Function: default once_differentiable", "low", "autograd", "autograd-python"),
        (90014, "c10/core/DispatchKey.h", "  MTIA_ALIAS = 90,", "Add a dispatch key alias", "high",
         "dispatcher", "privateuse1-hooks"),
        (90015, "aten/src/ATen/detail/PrivateUse1HooksInterface.h",
         "  virtual bool isAvailable() const { return false; }",
         "Hooks: add isAvailable to the backend hooks", "high", "dispatcher", "privateuse1-hooks"),
        (90016, "torch/utils/backend_registration.py", "    _check_name(backend_name)",
         "Validate the renamed backend name", "high", "dispatcher", "backend-registration"),
        (90017, "torch/_tensor.py", "        if self.device.type == 'privateuse1':",
         "Tensor: special-case privateuse1 in __reduce_ex__", "high", "dispatcher",
         "privateuse1-mention"),
        (90018, "aten/src/ATen/core/dispatch/Dispatcher.cpp", "  checkInvariants();",
         "Dispatcher: check invariants on deregistration", "medium", "dispatcher",
         "dispatcher-core"),
        (90019, "c10/core/TensorImpl.h", "  bool has_symbolic_sizes_strides_ = false;",
         "TensorImpl: track symbolic strides", "medium", "device-generic", "c10-core"),
        (90020, "aten/src/ATen/core/TensorBase.h", "  bool is_npu_like() const;",
         "TensorBase: add a device predicate", "medium", "device-generic", "aten-core"),
        (90021, "c10/util/Exception.h", "#define C10_THROW_ERROR_V2(...) C10_THROW_ERROR(__VA_ARGS__)",
         "Add C10_THROW_ERROR_V2", "low", "device-generic", "c10-util"),
        (90022, "torch/csrc/distributed/c10d/ProcessGroup.hpp",
         "  virtual c10::intrusive_ptr<Work> allgather_into_tensor_coalesced_v2();",
         "c10d: add a coalesced allgather", "high", "distributed", "c10d-cpp"),
        (90023, "torch/distributed/tensor/_ops/_math_ops.py", "@register_op_strategy(aten.softclip.default)",
         "DTensor: sharding strategy for softclip", "medium", "distributed", "dtensor"),
        (90024, "torch/distributed/distributed_c10d.py", "    _check_backend_capability(group)",
         "c10d: check backend capability before collectives", "medium", "distributed",
         "distributed-python"),
        (90025, "torch/_inductor/codegen/common.py", "    def synchronize(self): return ''",
         "Inductor: DeviceOpOverrides.synchronize", "medium", "dynamo-inductor", "inductor"),
        (90026, "torch/_dynamo/device_interface.py", "    def memory_allocated(device=None): ...",
         "Dynamo: memory_allocated on DeviceInterface", "medium", "dynamo-inductor", "dynamo"),
        (90027, "torch/fx/graph.py", "        self._codegen_cache = {}", "FX: cache codegen",
         "low", "dynamo-inductor", "fx-hop"),
        (90028, "torch/_meta_registrations.py", "@register_meta(aten.softclip)",
         "Meta kernel for softclip", "medium", "meta-decomp", "meta-decomp"),
        (90029, "torch/_decomp/decompositions.py", "@register_decomposition(aten.softclip)",
         "Decompose softclip", "medium", "meta-decomp", "meta-decomp"),
        (90030, "torch/cuda/memory.py", "def _snapshot(device=None, augment_with_fx_traces=False):",
         "cuda memory snapshot: augment_with_fx_traces", "medium", "device-api", "device-api"),
        (90031, "torch/accelerator/memory.py", "def memory_snapshot(augment_with_fx_traces=False):",
         "accelerator: memory_snapshot", "medium", "device-api", "device-api"),
        (90032, "torch/testing/_internal/common_device_type.py",
         "    instantiate_for_privateuse1 = True",
         "Device-type tests: instantiate for more backends", "high", "testing", None),
        (90033, "test/test_nn.py", "    def test_softclip(self): pass", "Test softclip", "low",
         "testing", "tests-only"),
        (90034, "torch/serialization.py", "    _check_location_tag(location)",
         "Serialization: validate location tags", "medium", "serialization", "serialization"),
        (90035, "torch/profiler/profiler.py", "        self.record_kernel_names = True",
         "Profiler: record kernel names", "low", "profiler", "profiler"),
        (90036, "torch/utils/cpp_extension.py", "    extra_ldflags = ['-Wl,--as-needed']",
         "cpp_extension: link as needed", "medium", "build", "cpp-extension"),
        (90038, "docs/source/notes/cuda.rst", "Memory snapshots can include FX traces.",
         "Docs: snapshot FX traces", "none", "docs-ci", "docs-ci"),
        (90039, ".github/workflows/pull.yml", "      - run: echo cache-warm",
         "CI: warm the cache", "none", "docs-ci", "docs-ci"),
    ]
    for n, path, text, title, impact, category, rule in simple:
        edit, line = code_edit(path, text)
        evidence = []
        categories = {category}
        if rule is not None:
            evidence.append({"rule": rule, "file": path, "line": line})
        if n == 90032:
            # testing-internal (medium) and the privateuse1 text (high, dispatcher) both fire.
            evidence = [{"rule": "testing-internal", "file": path, "line": line},
                        {"rule": "privateuse1-mention", "file": path, "line": line}]
            categories = {"testing", "dispatcher"}
        npu = []
        if path == "torch/distributed/distributed_c10d.py":
            npu = [{"npu_file": "torch_npu:test_upstream/torch/distributed/distributed_c10d.py.patch",
                    "npu_line": 1}]
        if path == "torch/_inductor/codegen/common.py":
            npu = [{"npu_file": "torch_npu:torch_npu/_inductor/codegen/npu_overrides.py",
                    "npu_line": 2}]
        if path == "aten/src/ATen/detail/PrivateUse1HooksInterface.h":
            npu = [{"npu_file": "torch_npu:torch_npu/csrc/core/npu/NPUHooksInterface.h",
                    "npu_line": 2}]
        change(n, title, edit, impact, categories, evidence, npu=npu)

    cm1, l1 = code_edit("CMakeLists.txt", "set(USE_PRIVATE_FLAGS OFF)")
    cm2, l2 = code_edit("cmake/Dependencies.cmake", "find_package(ZSTD)")
    change(90037, "Build: find zstd", {**cm1, **cm2}, "low", {"build"},
           [{"rule": "build-files", "file": "CMakeLists.txt", "line": l1},
            {"rule": "build-files", "file": "cmake/Dependencies.cmake", "line": l2}])

    edit, line = code_edit("caffe2/perfkernels/embedding_lookup.cc", "  // prefetch distance 16")
    change(90040, "perfkernels: prefetch further", edit, "needs-review", set(), [])

    e1, l1 = code_edit("torch/_inductor/scheduler.py", "        self.fuse_across_streams = False")
    e2, l2 = code_edit("docs/source/torch.compiler.md", "Fusion across streams is off by default.")
    change(90041, "Inductor: no fusion across streams", {**e1, **e2}, "medium",
           {"dynamo-inductor", "docs-ci"},
           [{"rule": "inductor", "file": "torch/_inductor/scheduler.py", "line": l1},
            {"rule": "docs-ci", "file": "docs/source/torch.compiler.md", "line": l2}])

    # Revert of the abs signature change, then the reland (same PR, a second commit).
    nf = files[NATIVE]
    i = find_line(nf, "- func: abs(Tensor self, *, bool fast=False) -> Tensor")
    new = list(nf)
    new[i] = "- func: abs(Tensor self) -> Tensor"
    change(90001, sig["title"], {NATIVE: new}, "high", {"operator-schema"},
           [{"rule": "op-signature-changed", "file": NATIVE, "op": "abs",
             "op_change": "signature_changed", "line": i + 1}], revert_of=sig)
    nf = files[NATIVE]
    new = list(nf)
    new[i] = "- func: abs(Tensor self, *, bool fast=False) -> Tensor"
    change(90001, "Add fast flag to abs", {NATIVE: new}, "high", {"operator-schema"},
           [{"rule": "op-signature-changed", "file": NATIVE, "op": "abs",
             "op_change": "signature_changed", "line": i + 1}])

    edit, _ = code_edit("functorch/experimental/ops.py", "    return vmap_impl(fn)")
    change(None, "functorch: direct push fix", edit, "needs-review", set(), [])

    old = files["torch/_inductor/old_name.py"]
    change(90042, "Inductor: rename old_name to new_name",
           {"torch/_inductor/old_name.py": None, "torch/_inductor/new_name.py": old}, "medium",
           {"dynamo-inductor"}, [{"rule": "inductor", "file": "torch/_inductor/new_name.py"}])

    repo.flush()
    for p in plan:
        p["sha"] = repo.sha_of_mark[p.pop("mark")]

    # The NPU side: a few torch_npu files that import, include or patch the upstream files
    # above, and op-plugin's real op_plugin_functions.yaml.
    npu = os.path.join(out, "torch_npu")
    write(os.path.join(npu, "torch_npu/_inductor/codegen/npu_overrides.py"),
          "# NPU device op overrides\nfrom torch._inductor.codegen.common import DeviceOpOverrides\n")
    write(os.path.join(npu, "torch_npu/csrc/core/npu/NPUHooksInterface.h"),
          "#pragma once\n#include <ATen/detail/PrivateUse1HooksInterface.h>\n")
    write(os.path.join(npu, "test_upstream/torch/distributed/distributed_c10d.py.patch"),
          "--- a/torch/distributed/distributed_c10d.py\n+++ b/torch/distributed/distributed_c10d.py\n"
          "@@ -1,1 +1,1 @@\n-import torch\n+import torch  # npu\n")
    write(os.path.join(npu, "torch_npu/csrc/aten/npu_native_functions.yaml"),
          open(os.path.join(HERE, "npu/npu_native_functions.yaml"), encoding="utf-8").read())
    write(os.path.join(out, "op-plugin/op_plugin/config/op_plugin_functions.yaml"),
          open(os.path.join(HERE, "npu/op_plugin_functions.yaml"), encoding="utf-8").read())
    with open(os.path.join(out, "planted.json"), "w") as f:
        json.dump({"since": "2026-11-01", "until": "2026-11-30", "changes": plan}, f, indent=1)


def write(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)


def bench(out, commits, seed):
    """`commits` commits with realistic diffs: 1-6 files each, a few hunks of 1-20 lines; about
    one in twenty edits an operator entry of native_functions.yaml, one in fifty derivatives."""
    rnd = random.Random(seed)
    repo = Repo(os.path.join(out, "pytorch"))
    files = base_tree()
    paths = list(SOURCES)
    for d in BENCH_DIRS:
        for k in range(20):
            ext = ".md" if d.startswith("docs") else (".cpp" if "aten" in d or "c10" in d or "csrc" in d or "caffe2" in d else ".py")
            p = "%s/module_%02d%s" % (d, k, ext)
            paths.append(p)
            files[p] = body_lines(p, rnd.randint(200, 900))
    t = START
    repo.commit("Initial import of the synthetic tree\n", AUTHORS[0], t - 86400, dict(files))
    func_lines = [i for i, l in enumerate(files[NATIVE]) if l.startswith("- func: ")]
    for c in range(commits):
        t += 300
        changes = {}
        r = rnd.random()
        if r < 0.05:
            nf = list(files[NATIVE])
            i = func_lines[rnd.randrange(len(func_lines))]
            if "=False" in nf[i]:
                nf[i] = nf[i].replace("=False", "=True", 1)
            else:
                nf[i] = nf[i].replace("(", "(bool flag_%d=False, " % c, 1) if "()" not in nf[i] else nf[i]
            changes[NATIVE] = nf
        elif r < 0.07:
            dv = list(files[DERIV])
            i = rnd.randrange(len(dv))
            dv.insert(i, "# note %d" % c)
            changes[DERIV] = dv
        for _ in range(rnd.randint(1, 6)):
            p = paths[rnd.randrange(len(paths))]
            lines = list(changes.get(p, files[p]))
            for _ in range(rnd.randint(1, 4)):
                at = rnd.randrange(max(1, len(lines)))
                if rnd.random() < 0.4 and len(lines) > 40:
                    del lines[at:at + rnd.randint(1, 8)]
                else:
                    lines[at:at] = ["    value_%d_%d = compute(%d)  # change %d" % (c, k, k, c)
                                    for k in range(rnd.randint(1, 20))]
            changes[p] = lines
        for p, l in changes.items():
            files[p] = l
        n = 150000 + c
        msg = bot_message("Synthetic change %d" % c, n, "Benchmark change.", "trailer")
        repo.commit(msg, AUTHORS[c % len(AUTHORS)], t, changes)
        if len(repo.pending) >= 200:
            repo.flush()
    repo.flush()


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("out")
    ap.add_argument("--commits", type=int, default=0)
    ap.add_argument("--seed", type=int, default=11)
    a = ap.parse_args()
    if os.path.exists(os.path.join(a.out, "pytorch")):
        sys.exit("make_demo_repo: %s/pytorch exists; pass an empty directory" % a.out)
    if a.commits > 0:
        bench(a.out, a.commits, a.seed)
    else:
        planted(a.out)


if __name__ == "__main__":
    main()
