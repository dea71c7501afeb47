// Copyright (c) 2025 Huawei Technologies Co., Ltd
// All rights reserved.
//
// Licensed under the BSD 3-Clause License  (the "License");
// https://opensource.org/licenses/BSD-3-Clause

#include "op_plugin/OpApiInterface.h"
#include "op_plugin/utils/op_api_common.h"

namespace op_api {
using npu_preparation = at_npu::native::OpPreparation;

at::Tensor npu_rotary_mul(const at::Tensor& self, const at::Tensor& r1, const at::Tensor& r2,
                          c10::string_view rotary_mode)
{
    at::Tensor result = npu_preparation::apply_tensor_without_format(self.sizes(), self.options());
    int64_t mode = rotary_mode == "half" ? 0 : 1;
    EXEC_NPU_CMD(aclnnRotaryPositionEmbedding, self, r1, r2, mode, result);
    return result;
}

std::tuple<at::Tensor, at::Tensor, at::Tensor> npu_rotary_mul_backward(
    const at::Tensor& grad, const at::Tensor& self, const at::Tensor& r1, const at::Tensor& r2,
    c10::string_view rotary_mode)
{
    at::Tensor dx = npu_preparation::apply_tensor_without_format(self.sizes(), self.options());
    at::Tensor dr1 = npu_preparation::apply_tensor_without_format(r1.sizes(), r1.options());
    at::Tensor dr2 = npu_preparation::apply_tensor_without_format(r2.sizes(), r2.options());
    int64_t mode = rotary_mode == "half" ? 0 : 1;
    EXEC_NPU_CMD(aclnnRotaryPositionEmbeddingGrad, grad, r1, r2, self, mode, dx, dr1, dr2);
    return std::make_tuple(dx, dr1, dr2);
}

}  // namespace op_api
