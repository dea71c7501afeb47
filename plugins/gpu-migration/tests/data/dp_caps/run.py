import torch
import torch.nn as nn
from apex import amp  # expect: THIRD-APEX
import amp_C  # expect: PREC-AMP-C


def pick_dtype():
    major, minor = torch.cuda.get_device_capability()  # expect: DEV-CAPABILITY
    props = torch.cuda.get_device_properties(0)  # expect: DEV-PROPERTIES
    if major >= 8 and torch.cuda.is_bf16_supported():  # expect: PREC-BF16-CHECK
        return torch.bfloat16, props.name
    return torch.float16, props.name


def main():
    torch.backends.cuda.matmul.allow_tf32 = True  # expect: PREC-TF32
    model = nn.Sequential(nn.Linear(8, 8), nn.ReLU())
    if torch.cuda.device_count() > 1:  # expect: DEV-CUDA-RUNTIME
        model = torch.nn.DataParallel(model, device_ids=[0, 1])  # expect: DIST-DATAPARALLEL
    model = model \
        .cuda()  # expect: DEV-TENSOR-CUDA
    ref = torch.zeros(3, dtype=torch.float64)  # expect: DEV-FLOAT64
    used = torch.cuda.memory_usage()  # expect: DEV-UNSUPPORTED
    label = r"cuda"  # expect: DEV-DEVICE-STRING
    name = f"{'cuda' if ref.is_cuda else 'cpu'}"  # expect: DEV-DEVICE-STRING DEV-IS-CUDA
    note = f"{{cuda}} is a literal brace, {used!r:>10}"
    return model, amp, amp_C, ref, label, name, note, pick_dtype()


if __name__ == "__main__":
    main()
