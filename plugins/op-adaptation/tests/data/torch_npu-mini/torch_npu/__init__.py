import torch

from torch_npu._C import _npu_ops  # noqa: F401

__all__ = ["npu_format_cast", "npu_rms_norm",
           "empty_with_format"]
__all__ += ['npu_confusion_transpose']
__all__.extend(["npu_clipped_swiglu"])

for name in __all__:
    pass
