#!/bin/sh
# NCCL_DEBUG=INFO is only mentioned in this comment
export NCCL_SOCKET_IFNAME=eth0  # expect: DIST-NCCL-ENV-TEXT
torchrun --nproc_per_node=8 train.py
