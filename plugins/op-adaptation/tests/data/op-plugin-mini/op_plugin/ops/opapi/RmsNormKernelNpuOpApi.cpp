// Copyright (c) 2025 Huawei Technologies Co., Ltd
// All rights reserved.
//
// Licensed under the BSD 3-Clause License  (the "License");
// https://opensource.org/licenses/BSD-3-Clause

#include "op_plugin/OpApiInterface.h"
#include "op_plugin/utils/op_api_common.h"

namespace op_api {
using npu_preparation = at_npu::native::OpPreparation;

std::tuple<at::Tensor, at::Tensor> npu_rms_norm(const at::Tensor& self, const at::Tensor& gamma,
                                                double epsilon)
{
    at::Tensor y = npu_preparation::apply_tensor_without_format(self.sizes(), self.options());
    at::Tensor rstd =
        npu_preparation::apply_tensor_without_format(self.sizes(), self.options().dtype(at::kFloat));
    EXEC_NPU_CMD(aclnnRmsNorm, self, gamma, epsilon, y, rstd);
    return std::make_tuple(y, rstd);
}

std::tuple<at::Tensor, at::Tensor> npu_rms_norm_backward(const at::Tensor& dy,
                                                         const at::Tensor& self,
                                                         const at::Tensor& gamma,
                                                         const at::Tensor& rstd)
{
    at::Tensor dx = npu_preparation::apply_tensor_without_format(self.sizes(), self.options());
    at::Tensor dgamma =
        npu_preparation::apply_tensor_without_format(gamma.sizes(), gamma.options().dtype(at::kFloat));
    EXEC_NPU_CMD(aclnnRmsNormGrad, dy, self, rstd, gamma, dx, dgamma);
    return std::make_tuple(dx, dgamma);
}

}  // namespace op_api
