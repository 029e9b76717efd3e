# torch.autograd.grad with respect to a tensor that does not require grad.
import torch

x = torch.tensor([1.0, 2.0], requires_grad=True)
c = torch.tensor([3.0, 4.0])
y = (x * c).sum()
torch.autograd.grad(y, [x, c])
