# torch.autograd.grad of an input the output does not use, without
# allow_unused=True: PyTorch's RuntimeError.
import torch

x = torch.tensor([1.0, 2.0], requires_grad=True)
u = torch.tensor(3.0, requires_grad=True)
y = (x * x).sum()
print(torch.autograd.grad(y, [x, u], allow_unused=True))
y = (x * x).sum()
torch.autograd.grad(y, [x, u])
