"""Build meta_audit.jsonl: a verdict for every meta.* / baseline.* / deriv.schema_mismatch /
yaml.version_not_covered / cpp.aclnn_mismatch finding of the checker, plus the real defects
found by this audit.

Usage: /usr/bin/python3 make_meta_audit.py <op-plugin checkout> <old verify output>.json > meta_audit.jsonl
(needs pyyaml and torch for torch._C.parse_schema; torch 1.13 parses every op-plugin schema)

Binding model (checked in binding_experiment.py): the dispatcher passes positional schema arguments
by position, dropping the trailing run that equals the schema default, and keyword-only arguments by
name, only when they differ from the schema default.
"""
import ast
import json
import re
import sys
from collections import defaultdict

import torch
import yaml

ROOT = sys.argv[1]
FINDINGS = sys.argv[2]
YREL = "op_plugin/config/op_plugin_functions.yaml"
MREL = "op_plugin/python/meta/_meta_registrations.py"
JREL = "test/core_tests/torch_npu_OpApi_schema_all.json"

# ----------------------------------------------------------------------------- YAML schemas
ylines = open(f"{ROOT}/{YREL}").read().split("\n")
Y = yaml.safe_load(open(f"{ROOT}/{YREL}"))
ALLV = Y["all_version"]
func_lines = defaultdict(list)
for i, l in enumerate(ylines, 1):
    mm = re.match(r"\s*- func:\s*(.*)$", l)
    if mm:
        func_lines[mm.group(1).split("(")[0].strip()].append(i)
SCHEMA = {}
for sec in ("official", "custom", "symint", "quant", "autograd"):
    for e in Y.get(sec) or []:
        n = e["func"].split("(")[0]
        SCHEMA.setdefault(n, dict(sec=sec, func=e["func"], entry=e, line=func_lines[n][0], lines=func_lines[n]))


def split_args(f):
    inner = f[f.index("(") + 1:f.index(") ->")] if ") ->" in f else f[f.index("(") + 1:f.rindex(")")]
    out, depth, cur = [], 0, ""
    for ch in inner:
        depth += ch in "(["
        depth -= ch in ")]"
        if ch == "," and depth == 0:
            out.append(cur.strip())
            cur = ""
        else:
            cur += ch
    if cur.strip():
        out.append(cur.strip())
    return out


def parse_schema(f):
    s = torch._C.parse_schema(f)
    txt = {}
    for a in split_args(f):
        if a == "*":
            continue
        head = a.split("=")[0].split()
        txt[head[-1]] = a.split("=", 1)[1].strip() if "=" in a else None
    args = [dict(name=a.name, kwonly=a.kwarg_only, default=txt.get(a.name), type=str(a.type),
                 has_default=txt.get(a.name) is not None) for a in s.arguments]
    return dict(args=args, rets=[str(r.type) for r in s.returns])


# ----------------------------------------------------------------------------- Meta functions
msrc = open(f"{ROOT}/{MREL}").read()
mlines = msrc.split("\n")
mtree = ast.parse(msrc)
METAS = defaultdict(list)
for node in ast.walk(mtree):
    if not isinstance(node, ast.FunctionDef):
        continue
    for dec in node.decorator_list:
        if isinstance(dec, ast.Call) and getattr(dec.func, "id", None) == "impl" and len(dec.args) >= 2:
            lib = ast.unparse(dec.args[0])
            a = node.args
            pos = a.posonlyargs + a.args
            nd = len(a.defaults)
            P = []
            for i, x in enumerate(pos):
                j = i - (len(pos) - nd)
                P.append(dict(name=x.arg, kind="pos", has_default=j >= 0,
                              default=ast.unparse(a.defaults[j]) if j >= 0 else None))
            for x, dv in zip(a.kwonlyargs, a.kw_defaults):
                P.append(dict(name=x.arg, kind="kw", has_default=dv is not None,
                              default=ast.unparse(dv) if dv is not None else None))
            sig_end = node.body[0].lineno - 1
            METAS[dec.args[1].value].append(dict(
                lib=lib, fn=node.name, line=node.lineno, params=P, node=node,
                vararg=a.vararg.arg if a.vararg else None, kwarg=a.kwarg.arg if a.kwarg else None,
                sig=" ".join(x.strip() for x in mlines[node.lineno - 1:sig_end]).strip()))


def meta_of(op):
    ms = [m for m in METAS.get(op, []) if m["lib"] == "m"] or METAS.get(op, [])
    return ms[0] if ms else None


def reads(meta, name):
    return any(isinstance(n, ast.Name) and n.id == name and isinstance(n.ctx, ast.Load)
               for n in ast.walk(meta["node"]))


def read_lines(meta, name):
    return sorted({n.lineno for n in ast.walk(meta["node"])
                   if isinstance(n, ast.Name) and n.id == name and isinstance(n.ctx, ast.Load)})


# ----------------------------------------------------------------------------- evidence helpers
def ev_yaml(op):
    s = SCHEMA.get(op)
    return f"{YREL}:{s['line']}: func: {s['func']}" if s else f"{YREL}: no entry for {op}"


def ev_meta(op):
    m = meta_of(op)
    return f"{MREL}:{m['line']}: {m['sig']}" if m else f"{MREL}: no @impl(m, \"{op}\")"


def ev_reads(op, name):
    m = meta_of(op)
    if not m:
        return None
    ls = read_lines(m, name)
    return {"param": name, "body_reads": bool(ls), "read_at": [f"{MREL}:{x}" for x in ls]}


def quoted(msg):
    q = re.findall(r"'([^']+)'", msg)
    return q[0] if q else None


def clip(s, n=240):
    return s if not isinstance(s, str) or len(s) <= n else s[:n] + "..."


def line(**kw):
    base = dict(rule=None, op=None, severity_before=None, verdict=None, severity_by_consequence=None,
                breaks="none", evidence={}, reason="")
    base.update(kw)
    return base


SEV = {"real": "error", "inconsistency": "warning", "false": "none"}

# ----------------------------------------------------------------------------- hand-checked facts
REAL_CALLS = {  # failing calls, each re-run through the dispatcher in verify_real_defects.py
    ("npu_geglu_grad", "dim"): "torch.ops.npu.npu_geglu_grad(grad_output, self, gelu) (dim=-1, approximate=1 left at default, as the derivatives.yaml backward of npu_geglu does by default) -> TypeError: npu_geglu_backward_meta() missing 2 required positional arguments: 'dim' and 'approximate'",
    ("npu_quant_conv2d", None): "torch.ops.npu.npu_quant_conv2d(input, weight, scale) omitting strides/pads/dilations -> TypeError: npu_quant_conv2d() missing 3 required positional arguments: 'strides', 'pads', and 'dilations'",
    ("npu_rms_norm_quant_v2", None): "torch.ops.npu.npu_rms_norm_quant_v2(x, gamma, scale) without offset=/beta= -> TypeError: npu_rms_norm_quant_v2_meta() missing 2 required positional arguments: 'offset' and 'beta'",
    ("npu_scatter_list", None): "torch.ops.npu.npu_scatter_list(self, indices, updates) omitting mask -> TypeError: scatter_list_meta() missing 1 required positional argument: 'mask'",
    ("npu_scatter_list_", None): "torch.ops.npu.npu_scatter_list_(self, indices, updates) omitting mask -> TypeError: scatter_list__meta() missing 1 required positional argument: 'mask'",
    ("npu_top_k_top_p", None): "torch.ops.npu.npu_top_k_top_p(logits) or (logits, p) -> TypeError: npu_top_k_top_p_meta() missing required positional argument(s) 'p'/'k'",
    ("obfuscation_calculate", None): "torch.ops.npu.obfuscation_calculate(fd, x, param) -> TypeError: obfuscation_calculate_meta() missing 1 required positional argument: 'cmd' (every call); with obf_coefficient=0.5 -> TypeError: unexpected keyword argument 'obf_coefficient'",
    ("npu_apply_adam_w.out", None): "torch.ops.npu.npu_apply_adam_w.out(..., var=v0, m=m0, v=v1) (every call: out tensors have no default) -> TypeError: npu_apply_adam_w_meta() got an unexpected keyword argument 'var'",
    ("npu_grouped_matmul_add", None): "torch.ops.npu.npu_grouped_matmul_add(y, x, weight, group_list, group_list_type=1) -> TypeError: npu_grouped_matmul_add_meta() got an unexpected keyword argument 'group_list_type'",
    ("npu_moe_distribute_combine", None): "torch.ops.npu.npu_moe_distribute_combine(..., shared_expert_x=t) -> TypeError: npu_moe_distribute_combine_meta() got an unexpected keyword argument 'shared_expert_x'",
    ("npu_moe_distribute_combine_teardown", "comm_alg"): "torch.ops.npu.npu_moe_distribute_combine_teardown(..., comm_alg='fullmesh') -> TypeError: unexpected keyword argument 'comm_alg'",
    ("npu_moe_distribute_combine_teardown", "x_active_mask"): "torch.ops.npu.npu_moe_distribute_combine_teardown(..., x_active_mask=t) -> TypeError: npu_moe_distribute_combine_teardown_meta() got multiple values for argument 'x_active_mask' (Meta lacks comm_cmd_info, so positional moe_expert_num lands in Meta's x_active_mask)",
    ("npu_deformable_conv2d", None): "torch.ops.npu.npu_deformable_conv2d(input, weight, offset, bias, kernel_size, stride, padding, modulated=False) -> TypeError: npu_deformable_conv2d_meta() takes from 7 to 10 positional arguments but 11 were given",
    ("npu_geglu_grad", "return"): "torch.ops.npu.npu_geglu_grad(g, x, gelu, 0, 0) (any call that binds) -> RuntimeError: Unable to cast (tensor, tensor) to Tensor (Meta returns a 2-tuple, schema returns Tensor)",
    ("npu_scatter_list_", "return"): "torch.ops.npu.npu_scatter_list_(self, indices, updates, mask) (any call that binds) -> RuntimeError: Expected PythonKernelHolder for npu::npu_scatter_list_ to return None but it returned something else instead (schema '-> ()', Meta returns self)",
}


def real_call(op, param=None):
    return REAL_CALLS.get((op, param)) or REAL_CALLS.get((op, None)) or REAL_CALLS.get((op, "dim"))


# meta.default_mismatch: what the body does with the Meta default versus the schema default
DEFAULT_NOTES = {
    ("npu_sparse_flash_attention", "pre_tokens"): ("false", "Meta default (1 << 63) - 1 == 9223372036854775807, the schema default; the checker compares the text, not the value (and the body never reads it)."),
    ("npu_sparse_flash_attention", "next_tokens"): ("false", "Meta default (1 << 63) - 1 == 9223372036854775807, the schema default; the checker compares the text, not the value (and the body never reads it)."),
    ("_npu_dropout_gen_mask.Tensor", "parallel"): ("false", "The Meta body never reads 'parallel'; the output shape does not depend on it."),
    ("npu_rotary_mul_backward", "rotary_mode"): ("false", "Binds positionally to Meta parameter 'mode' (default 0), which the body never reads."),
    ("npu_quant_scatter", "dst_type"): ("false", "The Meta body never reads 'dst_type' (returns empty_like(self))."),
    ("npu_quant_scatter_", "dst_type"): ("false", "The Meta body never reads 'dst_type' (returns self)."),
    ("npu_moe_distribute_combine_add_rms_norm", "norm_eps"): ("false", "The Meta body never reads 'norm_eps'."),
    ("npu_ffn", "inner_precise"): ("false", "The Meta body never reads 'inner_precise'."),
    ("npu_kronecker_quant", "clip_ratio"): ("false", "The Meta body never reads 'clip_ratio'."),
    ("npu_kronecker_quant", "dst_type_max"): ("false", "The Meta body never reads 'dst_type_max'."),
    ("npu_apply_rotary_pos_emb", "layout"): ("false", "The Meta body never reads 'layout' (outputs are empty_like(query/key))."),
    ("npu_swiglu_group_quant", "dst_type"): ("false", "The Meta body never reads 'dst_type' (y is uint8 in both branches)."),
    ("npu_swiglu_group_quant", "dst_type_max"): ("false", "The Meta body never reads 'dst_type_max'."),
    ("kl_div_backward", "reduction"): ("false", "The Meta body never reads 'reduction' (returns empty_like(x))."),
    ("npu_gelu_quant", "dst_type"): ("inconsistency", "Body reads dst_type: with the schema default None it would raise, with the Meta default 1 it returns int8; the kernel (GeluQuantKernelNpuOpApi.cpp:38-41) maps None to ACL_INT8, so Meta's 1 (int8) reproduces the kernel. Same result, misleading default."),
    ("npu_rms_norm_quant_v2", "dst_dtype"): ("inconsistency", "Body line 2906 maps None to 1 itself, so None and 1 both give int8; same result."),
    ("npu_dynamic_quant", "dst_type"): ("inconsistency", "Body: MAP.get(None, int8) and MAP[1] are both int8 and neither is 290, so None and 1 take the same branch (int8 output), as the kernel does for None (DynamicQuantKernelNpuOpApi.cpp:49)."),
    ("npu_dynamic_quant_asymmetric", "dst_type"): ("inconsistency", "Body: MAP.get(None, int8) and MAP[1] are both int8; same branch, same int8 output."),
    ("npu_swiglu_quant", "dst_type"): ("inconsistency", "Schema 'ScalarType? dst_type=None'; kernel maps None to int8 (SwigluquantKernelNpuOpApi.cpp:53-55); Meta default torch.int8 gives the same dtype."),
    ("npu_grouped_dynamic_block_quant", "dst_type"): ("inconsistency", "Body: MAP.get(torch.float8_e5m2, float8_e5m2) == MAP[291] == float8_e5m2; same dtype."),
    ("npu_deformable_conv2d", "dilation"): ("inconsistency", "Body line 6957 replaces None by [1, 1, 1, 1], the schema default; same shapes."),
}


# ----------------------------------------------------------------------------- baseline model
def get_version(v):  # torchnpugen/op_codegen_utils.py get_version
    if v is None:
        return []
    if isinstance(v, list):
        s = ALLV.index(v[0])
        e = None if v[1] == "newest" else ALLV.index(v[1])
        return ALLV[s:e + 1] if e is not None else ALLV[s:]
    if v == "all_version":
        return list(ALLV)
    return v.split(", ") if ", " in v else v.split(",")


tsrc = open(f"{ROOT}/test/core_tests/test_compatibility.py").read()
tns = {}
exec(tsrc[tsrc.index("def is_not_compatibility"):tsrc.index("def get_func_from_yaml")], tns)
exec(tsrc[tsrc.index("def parse_func_str"):tsrc.index("def func_from_yaml")], tns)
is_not_compatibility, parse_func_str = tns["is_not_compatibility"], tns["parse_func_str"]
BASE0 = json.load(open(f"{ROOT}/{JREL}"))
jlines = open(f"{ROOT}/{JREL}").read().split("\n")
JLINE = {}
for i, l in enumerate(jlines, 1):
    mm = re.match(r'\s*"((?:func|op_api): .*)": \{', l)
    if mm:
        JLINE.setdefault(json.loads('"' + mm.group(1) + '"'), i)


def content_for(v):  # what npu_native_functions_by_codegen.yaml holds for torch v (gen_op_plugin_functions.py)
    c = defaultdict(list)
    for sec in ("official", "custom", "symint", "quant", "autograd"):
        if sec == "quant" and v in ("v1.11", "v2.0", "v2.1"):
            continue
        for e in Y.get(sec) or []:
            if v in get_version(e.get("acl_op")) + get_version(e.get("op_api")) + get_version(e.get("sparse")):
                fn, sig = parse_func_str(e["func"])
                c["func: " + fn].append(sig)
    return c


def base_for(v):  # test_op_func_compatibility's version filter; first eligible key wins
    b = {}
    for key, value in BASE0.items():
        if key.startswith("op_api:"):
            continue
        vv = value["version"]
        if not ("all_version" in vv or v in vv):
            if "newest" not in vv:
                continue
            idx = vv.index("newest") - 1
            if int(v.replace(".", "")[1:]) < int(vv[idx].replace(".", "")[1:]):
                continue
        fn, sig = parse_func_str(key)
        b.setdefault(fn, dict(signature=sig, key=key))
    return b


TESTED = [v for v in ALLV if v not in ("v1.11", "v2.0", "v2.2")]  # skipIf in test_compatibility.py
COMPAT = defaultdict(list)  # op -> [(version, kind, detail)]
for v in TESTED:
    c, b = content_for(v), base_for(v)
    for fn, sigs in c.items():
        if fn not in b:
            COMPAT[fn[6:]].append((v, "new", sigs[-1]))
            continue
        for s in set(sigs):
            if is_not_compatibility(b[fn]["signature"], s):
                COMPAT[fn[6:]].append((v, "incompatible", s))
    for fn in b:
        if fn not in c:
            COMPAT[fn[6:]].append((v, "deleted", b[fn]["key"]))


def compat_status(op):
    fails = COMPAT.get(op, [])
    return "passes for " + ", ".join(TESTED) if not fails else "; ".join(f"{v}: {k}" for v, k, _ in fails)


# ----------------------------------------------------------------------------- per finding
data = json.load(open(FINDINGS))
RULES = lambda r: r.startswith("meta.") or r.startswith("baseline.") or r in (
    "deriv.schema_mismatch", "yaml.version_not_covered", "cpp.aclnn_mismatch")
out = []
for f in data["findings"]:
    r, op = f["rule"], f["op"]
    if not RULES(r):
        continue
    p = quoted(f.get("message", ""))
    L = line(rule=r, op=op, severity_before=f["severity"],
             checker={"message": f.get("message"), "expected": clip(f.get("expected")), "found": clip(f.get("found")),
                      "where": f.get("where"), "other": f.get("other")})
    ev = {"yaml": ev_yaml(op), "meta": ev_meta(op)}
    m = meta_of(op)
    if r == "meta.missing":
        e = SCHEMA[op]["entry"]
        rets = parse_schema(SCHEMA[op]["func"])["rets"]
        ev = {"yaml": ev_yaml(op), "meta": f"{MREL}: no @impl(m, \"{op}\")",
              "fake_registrations": "op_plugin/python/meta/_fake_registrations.py registers only npu_fusion_attention_v3 and npu_fusion_attention_grad_v3"}
        if "dispatch" in e:
            L.update(verdict="false", reason=f"The YAML gives a dispatch entry {e['dispatch']}: a CompositeExplicitAutograd kernel also serves the Meta key, so the op is not without a Meta kernel (whether that C++ kernel tolerates meta tensors was not checked).")
            ev["dispatch"] = e["dispatch"]
        elif any(t not in ("Tensor", "List[Tensor]", "Optional[Tensor]") for t in rets):
            L.update(verdict="false", reason=f"The op returns {rets}: a data-dependent scalar that no Meta kernel can compute; FakeTensor must treat it as data-dependent anyway.")
        else:
            L.update(verdict="inconsistency", breaks=f"only on meta/fake tensors: torch.ops.npu.{op.split('.')[0]}(...) under FakeTensorMode / torch.compile -> NotImplementedError/UnsupportedOperatorException (no 'Meta' kernel); eager NPU calls are unaffected",
                     reason="Coverage gap, not a signature mismatch: eager NPU execution works; on meta/fake tensors the op has no kernel, so torch.compile cannot trace it (graph break, or an error with fullgraph=True / torchair). A maintainer adds a Meta function when the op is meant for graph mode.")
    elif r == "meta.param_renamed":
        L.update(verdict="inconsistency", reason=f"Positional schema argument '{f['expected']}' binds by position to Meta parameter '{f['found']}'; names of positional arguments are never used by the dispatcher, so the call works. Renaming only helps readers.")
        if op == "npu_dropout_with_add_softmax":
            L["reason"] += " Here Meta calls schema 'self' x1 and schema 'x1' x2; the body only computes x1 + x2 (symmetric), so nothing changes."
    elif r == "meta.default_extra":
        L.update(verdict="false", reason=f"'{p}' has no default in the schema, so the dispatcher always passes it (positional: by position, keyword-only: by name); the Meta default is never used.")
        ev["param"] = p
    elif r == "meta.kwonly_split":
        if op == "npu_rms_norm_quant_v2":
            L.update(verdict="real", breaks=real_call(op), duplicate_of="meta.default_missing npu_rms_norm_quant_v2 offset/beta",
                     reason="A keyword-only schema argument is passed by name, which a positional-or-keyword Meta parameter accepts, so the kind alone is harmless; this one fails because the Meta parameters 'offset' and 'beta' have no default and are not passed when left at None.")
        elif op == "obfuscation_calculate":
            L.update(verdict="real", breaks=real_call(op), duplicate_of="meta.kwarg_renamed obfuscation_calculate",
                     reason="The Meta function has no parameter 'obf_coefficient' at all: its 4th parameter 'cmd' is required and never fed (obf_coefficient is keyword-only, passed by name only when != 1.0).")
        else:
            L.update(verdict="false", reason=f"'{p}' is keyword-only in the schema, so the dispatcher passes it by name only; the Meta parameter of that name is positional-or-keyword and accepts it by name. Its position lies after all schema positional arguments, so nothing else lands in it.")
            if op == "_npu_dropout_gen_mask.Tensor":
                L["reason"] += " (The None-vs-True default of 'parallel' is covered by meta.default_mismatch; the body never reads it.)"
        ev["param"] = p
    elif r == "meta.default_mismatch":
        verdict, why = DEFAULT_NOTES[(op, p)]
        L.update(verdict=verdict, reason=why)
        ev["reads"] = ev_reads(op, p if op != "npu_rotary_mul_backward" else "mode")
        ev["defaults"] = {"schema": f["expected"], "meta": f["found"]}
    elif r == "meta.default_missing":
        L.update(verdict="real", breaks=real_call(op, p),
                 reason=f"Schema '{p}' has default {f['expected']}; a defaulted trailing positional / defaulted keyword-only argument is NOT passed by the dispatcher, and the Meta parameter has no default, so the call raises TypeError whenever '{p}' is left at its default.")
        if op == "obfuscation_calculate":
            L["reason"] = "Meta parameter 'cmd' (no default) is what the checker pairs with 'obf_coefficient'; it is never fed (obf_coefficient is keyword-only and passed only when != 1.0, and by the name 'obf_coefficient'), so EVERY call raises TypeError."
        ev["param"] = p
    elif r == "meta.kwarg_missing":
        L.update(verdict="real", breaks=real_call(op, p),
                 reason=f"Keyword-only '{p}' is passed by name ({'always: no default' if op == 'npu_apply_adam_w.out' else 'whenever it differs from its default'}); the Meta function has no such parameter and no **kwargs.")
        ev["param"] = p
    elif r == "meta.kwarg_renamed":
        L.update(verdict="real", breaks=real_call(op),
                 reason="The dispatcher passes 'obf_coefficient' by name (when != 1.0) and never feeds the required Meta parameter 'cmd': every call fails.")
    elif r == "meta.param_count":
        if op in ("npu_grouped_matmul.List", "npu_moe_distribute_combine_setup"):
            extra = "tuning_config, x_dtype, weight_dtype, scale_dtype, per_token_scale_dtype (the Meta function is shared with npu_grouped_matmul, line 3680)" if op.startswith("npu_grouped") else "y_dtype"
            L.update(verdict="false", reason=f"The Meta function only has extra OPTIONAL parameters ({extra}); every schema argument has a Meta parameter, the extras are never fed and keep their defaults.")
        else:
            L.update(verdict="real", breaks=real_call(op, "x_active_mask" if op.endswith("teardown") else None),
                     reason={"npu_apply_adam_w.out": "Meta has keyword-only 'out' (required, never fed) instead of var/m/v (passed by name on every call).",
                             "npu_deformable_conv2d": "Meta has no 'modulated' (schema positional #10, default True); passing modulated=False makes the dispatcher pass 11 positional values.",
                             "npu_grouped_matmul_add": "Meta has no 'group_list_type' (keyword-only, default 0).",
                             "npu_moe_distribute_combine": "Meta has no 'shared_expert_x' (keyword-only, default None).",
                             "npu_moe_distribute_combine_teardown": "Meta lacks positional 'comm_cmd_info' (schema #5) and keyword 'comm_alg': all later positional values shift by one (unread by the body), moe_expert_num lands in Meta's 'x_active_mask', so passing x_active_mask collides; comm_alg != '' is rejected."}[op])
    elif r == "meta.param_order":
        if op == "npu_fused_infer_attention_score":
            L.update(verdict="false", reason="Only keyword-only parameters are in a different order (softmax_lse_flag/key_antiquant_mode/value_antiquant_mode); keyword-only arguments bind by name, order is irrelevant.")
        else:
            L.update(verdict="inconsistency", reason="All five are positional without defaults and bind by position; Meta merely names schema 'self'/'x1' as x1/x2 (and prob->prod, dim->axis). The body computes x1 + x2 (symmetric), so results do not change. (Aside, not a binding issue: the mask output is numel-sized, the kernel's mask is rounded up to 128 elements, DropoutWithAddSoftmaxKernelNpu.cpp:28-30.)")
    elif r == "meta.return_count":
        L.update(verdict="real", breaks=real_call("npu_geglu_grad", "return"),
                 reason="Schema returns one Tensor; the Meta function returns a 2-tuple; pushPyOutToStack converts the tuple to Tensor and fails.")
        ev["return"] = f"{MREL}:3170"
    elif r == "meta.return_unknown":
        if op == "npu_scatter_list_":
            L.update(verdict="real", breaks=real_call(op, "return"),
                     reason="Schema '-> ()' requires the Python kernel to return None; 'return self' returns the tensor list, which pushPyOutToStack rejects on every call that binds.")
            ev["return"] = f"{MREL}:3117: return self"
        elif op == "npu_mhc_pre":
            L.update(verdict="false", reason="output_tensors is a 6-tuple (line 254); schema has 6 returns.")
            ev["return"] = f"{MREL}:254-255"
        else:
            L.update(verdict="false", reason="Returns rope_quant_kvcache(...), whose return (line 5945-5948) is a 5-tuple; schema has 5 returns.")
            ev["return"] = f"{MREL}:5945"
    elif r == "meta.orphan":
        L.update(verdict="false",
                 reason="The op is defined by torch_npu, not op-plugin: Ascend/pytorch torch_npu/csrc/aten/npu_native_functions.yaml:83-85 declares _npu_format_cast, .aclnn and .input_dtype (same schemas as op-plugin's derivatives.yaml:30-40); torch_npu is imported before the registration (import torch_npu at line 5), so Library('npu','IMPL','Meta') finds the op; test/core_tests/test_fake_tensor.py:6517ff exercises all three overloads.")
        ev = {"meta": ev_meta(op), "derivatives": "op_plugin/config/derivatives.yaml:30,34,38",
              "torch_npu": "Ascend/pytorch torch_npu/csrc/aten/npu_native_functions.yaml:83-85"}
    elif r == "meta.varargs":
        L.update(verdict="false", reason="aten::_convolution has 13 positional arguments without defaults (YAML line 142); the Meta function names 12 and *args takes allow_tf32; binding always works.")
    elif r == "baseline.stale":
        L.update(verdict="false", reason=f"test_op_func_compatibility accepts it: the newer schema only adds arguments with defaults (is_not_compatibility is False). Simulated for every tested torch version: {compat_status(op)}.")
        ev = {"yaml": ev_yaml(op), "baseline": f"{JREL}:{f['where'].get('line')}"}
    elif r == "baseline.incompatible":
        if op in ("repeat", "threshold"):
            L.update(verdict="false", reason=f"The test's parse_func_str splits the func on the op name, and '{op}' also occurs in a parameter name ({'repeats' if op == 'repeat' else 'Scalar threshold'}), so the test itself reads the signature as the truncated text the baseline stores; base == new, the test passes ({compat_status(op)}).")
        else:
            L.update(verdict="inconsistency", reason=f"The baseline key is garbled ('-> (Tensor, Tensor, Tensor, Tensor) -> (Tensor, Tensor, Tensor)'); is_not_compatibility compares only the first '->' segment, which equals the YAML's 4 returns, so the test passes ({compat_status(op)}). A maintainer would clean the key.")
        ev = {"yaml": ev_yaml(op), "baseline": f"{JREL}:{f['where'].get('line')}",
              "test": "test/core_tests/test_compatibility.py:73-81 (parse_func_str), 25-60 (is_not_compatibility)"}
    elif r == "baseline.missing":
        L.update(verdict="false", reason="The op is in the 'quant' section with acl_op: v2.2 only; test_op_func_compatibility is skipped for v2.2 (skipIf v1.11/v2.0/v2.2), so it never sees the op.")
        ev = {"yaml": ev_yaml(op), "test": "test/core_tests/test_compatibility.py:186,281 skipIf"}
    elif r == "deriv.schema_mismatch":
        L.update(verdict="false", reason="torch_npu's codegen rewrites PyTorch's native 'matmul_backward(Tensor grad, ...)' to 'matmul_backward(Tensor grad_out, ...)' before it loads derivatives (Ascend/pytorch torchnpugen/gen_backend_stubs.py, modify_func_in_native_yaml in parse_native_and_custom_yaml), so the derivatives entry with 'grad_out' matches; op-plugin's own torchnpugen/gen_derivatives.py only filters by version.")
        ev = {"derivatives": "op_plugin/config/derivatives.yaml:70", "yaml": ev_yaml(op),
              "rename": "Ascend/pytorch torchnpugen/gen_backend_stubs.py modify_func_in_native_yaml"}
    elif r == "yaml.version_not_covered":
        L.update(verdict="inconsistency", reason="npu_mla_prolog has only acl_op; torchnpugen/gen.py consults internal_format_opapi only in the op_api branches (lines 318-389); the acl_op-only branch (line 390) ignores it, so the flag is dead config for this op; nothing fails.")
        ev = {"yaml": f"{YREL}:6507-6510", "codegen": "torchnpugen/gen.py:318-390"}
    elif r == "cpp.aclnn_mismatch":
        if op == "bitwise_and.Tensor":
            L.update(verdict="false", reason="bitwise_and(Tensor, Tensor) checks BOTH symbols (line 56 aclnnBitwiseAndScalar, line 57 aclnnBitwiseAndTensor) and may run either (scalar path via op_api::bitwise_and(self, Scalar)); the checker saw only the first DO_COMPATIBILITY.")
            ev = {"cpp": "op_plugin/ops/opapi/BitwiseAndKernelNpuOpApi.cpp:55-87"}
        else:
            L.update(verdict="inconsistency", reason="DO_COMPATIBILITY probes aclnnLogSigmoid but EXEC runs aclnnLogSigmoidForward. Only a CANN build that has one symbol and not the other would misroute (no fallback -> missing-symbol error, or an unneeded acl_op fallback); no such CANN release is known here, so no failing call can be named.")
            ev = {"cpp": f"op_plugin/ops/opapi/LogSigmoidNpuOpApi.cpp:{f['where'].get('line')}-{f['other'].get('line')}"}
    else:
        raise SystemExit("unhandled rule " + r)
    L["severity_by_consequence"] = SEV[L["verdict"]]
    if r in ("meta.missing", "meta.param_renamed", "meta.default_extra") or r.startswith("baseline."):
        ev = {k: clip(v, 300) for k, v in ev.items()}  # the full schema adds nothing to these verdicts
    L["evidence"] = ev
    out.append(L)

# ----------------------------------------------------------------------------- audit-found lines
AUD = []


def add(rule, op, breaks, reason, checker_today, evidence):
    AUD.append(line(rule=rule, op=op, severity_before=checker_today, verdict="real",
                    severity_by_consequence="error", breaks=breaks, evidence=evidence,
                    reason=reason, found_by="audit"))


for op, params in [("npu_geglu_grad", "dim, approximate"), ("npu_quant_conv2d", "strides, pads, dilations"),
                   ("npu_rms_norm_quant_v2", "offset, beta (keyword-only in the schema)"),
                   ("npu_scatter_list", "mask"), ("npu_scatter_list_", "mask"), ("npu_top_k_top_p", "p, k"),
                   ("obfuscation_calculate", "obf_coefficient (fed to nothing; Meta 'cmd' required)")]:
    add("meta.default_missing", op, real_call(op),
        f"Schema defaults for {params} are not passed when left at default; the Meta parameters have no default -> TypeError. The checker reports this only as warning (meta.default_missing).",
        "warning (meta.default_missing)", {"yaml": ev_yaml(op), "meta": ev_meta(op)})
add("meta.return_count", "npu_scatter_list_", real_call("npu_scatter_list_", "return"),
    "Schema '-> ()'; Meta returns self. The checker reports only info meta.return_unknown.",
    "info (meta.return_unknown)", {"yaml": ev_yaml("npu_scatter_list_"), "meta": ev_meta("npu_scatter_list_"),
                                   "return": f"{MREL}:3117"})
add("meta.positional_shift", "npu_moe_distribute_combine_teardown", real_call("npu_moe_distribute_combine_teardown", "x_active_mask"),
    "Meta lacks positional 'comm_cmd_info' (schema index 5): group_ep..moe_expert_num receive comm_cmd_info..ep_rank_id and Meta's x_active_mask receives moe_expert_num; a caller's x_active_mask then collides. The checker reports param_count/kwarg_missing(comm_alg) but not this collision or the shift.",
    "error (meta.param_count; cause not named)", {"yaml": ev_yaml("npu_moe_distribute_combine_teardown"),
                                                  "meta": ev_meta("npu_moe_distribute_combine_teardown")})
def gen_versions(op):
    vs = set()
    for sec in ("official", "custom", "symint", "quant", "autograd"):
        for e in Y.get(sec) or []:
            if e["func"].split("(")[0] == op:
                vs |= set(get_version(e.get("acl_op")) + get_version(e.get("op_api")) + get_version(e.get("sparse")))
    return sorted(vs, key=ALLV.index)


# baseline: test_op_func_compatibility failures the checker does not report
for op, fails in sorted(COMPAT.items()):
    vs = ", ".join(v for v, _, _ in fails)
    kinds = sorted({k for _, k, _ in fails})
    s = SCHEMA.get(op)
    yl = f"{YREL}:{s['lines']}" if s else "none"
    bkeys = sorted({JLINE.get(d) for _, k, d in fails if k == "deleted"} - {None})
    if kinds == ["deleted"]:
        why = (f"The baseline lists the op for {BASE0[[k for k in BASE0 if k.startswith('func: ' + op + '(')][0]]['version']} "
               f"but the YAML generates it only for {gen_versions(op)}; "
               f"test_op_func_compatibility reports '# func: {op}: has been deleted' on torch {vs}.")
    else:
        why = (f"The YAML generates the op on torch {vs} but no baseline entry covers those versions "
               f"(baseline versions: {[BASE0[k]['version'] for k in BASE0 if k.startswith('func: ' + op + '(')]}); the test reports it as new.")
    AUD.append(line(rule="baseline.version_gap", op=op, severity_before="none (not reported)", verdict="real",
                    severity_by_consequence="error",
                    breaks=f"test/core_tests/test_compatibility.py::TestOpApiCompatibility::test_op_func_compatibility on torch {vs} ({'/'.join(kinds)})",
                    evidence={"yaml": yl, "baseline": [f"{JREL}:{JLINE.get(k)}" for k in BASE0 if k.startswith('func: ' + op + '(')]},
                    reason=why + " Real for CI runs with those torch versions (all_version lists them; the test is skipped only for v1.11/v2.0/v2.2), not a user-facing run-time failure.",
                    found_by="audit"))

for L in out + AUD:
    print(json.dumps(L, ensure_ascii=False))
