# repeat needs as many sizes as the tensor has dimensions: PyTorch's
# RuntimeError
import torch
x = torch.arange(6.).view(2, 3)
print(x.repeat(1, 2).shape)
x.repeat(2)
