# backward of a loss that does not require grad: PyTorch's RuntimeError
# text, on the backward's line.
import torch
x = torch.ones(2)
x.sum().backward()
