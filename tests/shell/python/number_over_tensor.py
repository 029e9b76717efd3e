# A number divided by a tensor is PyTorch's __rtruediv__: x.reciprocal() * number,
# two roundings (LBFGS's cubic interpolation divides by a 0-d tensor step).
import torch
x = torch.tensor([3.0, 0.7, 0.1, -0.0], requires_grad=True)
y = 2.5 / x
print(y, [repr(v) for v in y.tolist()])
y[:3].sum().backward()
print([repr(v) for v in x.grad.tolist()])
t = torch.tensor(0.3)
print(repr((1.0 / t).item()), repr((7 / t).item()), repr((0.1 / torch.tensor(3.0)).item()))
print(torch.reciprocal(x), x.reciprocal())
