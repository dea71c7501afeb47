#!/usr/bin/python3
"""Triage scenarios: synthetic CPU/device pairs that reproduce the real phenomena, with logs.

Writes the tensors and logs into the output directory and scenarios.json: a list of
{id, case, expect: {exit, rule, symptom, operator?, evidence?}}. The C++ test runs each case
through the skill's request path and checks the exit, the deciding rule and the evidence.
"""
import json
import os
import sys

import numpy as np

out = sys.argv[1]
rng = np.random.default_rng(11)
scenarios = []


def save(name, arr):
    np.save(os.path.join(out, name), arr)
    return name


def write(name, text):
    with open(os.path.join(out, name), "w", encoding="utf-8") as f:
        f.write(text)
    return name


def add(sid, case, **expect):
    case = dict(case)
    case.setdefault("id", sid)
    scenarios.append({"id": sid, "case": case, "expect": expect})


def tf32(x):
    """Rounds float32 values to a 10-bit mantissa (TF32-like inputs)."""
    b = x.astype(np.float32).view(np.uint32)
    b = (b + np.uint32(0x1000)) & np.uint32(0xFFFFE000)
    return b.view(np.float32)


# 1. fp16 intermediate overflow: expected finite (max ~6e4), device gives inf.
e = (rng.standard_normal((8, 64)) * 2e4).clip(-6e4, 6e4).astype(np.float16)
a = e.copy()
a[2, 5] = np.inf
a[7, 1] = -np.inf
add("fp16_overflow_intermediate",
    {"api": "torch.softmax", "expected": save("s1_e.npy", e), "actual": save("s1_a.npy", a)},
    exit="operator", rule="R32-intermediate-overflow", symptom="inf_nan", operator="aclnnSoftmax")

# 2. fp16 out of range: the float32 golden exceeds 65504, device (float16) gives inf.
e = rng.standard_normal(256).astype(np.float32) * 100
e[10] = 7.0e4
with np.errstate(over="ignore"):
    a = e.astype(np.float16)
add("fp16_out_of_range",
    {"api": "torch.exp", "expected": save("s2_e.npy", e), "actual": save("s2_a.npy", a),
     "check_dtype": False},
    exit="not_defect", rule="R30-out-of-range", symptom="inf_nan")

# 3-6. TF32/HF32-like precision loss in a float32 matmul.
x = rng.standard_normal((64, 128)).astype(np.float32)
w = rng.standard_normal((128, 32)).astype(np.float32)
golden = (x.astype(np.float64) @ w.astype(np.float64)).astype(np.float32)
reduced = (tf32(x).astype(np.float64) @ tf32(w).astype(np.float64)).astype(np.float32)
save("mm_e.npy", golden)
save("mm_a.npy", reduced)
mm = {"api": "torch.matmul", "expected": "mm_e.npy", "actual": "mm_a.npy"}
add("tf32_matmul_cuda", dict(mm, chip="cuda", description="torch.backends.cuda.matmul.allow_tf32 = True"),
    exit="not_defect", rule="R41-reduced-precision-matmul", symptom="precision")
add("hf32_matmul_910b", dict(mm, chip="Ascend910B", description="训练脚本里设置了 torch.npu.matmul.allow_hf32 = True"),
    exit="not_defect", rule="R41-reduced-precision-matmul", symptom="precision")
add("fp32_matmul_910a", dict(mm, chip="Ascend910A"),
    exit="not_defect", rule="R41-reduced-precision-matmul", symptom="precision")
add("matmul_910b_no_hf32", dict(mm, chip="Ascend910B"),
    exit="operator", rule="R45-precision-operator", symptom="precision", operator="aclnnMatmul")

# 7. Reduction-order noise: balanced 2-ulp float16 differences on 5 % of the elements.
e = (rng.uniform(0.25, 0.5, 20000)).astype(np.float16)
bits = e.view(np.uint16).copy()
idx = rng.choice(e.size, 1000, replace=False)
bits[idx[:500]] += 2
bits[idx[500:]] -= 2
a = bits.view(np.float16)
add("reduction_order_noise",
    {"api": "torch.sum", "expected": save("s7_e.npy", e), "actual": save("s7_a.npy", a)},
    exit="not_defect", rule="R42-accumulation-order", symptom="precision")

# 8. Nondeterministic scatter_add: two device runs differ at rounding level.
e = rng.standard_normal(4096).astype(np.float32)
a1 = e + rng.standard_normal(4096).astype(np.float32) * 1e-7
a2 = e + rng.standard_normal(4096).astype(np.float32) * 1e-7
save("s8_e.npy", e)
save("s8_a1.npy", a1.astype(np.float32))
save("s8_a2.npy", a2.astype(np.float32))
add("scatter_add_nondeterministic",
    {"api": "torch.Tensor.scatter_add_", "expected": "s8_e.npy", "actual": "s8_a1.npy",
     "actual_runs": ["s8_a2.npy"], "standard": "torch_npu"},
    exit="not_defect", rule="R21-nondet-documented", symptom="nondeterminism")
# 9. The same with determinism requested.
add("scatter_add_deterministic_requested",
    {"api": "torch.Tensor.scatter_add_", "expected": "s8_e.npy", "actual": "s8_a1.npy",
     "actual_runs": ["s8_a2.npy"], "description": "torch.use_deterministic_algorithms(True) 已开启, 两次结果仍不一致"},
    exit="operator", rule="R20-nondet-requested", symptom="nondeterminism", operator="aclnnScatterAdd")
# 10. Runs of an API not documented as nondeterministic differ a lot.
a3 = a1.copy()
a3[100:200] += 0.05
save("s10_a2.npy", a3)
add("gelu_runs_differ",
    {"api": "torch.nn.functional.gelu", "expected": "s8_e.npy", "actual": "s8_a1.npy",
     "actual_runs": ["s10_a2.npy"]},
    exit="operator", rule="R23-nondet-kernel", symptom="nondeterminism")
# 11. Rounding-level run differences of an ordinary reduction within the standard.
add("sum_runs_rounding",
    {"api": "torch.mean", "expected": "s8_e.npy", "actual": "s8_a1.npy",
     "actual_runs": ["s8_a2.npy"], "standard": "torch_npu"},
    exit="not_defect", rule="R22-nondet-within-standard", symptom="nondeterminism")

# 12. Integer mismatch (argmax indices).
e = rng.integers(0, 100, 512).astype(np.int64)
a = e.copy()
a[[3, 40, 77]] += 1
add("argmax_integer_mismatch",
    {"api": "torch.argmax", "expected": save("s12_e.npy", e), "actual": save("s12_a.npy", a)},
    exit="operator", rule="R44-integer-mismatch", symptom="precision")

# 13. Shape mismatch.
add("shape_mismatch",
    {"api": "torch.sum", "expected": save("s13_e.npy", np.ones((4, 1), np.float32)),
     "actual": save("s13_a.npy", np.ones((4,), np.float32))},
    exit="framework", rule="R05-shape-adaptation", symptom="functional")

# 14. dtype mismatch (int32 result where CPU gives int64).
add("dtype_promotion",
    {"api": "torch.sum", "expected": save("s14_e.npy", np.arange(6, dtype=np.int64)),
     "actual": save("s14_a.npy", np.arange(6, dtype=np.int32))},
    exit="framework", rule="R06-dtype-promotion", symptom="functional")

# 15. Crash log naming the aclnn operator.
add("crash_aclnn_log",
    {"api": "torch.nn.functional.layer_norm", "log": write("s15.log",
     "Traceback (most recent call last):\n  File \"t.py\", line 9, in <module>\n"
     "RuntimeError: call aclnnLayerNorm failed, detail:EZ9999: Inner Error!\n"
     "[ERROR] 2024-05-01-10:00:00 (PID:1, Device:0, RankID:-1) ERR00100 PTA call acl api failed\n")},
    exit="operator", rule="R04-operator-crash", symptom="functional", operator="aclnnLayerNorm",
    evidence="s15.log:3")

# 16. Missing kernel binary (environment).
add("crash_missing_binary",
    {"api": "torch.nn.functional.gelu", "log": write("s16.log",
     "RuntimeError: Cannot find bin of op Gelu, integral key 0/1/|float16/ND/float16/ND/\n"
     "[ERROR] ERR01100 OPS call acl api failed\n")},
    exit="not_defect", rule="R01-env-missing-kernel", symptom="functional")

# 17. Missing dispatch: falls back to CPU.
add("fallback_dispatch",
    {"api": "torch.linalg.svd", "log": write("s17.log",
     "UserWarning: The operator 'aten::linalg_svd' is not currently supported on the NPU backend "
     "and will fall back to run on the CPU.\n[ERROR] ERR01007 OPS feature not supported\n"
     "Traceback (most recent call last):\n")},
    exit="framework", rule="R03-fallback-dispatch", symptom="functional")

# 18. Parameter-class aclnn code: the script passes invalid arguments.
add("invalid_argument_code",
    {"api": "torch.nn.functional.conv2d", "log": write("s18.log",
     "RuntimeError: aclnnConvolutionGetWorkspaceSize call failed, error code is 161002\n")},
    exit="not_defect", rule="R02-user-arguments", symptom="functional")

# 19. Memory: device peak three times the CPU bytes.
add("memory_overhead",
    {"api": "torch.cat", "memory": {"cpu_bytes": 1.0e9, "device_bytes": 3.0e9},
     "description": "NPU 上 torch.cat 显存占用是 CPU 的三倍"},
    exit="framework", rule="R11-memory-ratio", symptom="memory")
# 20. Memory with the internal format enabled.
add("memory_internal_format",
    {"api": "torch.nn.functional.conv2d", "memory": {"cpu_bytes": 1.0e9, "device_bytes": 2.5e9},
     "description": "torch.npu.config.allow_internal_format = True 时显存更高"},
    exit="framework", rule="R10-memory-format", symptom="memory")
# 21. OOM text without a measured ratio.
add("oom_batch_size",
    {"api": "torch.matmul", "log": write("s21.log", "torch.OutOfMemoryError: NPU out of memory. Tried to allocate 2.00 GiB\n")},
    exit="not_defect", rule="R12-memory-user", symptom="memory")

# 22. NaN on the golden side only.
e = rng.standard_normal(128).astype(np.float32)
a = e.copy()
e[5] = np.nan
add("golden_nan",
    {"api": "torch.log", "expected": save("s22_e.npy", e), "actual": save("s22_a.npy", a)},
    exit="not_defect", rule="R31-expected-nonfinite", symptom="inf_nan")

# 23. Biased wrong result (shifted output).
e = rng.standard_normal(1000).astype(np.float32)
add("biased_wrong_result",
    {"api": "torch.nn.functional.silu", "expected": save("s23_e.npy", e),
     "actual": save("s23_a.npy", (e + 0.5).astype(np.float32))},
    exit="operator", rule="R43-biased-error", symptom="precision", operator="aclnnSilu")

# 24. Consistent outputs.
add("consistent",
    {"api": "torch.relu", "expected": "s23_e.npy", "actual": "s23_e.npy"},
    exit="not_defect", rule="R90-consistent", symptom="consistent")

# 25. Precision drift with the internal (NZ) format.
add("nz_format_precision",
    {"api": "torch.nn.functional.linear", "expected": "mm_e.npy", "actual": "mm_a.npy",
     "description": "开启 allow_internal_format 后 linear 精度下降"},
    exit="framework", rule="R40-format-precision", symptom="precision")

# 26. Segmentation fault without a layer.
add("segfault_unattributed",
    {"api": "torch.cumsum", "log": write("s26.log", "Fatal Python error: Segmentation fault\n")},
    exit="undetermined", rule="R07-crash-unattributed", symptom="functional")

# 27. Per-operator dumps: the first failing member names the operator.
x = rng.standard_normal(64).astype(np.float32)
np.savez(os.path.join(out, "ops_cpu.npz"), aclnnMul=x, aclnnAdd=x + 1, aclnnExp=np.exp(x))
np.savez(os.path.join(out, "ops_npu.npz"), aclnnMul=x, aclnnAdd=x + 1.01, aclnnExp=np.exp(x) * 1.01)
add("per_op_dumps",
    {"api": "model.block", "expected": "ops_cpu.npz", "actual": "ops_npu.npz", "per_op": True},
    exit="operator", rule="R45-precision-operator", symptom="precision", operator="aclnnAdd")

with open(os.path.join(out, "scenarios.json"), "w", encoding="utf-8") as f:
    json.dump(scenarios, f, ensure_ascii=False, indent=1)
