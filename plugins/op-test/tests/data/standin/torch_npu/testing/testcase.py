# TestCase and run_tests with the documented semantics of torch_npu.testing.testcase:
# setUp seeds torch/random/numpy from env SEED (default 666); assertRtolEqual follows the
# count-based rule of op-adaptation.md section 8.
import os
import random
import unittest

import numpy as np
import torch


class TestCase(unittest.TestCase):
    def setUp(self):
        seed = int(os.environ.get("SEED", "666"))
        torch.manual_seed(seed)
        random.seed(seed)
        np.random.seed(seed)

    def assertRtolEqual(self, x, y, prec=1.e-4, prec16=1.e-3, auto_trans_dtype=False, message=None):
        if isinstance(x, (list, tuple)) and isinstance(y, (list, tuple)):
            self.assertEqual(len(x), len(y), message)
            for a, b in zip(x, y):
                self.assertRtolEqual(a, b, prec, prec16, auto_trans_dtype, message)
            return
        if isinstance(x, torch.Tensor) and isinstance(y, (list, tuple)):
            y = torch.tensor(y, dtype=x.dtype)
        if isinstance(x, torch.Tensor) and isinstance(y, torch.Tensor) \
                and x.dtype == torch.bfloat16 and y.dtype == torch.bfloat16:
            self.assertEqual(x.shape, y.shape, message)
            self.assertTrue(torch.allclose(x, y, rtol=prec16, atol=prec16), message)
            return
        if isinstance(x, torch.Tensor):
            x = x.detach().cpu().numpy()
        if isinstance(y, torch.Tensor):
            y = y.detach().cpu().numpy()
        x = np.asarray(x)
        y = np.asarray(y)
        if auto_trans_dtype:
            x = x.astype(y.dtype)
        self.assertEqual(x.shape, y.shape, "shape mismatch: %s != %s" % (x.shape, y.shape))
        self.assertEqual(x.dtype, y.dtype, "dtype mismatch: %s != %s" % (x.dtype, y.dtype))
        supported = (np.bool_, np.uint8, np.int8, np.uint16, np.int16, np.int32, np.int64,
                     np.float16, np.float32, np.float64)
        if x.dtype.type not in supported:
            self.fail("dtype %s is not supported by assertRtolEqual" % x.dtype)
        if x.dtype == np.bool_:
            self.assertTrue(np.all(x == y), message or "bool values differ")
            return
        p, floor = (prec16, 6e-8) if x.dtype == np.float16 else (prec, 1e-9)
        x = x.astype(np.float64) if x.dtype.kind == "f" else x
        y = y.astype(np.float64) if y.dtype.kind == "f" else y
        nan_x, nan_y = np.isnan(x) if x.dtype.kind == "f" else None, np.isnan(y) if y.dtype.kind == "f" else None
        if nan_x is not None:
            self.assertTrue(np.array_equal(nan_x, nan_y), "NaN positions differ")
            x = np.where(nan_x, 0, x)
            y = np.where(nan_y, 0, y)
        n = x.size
        diff = np.abs(y - x)
        rel = diff / (np.maximum(np.abs(x), np.abs(y)) + floor)
        rel_bad = int(np.count_nonzero(rel > p))
        abs_bad = int(np.count_nonzero(diff > p))
        if rel_bad > n * p and abs_bad > n * p:
            self.fail("%s: %d/%d elements beyond rel err %g and %d beyond abs err %g (max abs err %g)"
                      % (message or "result error", rel_bad, n, p, abs_bad, p, float(diff.max())))


def run_tests():
    unittest.main(verbosity=2)
