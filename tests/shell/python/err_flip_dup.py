# flip's dims appear once each: PyTorch's RuntimeError
import torch
import torch.nn.functional as F
x = torch.arange(6.).view(2, 3)
print(x.sum())
x.flip(0, 0)
