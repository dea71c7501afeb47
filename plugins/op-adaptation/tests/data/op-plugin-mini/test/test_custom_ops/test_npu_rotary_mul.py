import torch
import torch_npu

from torch_npu.testing.testcase import TestCase, run_tests


class TestNpuRotaryMul(TestCase):
    def test_npu_rotary_mul_shape(self):
        x = torch.randn(1, 2, 2, 8).npu()
        r = torch.randn(1, 2, 1, 8).npu()
        self.assertEqual(torch_npu.npu_rotary_mul(x, r, r).shape, x.shape)


if __name__ == "__main__":
    run_tests()
