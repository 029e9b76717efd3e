# a 0-d tensor has no dimension to size: PyTorch's IndexError
import torch
import torch.nn.functional as F
x = torch.arange(6.).view(2, 3)
print(x.sum())
torch.tensor(2.).size(0)
