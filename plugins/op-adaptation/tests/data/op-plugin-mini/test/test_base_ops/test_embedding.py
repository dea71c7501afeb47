import torch
import torch_npu

from torch_npu.testing.testcase import TestCase, run_tests


class TestEmbedding(TestCase):
    def test_embedding_shape(self):
        w = torch.randn(10, 4)
        idx = torch.tensor([1, 3])
        self.assertRtolEqual(torch.nn.functional.embedding(idx, w), torch.nn.functional.embedding(idx.npu(), w.npu()).cpu())


if __name__ == "__main__":
    run_tests()
