# x ** False: PyTorch's pow_backward gives zeros for an exponent equal to
# 0, but a Python bool never equals a number there, so the formula runs:
# 0 * x ** -1 times g (nan at x = 0 or for an infinite g)
import torch
x0 = torch.tensor(3.0, requires_grad=True)
v0 = x0 ** False
(v0 * torch.tensor(-float('inf'))).sum().backward()
print(v0, x0.grad)
x1 = torch.tensor([0.0, 2.0], requires_grad=True)
(x1 ** False).sum().backward()
print(x1.grad)
x2 = torch.tensor([0.0, 2.0], requires_grad=True)
(x2 ** 0).sum().backward()
print(x2.grad)
x3 = torch.tensor([0.0, 2.0], requires_grad=True)
(x3 ** True).sum().backward()
print(x3.grad)
x4 = torch.tensor([0.5, 2.0], requires_grad=True)
g, = torch.autograd.grad((x4 ** False).sum(), x4, create_graph=True)
print(g)
