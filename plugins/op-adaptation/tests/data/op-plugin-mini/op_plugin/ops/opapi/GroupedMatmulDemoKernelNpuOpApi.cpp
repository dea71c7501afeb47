// Copyright (c) 2025 Huawei Technologies Co., Ltd
// All rights reserved.
//
// Licensed under the BSD 3-Clause License  (the "License");
// https://opensource.org/licenses/BSD-3-Clause

#include "op_plugin/OpApiInterface.h"
#include "op_plugin/utils/op_api_common.h"

namespace op_api {
using npu_preparation = at_npu::native::OpPreparation;

std::vector<at::Tensor> npu_grouped_matmul_demo(at::TensorList x, at::TensorList weight,
                                                at::OptionalIntArrayRef group_list,
                                                int64_t split_item, c10::string_view act_type)
{
    std::vector<at::Tensor> y;
    for (size_t i = 0; i < x.size(); ++i) {
        y.push_back(npu_preparation::apply_tensor_without_format(
            {x[i].size(0), weight[i].size(1)}, x[i].options()));
    }
    at::TensorList result(y);
    std::string act = std::string(act_type);
    char* act_ptr = const_cast<char*>(act.c_str());
    EXEC_NPU_CMD(aclnnGroupedMatmulDemo, x, weight, group_list, split_item, act_ptr, result);
    return y;
}

}  // namespace op_api
