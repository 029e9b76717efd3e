# tril needs two dimensions: PyTorch's IndexError
import torch
print(torch.tril(torch.ones(2, 2)))
torch.tril(torch.ones(3))
