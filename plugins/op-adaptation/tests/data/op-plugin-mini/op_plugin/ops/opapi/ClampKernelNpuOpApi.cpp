// Copyright (c) 2025 Huawei Technologies Co., Ltd
// All rights reserved.
//
// Licensed under the BSD 3-Clause License  (the "License");
// https://opensource.org/licenses/BSD-3-Clause

#include "op_plugin/AclOpsInterface.h"
#include "op_plugin/OpApiInterface.h"
#include "op_plugin/utils/op_api_common.h"

namespace op_api {
using npu_preparation = at_npu::native::OpPreparation;

at::Tensor& clamp_(at::Tensor& self, const c10::optional<at::Tensor>& min,
                   const c10::optional<at::Tensor>& max)
{
    DO_COMPATIBILITY(aclnnInplaceClampTensor, acl_op::clamp_(self, min, max));
    EXEC_NPU_CMD(aclnnInplaceClampTensor, self, min, max);
    return self;
}

}  // namespace op_api
