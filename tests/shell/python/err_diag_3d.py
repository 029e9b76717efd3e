# torch.diag takes a vector or a matrix: PyTorch's RuntimeError
import torch
import torch.nn.functional as F
x = torch.arange(6.).view(2, 3)
print(x.sum())
torch.diag(x.view(1, 2, 3))
