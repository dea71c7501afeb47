#!/usr/bin/python3
"""Real CPU/device-style output pairs for the triage classes of docs/api-consistency.md.

Every tensor is computed by PyTorch on CPU (Debian's python3-torch) or numpy; the "device" side
reproduces what an accelerator computes: reduced-precision inputs (TF32/HF32-style 10-bit
mantissa), float16 results rounded from float32 arithmetic, another sort algorithm's tie order,
another LAPACK path, the tanh form of gelu, a bit-trick rsqrt. Planted defects are marked as such.

    make_real_pairs.py OUT_DIR SET     (SET: dev or heldout)

Writes OUT_DIR/SET/*.npy and OUT_DIR/SET/manifest.json: {"cases": [case..., each with
"expect": {"exit", "cause"}]}. Deterministic: the same torch/numpy give the same files.
"""
import json
import os
import sys

import numpy as np
import torch
import torch.nn.functional as F

out_root, which = sys.argv[1], sys.argv[2]
out = os.path.join(out_root, which)
os.makedirs(out, exist_ok=True)
HELD = which == "heldout"
seed = 2027 if HELD else 11
torch.manual_seed(seed)
rng = np.random.default_rng(seed)
cases = []


def save(name, arr):
    if isinstance(arr, torch.Tensor):
        arr = arr.detach().numpy()
    np.save(os.path.join(out, name), arr)
    return name


def add(cid, case, exit_, cause):
    case = dict(case)
    case["id"] = cid
    case["expect"] = {"exit": exit_, "cause": cause}
    cases.append(case)


def reduced_mantissa(t, bits=10):
    """float32 values rounded to nearest even with a `bits`-bit mantissa (TF32/HF32-style)."""
    b = t.contiguous().view(torch.int32).numpy().astype(np.int64)
    drop = 23 - bits
    half = 1 << (drop - 1)
    lsb = (b >> drop) & 1
    b = ((b + half - 1 + lsb) >> drop) << drop
    return torch.from_numpy(b.astype(np.int64).astype(np.uint32).view(np.int32).copy()).view(
        torch.float32)


def half_device(fn, *xs):
    """A float16 kernel that computes in float32 and rounds its result (Cube/vector units)."""
    return fn(*[x.half().float() for x in xs]).half()


# ---- 1. reduced-precision defaults (fp32 conv on a chip whose conv default is HF32/TF32) ------
if HELD:
    x = torch.randn(4, 16, 96)
    w = torch.randn(32, 16, 5) * 0.2
    conv, conv_api = F.conv1d, "torch.nn.functional.conv1d"
else:
    x = torch.randn(2, 8, 24, 24)
    w = torch.randn(16, 8, 3, 3) * 0.3
    conv, conv_api = F.conv2d, "torch.nn.functional.conv2d"
golden = conv(x, w)
device = conv(reduced_mantissa(x).double(), reduced_mantissa(w).double()).float()
e, a = save("conv_e.npy", golden), save("conv_a.npy", device)
add("conv_fp32_default_reduced_910b", {"api": conv_api, "expected": e, "actual": a,
                                       "chip": "Ascend910_93" if HELD else "Ascend910B"},
    "not_defect", "reduced_precision")
add("conv_fp32_default_tf32_cuda", {"api": conv_api, "expected": e, "actual": a, "chip": "cuda"},
    "not_defect", "reduced_precision")
add("conv_fp32_hf32_switched_off", {
    "api": conv_api, "expected": e, "actual": a, "chip": "Ascend910B",
    "description": "torch.npu.conv.allow_hf32 = False was set before the call"},
    "operator", "precision_loss")
# matmul's default is full float32 on Atlas A2/A3 and on CUDA: the same error is a defect there.
p = torch.randn(48, 96) if HELD else torch.randn(64, 128)
q = torch.randn(96, 40) if HELD else torch.randn(128, 32)
mm_api = "torch.matmul" if HELD else "torch.mm"
e = save("mm_e.npy", p @ q)
a = save("mm_a.npy", (reduced_mantissa(p).double() @ reduced_mantissa(q).double()).float())
add("matmul_fp32_reduced_not_default", {"api": mm_api, "expected": e, "actual": a,
                                        "chip": "Ascend910B"},
    "operator", "precision_loss")
add("matmul_fp32_hf32_enabled", {
    "api": mm_api, "expected": e, "actual": a, "chip": "Ascend910B",
    "description": "torch.npu.matmul.allow_hf32 = True"},
    "not_defect", "reduced_precision")

# ---- 2. float16/bfloat16 results against a golden computed in higher precision --------------
if HELD:
    p, q = torch.randn(3, 40, 200), torch.randn(3, 200, 24)
    api, fn, dt = "torch.matmul", torch.matmul, torch.bfloat16
else:
    p, q = torch.randn(4, 32, 256), torch.randn(4, 256, 48)
    api, fn, dt = "torch.bmm", torch.bmm, torch.float16
golden32 = fn(p.double(), q.double()).float()
dev = fn(p.to(dt).float(), q.to(dt).float()).to(dt)
dname = "bfloat16" if dt == torch.bfloat16 else "float16"


def store(t):
    # .npy has no bfloat16: store float32 values and declare the dtype.
    return t.float() if t.dtype == torch.bfloat16 else t


e32 = save("lowp_golden32.npy", golden32)
a16 = save("lowp_a.npy", store(dev))
add("lowp_matmul_vs_fp32_golden", {
    "api": api, "expected": e32, "actual": {"path": a16, "dtype": dname},
    "golden_dtype": "float32"}, "not_defect", "reduced_precision")
e16 = save("lowp_golden_cast.npy", store(golden32.to(dt)))
add("lowp_matmul_vs_cast_golden", {
    "api": api, "expected": {"path": e16, "dtype": dname},
    "actual": {"path": a16, "dtype": dname}}, "not_defect", "reduced_precision")
bad = dev.clone()
bad[1, 5:9, 3:7] = 0  # planted: a 4x4 tile of one batch left unwritten
add("lowp_matmul_zero_tile", {
    "api": api, "expected": {"path": e16, "dtype": dname},
    "actual": {"path": save("lowp_bad.npy", store(bad)), "dtype": dname}},
    "operator", "kernel_bug")

# ---- 3. overflow judged in the device dtype -------------------------------------------------
if HELD:
    x = torch.rand(512) * 30
    api, g32 = "torch.cumsum", torch.cumsum(x.double(), 0).float() * 200
    d16 = (torch.cumsum(x.half().float(), 0) * 200).half()
else:
    x = torch.randn(1024) * 4 + 2
    api, g32 = "torch.exp", torch.exp(x)
    d16 = torch.exp(x.half().float()).half()
add("fp16_beyond_range_fp32_golden", {
    "api": api, "expected": save("ovf_e.npy", g32), "actual": save("ovf_a.npy", d16),
    "golden_dtype": "float32"}, "not_defect", "reduced_precision")
# planted: softmax's exp evaluated without the max subtraction overflows inside the kernel.
z = torch.randn(16, 64) * 3
z[3, 7] = 12.5
g = torch.softmax(z, -1)
naive = torch.exp(z.half().float()).half().float()
dev = (naive / naive.sum(-1, keepdim=True)).half()
add("fp16_softmax_internal_overflow", {
    "api": "torch.softmax", "expected": save("ovf2_e.npy", g.half()),
    "actual": save("ovf2_a.npy", dev)}, "operator", "overflow")

# ---- 4. localised errors (planted) and clean low-precision reductions (controls) ------------
x = torch.randn(32, 96) if HELD else torch.randn(64, 64)
api = "torch.nn.functional.silu" if HELD else "torch.nn.functional.gelu"
fn = F.silu if HELD else F.gelu
g = fn(x)
one = g.clone()
one.view(-1)[1234 if HELD else 777] *= 1.5
add("one_element_off_by_half", {"api": api, "expected": save("loc1_e.npy", g),
                                "actual": save("loc1_a.npy", one)}, "operator", "kernel_bug")
add("one_element_off_passes_torch_npu", {
    "api": api, "expected": "loc1_e.npy", "actual": "loc1_a.npy", "standard": "torch_npu"},
    "operator", "kernel_bug")
y = torch.randn(8, 512) if HELD else torch.randn(16, 256)
ln = F.layer_norm(y, y.shape[-1:])
blk = ln.clone()
blk[5, 64:128] = 0  # planted: one block of a row never written
add("zero_block_layer_norm", {
    "api": "torch.nn.functional.layer_norm", "expected": save("loc2_e.npy", ln),
    "actual": save("loc2_a.npy", blk)}, "operator", "kernel_bug")
r = torch.randn(64, 2048) if HELD else torch.randn(128, 1024)
golden = r.double().sum(-1).float()
perm = r[:, torch.randperm(r.shape[1])]
dev = perm.view(r.shape[0], 16, -1).sum(-1).sum(-1)  # blocked accumulation in another order
# Both orders stay within float32's assert_close tolerance: consistent (the held-out set, frozen
# before the rules were written, still expects accumulation_order here).
add("fp32_sum_other_order", {"api": "torch.sum", "expected": save("red_e.npy", golden),
                             "actual": save("red_a.npy", dev)}, "not_defect",
    "accumulation_order" if HELD else "consistent")
s = torch.randn(32, 300) * 2
add("fp16_softmax_rounding", {
    "api": "torch.softmax", "expected": save("sm_e.npy", torch.softmax(s.double(), -1).half()),
    "actual": save("sm_a.npy", half_device(lambda t: torch.softmax(t, -1), s))},
    "not_defect", "reduced_precision")

# ---- 5. index outputs with ties --------------------------------------------------------------
vals = rng.integers(0, 6, size=(8, 40)).astype(np.float32)
inp = save("tie_input.npy", vals)
if HELD:
    k = 10
    ge = torch.topk(torch.from_numpy(vals), k, dim=-1).indices.numpy()
    # another selection order: stable descending sort by position from the right
    ga = np.argsort(-vals[:, ::-1], axis=-1, kind="stable")[:, :k]
    ga = (vals.shape[1] - 1 - ga).astype(np.int64)
    api = "torch.topk"
else:
    ge = np.argsort(vals, axis=-1, kind="stable").astype(np.int64)
    ga = np.argsort(vals, axis=-1, kind="quicksort").astype(np.int64)
    if (ga == ge).all():
        ga = np.argsort(vals[:, ::-1], axis=-1, kind="stable")
        ga = (vals.shape[1] - 1 - ga).astype(np.int64)
    api = "torch.argsort"
e, a = save("tie_e.npy", ge), save("tie_a.npy", ga)
add("index_ties_other_order", {"api": api, "expected": e, "actual": a,
                               "inputs": {"input": inp}, "dim": -1}, "not_defect", "tie_order")
add("index_ties_stable_requested", {
    "api": api, "expected": e, "actual": a, "inputs": {"input": inp}, "dim": -1,
    "description": "called with stable=True" if not HELD else "sorted=True, stable=True requested"},
    "operator", "wrong_result")
wrong = ge.copy()
wrong[2, 0], wrong[2, -1] = wrong[2, -1], wrong[2, 0]  # planted: not a tie
add("index_wrong_not_tie", {"api": api, "expected": e, "actual": save("tie_bad.npy", wrong),
                            "inputs": {"input": inp}, "dim": -1}, "operator", "wrong_result")
am = rng.integers(0, 3, size=(12, 30)).astype(np.float32)
first = am.argmax(-1)
last = am.shape[1] - 1 - am[:, ::-1].argmax(-1)
add("argmax_ties_last_index", {
    "api": "torch.argmax", "expected": save("am_e.npy", first.astype(np.int64)),
    "actual": save("am_a.npy", last.astype(np.int64)), "inputs": {"input": save("am_in.npy", am)},
    "dim": 1}, "not_defect", "tie_order")

# ---- 6. ill-conditioned linear algebra (outputs of torch.linalg are Fortran-ordered) ---------
n = 10 if HELD else 8
i = torch.arange(n, dtype=torch.float64)
hilbert = (1.0 / (i[:, None] + i[None, :] + 1)).float()
A = hilbert + 1e-4 * torch.eye(n)
A_path = save("la_A.npy", A)
if HELD:
    B = torch.randn(n, 3)
    B_path = save("la_B.npy", B)
    g = torch.linalg.solve(A, B)
    d = torch.from_numpy(np.linalg.lstsq(A.numpy(), B.numpy(), rcond=None)[0])
    api, ins = "torch.linalg.solve", {"A": A_path, "B": B_path}
else:
    g = torch.linalg.inv(A)
    d = torch.linalg.pinv(A)  # the SVD path to the same inverse
    api, ins = "torch.linalg.inv", {"A": A_path}
e = save("la_e.npy", g)
a = save("la_a.npy", d)
add("linalg_ill_conditioned", {"api": api, "expected": e, "actual": a, "inputs": ins},
    "not_defect", "ill_conditioned")
bad = d.clone()
bad[2] *= 1.01  # planted: one row scaled
add("linalg_wrong_row", {"api": api, "expected": e, "actual": save("la_bad.npy", bad),
                         "inputs": ins}, "operator", "wrong_result")

# ---- 7. Fortran order on one side only ---------------------------------------------------------
m = torch.randn(24, 40)
ct = save("ford_c.npy", np.ascontiguousarray(m.t().numpy()))
ft = save("ford_f.npy", np.asfortranarray(m.t().numpy()))
add("fortran_vs_c_same_values", {"api": "torch.t", "expected": ct, "actual": ft},
    "not_defect", "consistent")

# ---- 8. formula substitutions ------------------------------------------------------------------
x = torch.linspace(-6, 6, 2001) if not HELD else torch.randn(4096) * 2.5
xp = save("sub_in.npy", x)
if HELD:
    api = "torch.rsqrt"
    xs = x.abs() + 0.05
    xp = save("sub_in.npy", xs)
    g = torch.rsqrt(xs)
    bits = xs.numpy().view(np.int32)
    y = (np.int32(0x5F3759DF) - (bits >> 1)).view(np.float32)
    y = y * (1.5 - 0.5 * xs.numpy() * y * y)  # the bit trick with one Newton step
    dev = torch.from_numpy(y.astype(np.float32))
else:
    api = "torch.nn.functional.gelu"
    g = F.gelu(x)
    dev = F.gelu(x, approximate="tanh")
add("formula_substitution", {"api": api, "expected": save("sub_e.npy", g),
                             "actual": save("sub_a.npy", dev), "inputs": {"input": xp}},
    "framework", "wrong_mapping")
if not HELD:
    add("gelu_tanh_requested_both", {
        "api": api, "expected": save("sub_t.npy", F.gelu(x, approximate="tanh")),
        "actual": "sub_a.npy", "inputs": {"input": xp},
        "description": "F.gelu(x, approximate='tanh') on both sides"}, "not_defect", "consistent")

with open(os.path.join(out, "manifest.json"), "w", encoding="utf-8") as f:
    json.dump({"source": "make_real_pairs.py " + which + " (torch " + torch.__version__ +
               ", numpy " + np.__version__ + ")", "cases": cases}, f, indent=1)
print(len(cases), "cases in", out)
