import torch
import torch_npu

from torch_npu.testing.testcase import TestCase, run_tests


class TestNpuSwigluGroupQuant(TestCase):
    def test_npu_swiglu_group_quant_shape(self):
        x = torch.randn(2, 8).npu()
        y, scale, origin = torch_npu.npu_swiglu_group_quant(x, dst_type=291)
        self.assertEqual(y.shape[-1], 4)


if __name__ == "__main__":
    run_tests()
