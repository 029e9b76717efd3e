# prod along a dim the tensor lacks: PyTorch's IndexError.
import torch

x = torch.ones(2, 3)
print(x.prod(1))
print(x.prod(2))
