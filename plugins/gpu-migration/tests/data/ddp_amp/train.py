"""Distributed training with amp.

This docstring mentions torch.cuda.synchronize() and "cuda" but is prose, not code.
"""
import os

import torch
import torch.distributed as dist
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.cuda.amp import GradScaler, autocast  # expect: PREC-CUDA-AMP

LOG_TAG = "cuda"  # gpu-migration: keep  expect: DEV-DEVICE-STRING
HELP = "move the model with .cuda() and use the cuda backend"
TEMPLATE = '''
model.cuda()
torch.cuda.synchronize()
'''


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(16, 4)

    def forward(self, x):
        # x.cuda() here would be wrong: comments are not code
        return self.fc(x).view(-1, 4)


def main():
    local_rank = int(os.environ.get("LOCAL_RANK", "0"))
    os.environ["NCCL_DEBUG"] = "INFO"  # expect: DIST-NCCL-ENV
    dist.init_process_group(backend="nccl")  # expect: DIST-NCCL-BACKEND
    torch.cuda.set_device(local_rank)  # expect: DEV-CUDA-RUNTIME
    device = torch.device(f"cuda:{local_rank}")  # expect: DEV-DEVICE-STRING
    model = Net().cuda()  # expect: DEV-TENSOR-CUDA
    model = DDP(model, device_ids=[local_rank])  # expect: DIST-DDP-DEVICE-IDS
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-4)  # expect: AFF-FUSED-OPTIMIZER
    scaler = torch.cuda.amp.GradScaler()  # expect: PREC-CUDA-AMP
    for step in range(10):
        x = torch.randn(8, 16, device="cuda")  # expect: DEV-DEVICE-STRING
        with torch.cuda.amp.autocast():  # expect: PREC-CUDA-AMP
            loss = model(x).pow(2).mean()
        optimizer.zero_grad()
        scaler.scale(loss).backward()
        scaler.unscale_(optimizer)
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)  # expect: AFF-CLIP-GRAD
        scaler.step(optimizer)
        scaler.update()
        if step % 5 == 0 and x.is_cuda:  # expect: DEV-IS-CUDA
            print(f"step {step} on cuda: {loss.item():.4f}", HELP)
    torch.cuda.synchronize()  # expect: DEV-CUDA-RUNTIME
    print("peak", torch.cuda.max_memory_allocated() / 2**20,  # expect: DEV-CUDA-RUNTIME
          "MiB")
    state = torch.load("ckpt.pt", map_location="cuda:0")  # expect: DEV-DEVICE-STRING
    return state, autocast, GradScaler  # expect: PREC-CUDA-AMP


if __name__ == "__main__":
    main()
