import torch
import torch_npu

from torch_npu.testing.testcase import TestCase, run_tests


class TestNpuRmsNorm(TestCase):
    def test_npu_rms_norm_shape(self):
        x = torch.randn(2, 8).npu()
        g = torch.ones(8).npu()
        y, rstd = torch_npu.npu_rms_norm(x, g, epsilon=1e-6)
        self.assertEqual(y.shape, x.shape)


if __name__ == "__main__":
    run_tests()
