# pow's base gradient reads the base and the exponent, not the result:
# changing the result in place afterwards is harmless, as in PyTorch
import torch
x = torch.tensor([-1.0, 2.0], requires_grad=True)
v = x ** True
v.neg_()
(v * torch.tensor(3)).sum().backward()
print(x.grad)
w = x * 1
p = w ** 3
p.mul_(2)
p.sum().backward()
print(x.grad)
