# masked_fill's value is a number or a 0-d tensor: PyTorch's RuntimeError
import torch
x = torch.zeros(3)
print(x.masked_fill(x == 0, 1.0))
x.masked_fill(x == 0, torch.ones(2))
