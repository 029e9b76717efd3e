# torch.bmm takes 3-D tensors: PyTorch's RuntimeError
import torch
import torch.nn.functional as F
x = torch.arange(6.).view(2, 3)
print(x.sum())
torch.bmm(x, x)
