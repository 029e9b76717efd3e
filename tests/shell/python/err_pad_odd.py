# F.pad's pad has two numbers per dimension: PyTorch's RuntimeError
import torch
import torch.nn.functional as F
x = torch.arange(6.).view(2, 3)
print(x.sum())
F.pad(x, (1, 2, 3))
