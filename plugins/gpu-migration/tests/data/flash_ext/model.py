import torch
import torch.nn as nn
import torch.nn.functional as F
from flash_attn import flash_attn_func  # expect: ATTN-FLASH-ATTN
import xformers.ops as xops  # expect: ATTN-XFORMERS

import fused_ops


class Attention(nn.Module):
    def __init__(self, dim, heads):
        super().__init__()
        self.heads = heads
        self.qkv = nn.Linear(dim, 3 * dim)

    def forward(self, x, use_xformers=False):
        b, s, d = x.shape
        q, k, v = self.qkv(x).chunk(3, dim=-1)
        q = q.view(b, s, self.heads, -1)
        if use_xformers:
            out = xops.memory_efficient_attention(q, k, v)
        else:
            out = flash_attn_func(q, k, v, causal=True)  # expect: ATTN-FLASH-CALL
        out = out.transpose(1, 2).reshape(b, s, -1)  # expect: AFF-CONFUSION-TRANSPOSE
        return fused_ops.gelu(out)


def sdpa_reference(q, k, v):
    torch.backends.cuda.enable_flash_sdp(True)  # expect: ATTN-SDPA-BACKEND
    return F.scaled_dot_product_attention(q, k, v)  # expect: ATTN-SDPA


def build(dim=64):
    model = Attention(dim, 4).to("cuda")  # expect: DEV-DEVICE-STRING
    model = torch.compile(model)  # expect: COMPILE-TORCH-COMPILE
    graph = torch.cuda.CUDAGraph()  # expect: COMPILE-CUDA-GRAPH
    return model, graph
