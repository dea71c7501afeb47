import torch
from torch.library import Library, impl

# Meta kernels for FakeTensor and graph mode: shapes and dtypes only.
m = Library("npu", "IMPL", "Meta")
m_aten = Library("aten", "IMPL", "Meta")


@impl(m, "npu_rms_norm")
def npu_rms_norm_meta(self, gamma, epsilon=1e-6):
    rstd_shape = self.shape[:self.dim() - gamma.dim()] + (1,) * gamma.dim()
    return (torch.empty_like(self), self.new_empty(rstd_shape, dtype=torch.float32))


@impl(m, "npu_rms_norm_backward")
def npu_rms_norm_backward_meta(dy, self, gamma, rstd):
    return torch.empty_like(self), torch.empty_like(gamma, dtype=torch.float32)


@impl(m, "npu_swiglu_group_quant")
def npu_swiglu_group_quant_meta(x, *, weight=None, group_index=None, scale=None, dst_type=291,
                                quant_mode=0, block_size=0, round_scale=False, clamp_limit=-1.0,
                                dst_type_max=15.0, output_origin=False):
    """Output y is stored as uint8 whatever the float8/float4 dst_type (see dst_type map)."""
    shape = list(x.shape)
    shape[-1] = shape[-1] // 2
    y = x.new_empty(shape, dtype=torch.uint8)
    y_scale = x.new_empty(shape[:-1], dtype=torch.float32)
    origin = x.new_empty(shape if output_origin else [0], dtype=x.dtype)
    return (y, y_scale, origin)


@impl(m, "npu_grouped_matmul_demo")
def npu_grouped_matmul_demo_meta(x, weight, *, group_list=None, split_item=0, act_type="none"):
    def one(a, b):
        return a.new_empty((a.shape[0], b.shape[1]))
    return [one(a, b) for a, b in zip(x, weight)]


@impl(m, "npu_rotary_mul")
def npu_rotary_mul_meta(self, r1, r2, rotary_mode='half'):
    return torch.empty_like(self)


@impl(m, "npu_rotary_mul_backward")
def npu_rotary_mul_backward_meta(grad, self, r1, r2, rotary_mode='half'):
    return (torch.empty_like(self), torch.empty_like(r1), torch.empty_like(r2))


@impl(m, "npu_clipped_swiglu")
def npu_clipped_swiglu_meta(x, *, group_index=None, dim=-1, alpha=1.702, limit=7.0, bias=1.0,
                            interleaved=True):
    shape = list(x.shape)
    shape[dim] = shape[dim] // 2
    return x.new_empty(shape)
