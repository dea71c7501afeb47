"""Re-run the real Meta defects of op-plugin 517f2e7 through the torch dispatcher (torch 1.13, CPU).

Each op is defined from its exact YAML schema in a scratch namespace, the exact Meta function from
op_plugin/python/meta/_meta_registrations.py is registered for the Meta key (source text exec'd
unchanged, decorators dropped), and the op is called with meta tensors.
Usage: /usr/bin/python3 verify_real_defects.py <op-plugin checkout>
"""
import ast, sys, math, yaml, re, torch
from torch.library import Library
ROOT = sys.argv[1]
src = open(ROOT + "/op_plugin/python/meta/_meta_registrations.py").read()
tree = ast.parse(src)
y = yaml.safe_load(open(ROOT + "/op_plugin/config/op_plugin_functions.yaml"))
schemas = {}
for sec in ("official", "custom", "symint", "quant", "autograd"):
    for e in y.get(sec) or []:
        schemas.setdefault(e["func"].split("(")[0], e["func"])
class _TorchProxy:
    # torch 1.13 lacks a few dtypes (float8_*) used in Meta default values; stand-ins keep the defs loadable
    def __getattr__(self, name):
        return getattr(torch, name, "<torch.%s missing in torch %s>" % (name, torch.__version__))
fns = {}
for node in ast.walk(tree):
    if isinstance(node, ast.FunctionDef):
        for d in node.decorator_list:
            if isinstance(d, ast.Call) and getattr(d.func, "id", "") == "impl" and ast.unparse(d.args[0]) == "m":
                op = d.args[1].value
                node2 = ast.FunctionDef(name=node.name, args=node.args, body=node.body, decorator_list=[],
                                        returns=None, type_comment=None)
                mod = ast.fix_missing_locations(ast.Module(body=[node2], type_ignores=[]))
                ns = {"torch": _TorchProxy(), "math": math, "ops_error": lambda *a: "",
                      "ErrCode": type("ErrCode", (), {"__getattr__": lambda s, n: n})(),
                      "TORCH_DTYPE_ENUM_VALUE_TO_SCALAR_TYPE_MAP": {1: torch.int8, 3: torch.int32, 5: torch.float16, 6: torch.float32}}
                exec(compile(mod, "_meta_registrations.py", "exec"), ns)
                fns[op] = (ns[node.name], node.lineno)
lib = Library("auditnpu", "DEF")
defined = set()
def op(name):
    base, _, ovl = name.partition(".")
    if name not in defined:
        lib.define(schemas[name])
        lib.impl(name, fns[name][0], "Meta")
        defined.add(name)
    pkt = getattr(torch.ops.auditnpu, base)
    return getattr(pkt, ovl or "default")
def T(*s):
    return torch.empty(*s, device="meta")
def run(desc, f):
    try:
        with torch.inference_mode():
            r = f()
        print("OK   %s -> %s" % (desc, r if isinstance(r, torch.dtype) else type(r).__name__))
    except Exception as e:
        print("FAIL %s -> %s: %s" % (desc, type(e).__name__, str(e).splitlines()[0][:160]))
x = T(2, 4)
print("-- npu_geglu_grad (Meta L%d)" % fns["npu_geglu_grad"][1])
run("npu_geglu_grad(g, x, gelu)  [dim/approximate at default]", lambda: op("npu_geglu_grad")(x, x, x))
run("npu_geglu_grad(g, x, gelu, 0, 0)", lambda: op("npu_geglu_grad")(x, x, x, 0, 0))
print("-- npu_quant_conv2d (Meta L%d)" % fns["npu_quant_conv2d"][1])
run("npu_quant_conv2d(input, weight, scale)", lambda: op("npu_quant_conv2d")(T(1, 4, 8, 8), T(4, 4, 3, 3), T(4)))
print("-- npu_rms_norm_quant_v2 (Meta L%d)" % fns["npu_rms_norm_quant_v2"][1])
run("npu_rms_norm_quant_v2(x, gamma, scale)", lambda: op("npu_rms_norm_quant_v2")(x, T(4), T(4)))
print("-- npu_scatter_list / npu_scatter_list_ (Meta L%d / L%d)" % (fns["npu_scatter_list"][1], fns["npu_scatter_list_"][1]))
run("npu_scatter_list([t], indices, updates)", lambda: op("npu_scatter_list")([x], T(2), x))
run("npu_scatter_list_([t], indices, updates)", lambda: op("npu_scatter_list_")([x], T(2), x))
run("npu_scatter_list_([t], indices, updates, mask)", lambda: op("npu_scatter_list_")([x], T(2), x, T(2)))
print("-- npu_top_k_top_p (Meta L%d)" % fns["npu_top_k_top_p"][1])
run("npu_top_k_top_p(logits)", lambda: op("npu_top_k_top_p")(x))
run("npu_top_k_top_p(logits, p)", lambda: op("npu_top_k_top_p")(x, T(2)))
print("-- obfuscation_calculate (Meta L%d)" % fns["obfuscation_calculate"][1])
run("obfuscation_calculate(fd, x, param)", lambda: op("obfuscation_calculate")(T(1), x, T(1)))
run("obfuscation_calculate(fd, x, param, obf_coefficient=0.5)", lambda: op("obfuscation_calculate")(T(1), x, T(1), obf_coefficient=0.5))
print("-- npu_apply_adam_w.out (Meta L%d)" % fns["npu_apply_adam_w.out"][1])
run("npu_apply_adam_w.out(0.9,0.99,1e-3,0.0,0.9,0.99,1e-8,grad,None,False,False,var=,m=,v=)",
    lambda: op("npu_apply_adam_w.out")(0.9, 0.99, 1e-3, 0.0, 0.9, 0.99, 1e-8, x, None, False, False, var=x, m=x, v=x))
print("-- npu_grouped_matmul_add (Meta L%d)" % fns["npu_grouped_matmul_add"][1])
run("npu_grouped_matmul_add(y, x, w, group_list, group_list_type=1)",
    lambda: op("npu_grouped_matmul_add")(x, x, x, T(2), group_list_type=1))
print("-- npu_moe_distribute_combine (Meta L%d)" % fns["npu_moe_distribute_combine"][1])
run("npu_moe_distribute_combine(..., shared_expert_x=t)",
    lambda: op("npu_moe_distribute_combine")(x, x, x, x, x, "g", 2, 0, 8, shared_expert_x=x))
print("-- npu_moe_distribute_combine_teardown (Meta L%d)" % fns["npu_moe_distribute_combine_teardown"][1])
run("npu_moe_distribute_combine_teardown(..., x_active_mask=t)",
    lambda: op("npu_moe_distribute_combine_teardown")(x, x, x, x, x, x, "g", 2, 0, 8, x_active_mask=T(2)))
run("npu_moe_distribute_combine_teardown(..., comm_alg='fullmesh')",
    lambda: op("npu_moe_distribute_combine_teardown")(x, x, x, x, x, x, "g", 2, 0, 8, comm_alg="fullmesh"))
print("-- npu_deformable_conv2d (Meta L%d)" % fns["npu_deformable_conv2d"][1])
run("npu_deformable_conv2d(..., modulated=False)",
    lambda: op("npu_deformable_conv2d")(T(1, 4, 8, 8), T(4, 4, 3, 3), T(1, 27, 8, 8), None, [3, 3], [1, 1, 1, 1], [1, 1, 1, 1], modulated=False))
print("-- controls: schema kw-only / Meta positional-or-keyword (meta.kwonly_split) binds by name")
run("npu_dequant_bias(x, w_scale, None, None, output_dtype=torch.bfloat16)  [Meta L%d]" % fns["npu_dequant_bias"][1],
    lambda: op("npu_dequant_bias")(T(2, 4).int(), T(4), None, None, output_dtype=torch.bfloat16))
run("_npu_index_add(self, index, source, alpha=2)  [Meta L%d]" % fns["_npu_index_add"][1],
    lambda: op("_npu_index_add")(x, T(2).long(), x, alpha=2))
print("-- control: meta.default_mismatch npu_gelu_quant dst_type None (schema) vs 1 (Meta): same int8 as the kernel's None")
run("npu_gelu_quant(x) dtype", lambda: op("npu_gelu_quant")(x)[0].dtype)
