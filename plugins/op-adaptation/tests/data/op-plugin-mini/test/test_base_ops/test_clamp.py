import torch
import torch_npu

from torch_npu.testing.testcase import TestCase, run_tests


class TestClamp(TestCase):
    def test_clamp_shape(self):
        x = torch.randn(4, 8)
        lo = torch.zeros(4, 8)
        self.assertRtolEqual(x.clone().clamp_(min=lo), x.npu().clamp_(min=lo.npu()).cpu())


if __name__ == "__main__":
    run_tests()
