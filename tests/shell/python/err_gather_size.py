# gather's index may not be larger than the input apart from dim:
# PyTorch's RuntimeError
import torch
x = torch.arange(6.).view(2, 3)
print(torch.gather(x, 1, torch.tensor([[2], [0]])))
torch.gather(x, 1, torch.tensor([[0], [1], [2]]))
