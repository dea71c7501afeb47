// Copyright (c) 2025 Huawei Technologies Co., Ltd
// All rights reserved.
//
// Licensed under the BSD 3-Clause License  (the "License");
// https://opensource.org/licenses/BSD-3-Clause

#include "op_plugin/OpApiInterface.h"
#include "op_plugin/utils/op_api_common.h"

namespace op_api {
using npu_preparation = at_npu::native::OpPreparation;

at::Tensor embedding_symint(const at::Tensor& weight, const at::Tensor& indices,
                            c10::SymInt padding_idx, bool scale_grad_by_freq, bool sparse)
{
    // scale_grad_by_freq and sparse only matter for the backward; checked here so that a
    // request for a sparse gradient fails early instead of silently producing a dense one.
    TORCH_CHECK(!sparse || !scale_grad_by_freq, "embedding: sparse with scale_grad_by_freq");
    auto output_size = op_infer::array_to_small_vector(indices.sizes());
    output_size.emplace_back(weight.size(1));
    at::Tensor result = npu_preparation::apply_tensor_without_format(output_size, weight.options());
    int64_t padding = padding_idx.expect_int();
    EXEC_NPU_CMD(aclnnEmbedding, weight, indices, padding, result);
    return result;
}

}  // namespace op_api
