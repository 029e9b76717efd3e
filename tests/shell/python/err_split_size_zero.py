# split's size is 0 only for an empty dimension: PyTorch's RuntimeError
import torch
import torch.nn.functional as F
x = torch.arange(6.).view(2, 3)
print(x.sum())
x.split(0, 1)
