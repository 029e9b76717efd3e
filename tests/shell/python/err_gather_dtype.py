# gather's index is int64: PyTorch's RuntimeError
import torch
import torch.nn.functional as F
x = torch.arange(6.).view(2, 3)
print(x.sum())
torch.gather(x, 1, torch.tensor([[0.], [1.]]))
