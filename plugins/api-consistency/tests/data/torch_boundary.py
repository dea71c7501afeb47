#!/usr/bin/python3
"""Oracle for the torch standard: pairs at the boundary |a - e| = atol + rtol*|e| per dtype.

For each dtype, expected values are random; actual values sit just inside and just outside the
assert_close tolerance (after rounding to the dtype). torch decides: the mismatch count comes from
torch.isclose on the float64-promoted tensors with torch's own default tolerances, and whether
torch.testing.assert_close raises. Writes <dtype>_e.npy, <dtype>_a.npy and oracle.json.
"""
import json
import sys

import numpy as np
import torch
from torch.testing._comparison import default_tolerances

out = sys.argv[1]
oracle = {}
gen = torch.Generator().manual_seed(7)
for name in ["float16", "bfloat16", "float32", "float64"]:
    dtype = getattr(torch, name)
    n = 4000
    e = ((torch.rand(n, generator=gen, dtype=torch.float64) - 0.5) * 8).to(dtype)
    rtol, atol = default_tolerances(e, e)
    factor = 0.97 + 0.06 * torch.rand(n, generator=gen, dtype=torch.float64)
    sign = torch.where(torch.rand(n, generator=gen) < 0.5, -1.0, 1.0).double()
    tol = atol + rtol * e.double().abs()
    a = (e.double() + sign * factor * tol).to(dtype)
    # Every third element exactly at a representable neighbour, to hit the <= edge.
    a[::3] = e[::3]
    close = torch.isclose(a.double(), e.double(), rtol=rtol, atol=atol)
    try:
        torch.testing.assert_close(a, e)
        passed = True
    except AssertionError:
        passed = False
    for side, t in (("e", e), ("a", a)):
        if dtype == torch.bfloat16:
            arr = t.view(torch.int16).numpy().view(np.uint16)
        else:
            arr = t.numpy()
        np.save("%s/%s_%s.npy" % (out, name, side), arr)
    oracle[name] = {"mismatched": int((~close).sum()), "passed": passed, "rtol": rtol, "atol": atol}
with open(out + "/oracle.json", "w") as f:
    json.dump(oracle, f)
