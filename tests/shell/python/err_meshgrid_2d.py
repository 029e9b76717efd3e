# meshgrid takes 0-D or 1-D tensors: PyTorch's RuntimeError
import torch
import torch.nn.functional as F
x = torch.arange(6.).view(2, 3)
print(x.sum())
torch.meshgrid(x, x, indexing='ij')
