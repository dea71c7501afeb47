// Copyright (c) 2025 Huawei Technologies Co., Ltd
// All rights reserved.
//
// Licensed under the BSD 3-Clause License  (the "License");
// https://opensource.org/licenses/BSD-3-Clause

#include "op_plugin/OpApiInterface.h"
#include "op_plugin/utils/op_api_common.h"

namespace op_api {
using npu_preparation = at_npu::native::OpPreparation;

std::tuple<at::Tensor, at::Tensor, at::Tensor> npu_swiglu_group_quant(
    const at::Tensor& x, const c10::optional<at::Tensor>& weight,
    const c10::optional<at::Tensor>& group_index, const c10::optional<at::Tensor>& scale,
    int64_t dst_type, int64_t quant_mode, int64_t block_size, bool round_scale, double clamp_limit,
    double dst_type_max, bool output_origin)
{
    auto out_size = op_infer::array_to_small_vector(x.sizes());
    out_size[x.dim() - 1] = out_size[x.dim() - 1] / 2;
    at::Tensor y = npu_preparation::apply_tensor_without_format(out_size, x.options().dtype(at::kByte));
    at::Tensor y_scale = npu_preparation::apply_tensor_without_format(out_size, x.options().dtype(at::kFloat));
    at::Tensor y_origin = npu_preparation::apply_tensor_without_format(out_size, x.options());
    aclDataType y_acltype = npu_preparation::convert_to_acl_data_type(static_cast<at::ScalarType>(dst_type));
    TensorWrapper y_wrapper = {y, y_acltype};
    EXEC_NPU_CMD(aclnnSwigluGroupQuant, x, weight, group_index, scale, quant_mode, block_size,
                 round_scale, clamp_limit, dst_type_max, output_origin, y_wrapper, y_scale, y_origin);
    return std::make_tuple(y, y_scale, y_origin);
}

}  // namespace op_api
