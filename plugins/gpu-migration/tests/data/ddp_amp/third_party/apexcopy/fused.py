# Vendored code: never scanned or rewritten unless include_vendored is set.
import torch


def fused(x):
    return x.cuda()
