import torch
import torch_npu

from torch_npu.testing.testcase import TestCase, run_tests


class TestNpuGroupedMatmulDemo(TestCase):
    def test_npu_grouped_matmul_demo_shape(self):
        x = [torch.randn(2, 4).npu()]
        w = [torch.randn(4, 3).npu()]
        y = torch.ops.npu.npu_grouped_matmul_demo(x, w)
        self.assertEqual(y[0].shape, (2, 3))


if __name__ == "__main__":
    run_tests()
