# create_common_tensor and SupportedDevices with the documented semantics of
# torch_npu.testing.common_utils. The "device" copy is a CPU clone here (no NPU).
import unittest

import numpy as np
import torch


def create_common_tensor(item, minValue, maxValue):
    dtype, fmt, shape = item[0], item[1], item[2]
    data = np.random.uniform(minValue, maxValue, shape).astype(dtype)
    cpu_input = torch.from_numpy(data)
    return cpu_input, cpu_input.clone()


def SupportedDevices(devices):
    # torch_npu compares torch_npu.npu.get_device_name(0); without an NPU there is no name, so
    # every chip-specific test is skipped, as on a machine with another chip.
    def decorator(fn):
        def wrapper(*args, **kwargs):
            raise unittest.SkipTest("no NPU: SupportedDevices(%s)" % devices)
        return wrapper
    return decorator
