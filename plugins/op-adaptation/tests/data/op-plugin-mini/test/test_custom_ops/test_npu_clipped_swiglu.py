import torch
import torch_npu

from torch_npu.testing.testcase import TestCase, run_tests


class TestNpuClippedSwiglu(TestCase):
    def test_npu_clipped_swiglu_shape(self):
        x = torch.randn(2, 8).npu()
        self.assertEqual(torch_npu.npu_clipped_swiglu(x).shape, (2, 4))


if __name__ == "__main__":
    run_tests()
