// Copyright (c) 2025 Huawei Technologies Co., Ltd
// All rights reserved.
//
// Licensed under the BSD 3-Clause License  (the "License");
// https://opensource.org/licenses/BSD-3-Clause

#include "op_plugin/AclOpsInterface.h"
#include "op_plugin/utils/OpAdapter.h"

namespace acl_op {
using npu_preparation = at_npu::native::OpPreparation;

namespace {
at::Tensor& clamp_out_nocheck(at::Tensor& result, const at::Tensor& self, const at::Tensor& min,
                              const at::Tensor& max)
{
    at_npu::native::OpCommand cmd;
    cmd.Name("ClipByValue").Input(self).Input(min).Input(max).Output(result).Run();
    return result;
}
}  // namespace

at::Tensor& clamp_(at::Tensor& self, const c10::optional<at::Tensor>& min,
                   const c10::optional<at::Tensor>& max)
{
    TORCH_CHECK(min.has_value() || max.has_value(), "clamp_: min or max must be given");
    at::Tensor lo = min.has_value() ? min.value() : self;
    at::Tensor hi = max.has_value() ? max.value() : self;
    clamp_out_nocheck(self, self, lo, hi);
    return self;
}

}  // namespace acl_op
