import torch
import torch_npu

from torch_npu.testing.testcase import TestCase, run_tests


class TestAbs(TestCase):
    def test_abs_shape(self):
        x = torch.randn(4, 8)
        self.assertRtolEqual(torch.abs(x), torch.abs(x.npu()).cpu())


if __name__ == "__main__":
    run_tests()
