# x.new_zeros of an integer dtype cannot require grad: PyTorch's RuntimeError
import torch
import torch.nn.functional as F
x = torch.arange(6.).view(2, 3)
print(x.sum())
x.new_zeros(2, dtype=torch.long, requires_grad=True)
