# split's sizes must add up to the size: PyTorch's RuntimeError
import torch
x = torch.arange(6.).view(2, 3)
print(x.split([1, 2], 1)[1])
x.split([1, 1], 1)
