# torch.autograd.functional: jacobian, hessian, vjp, jvp, hvp, vhp (PyTorch's
# own functional.py, ported), create_graph and strict.
import torch
from torch.autograd.functional import jacobian, hessian, vjp, jvp, hvp, vhp
def f(x):
    return torch.tanh(x) * x.sum()
x = torch.tensor([0.5, -1.0, 2.0])
print(jacobian(f, x))
def g(x, y):
    return (x ** 2 * y).sum()
y = torch.tensor([1.5, 0.5, -0.25])
print(hessian(g, (x, y)))
print(vjp(f, x, torch.ones(3)))
print(jvp(f, x, torch.tensor([1.0, 0.0, 0.5])))
print(hvp(lambda t: (t.exp() * t).sum(), x, torch.ones(3)))
print(vhp(lambda t: (t.exp() * t).sum(), x, torch.ones(3)))
print(jacobian(lambda a, b: (a * b, a + b), (x, y)))
print(hessian(lambda t: torch.sin(t).sum(), x, create_graph=True))
print(jacobian(lambda t: t ** 2, x, create_graph=True))
print(vjp(lambda t: (t ** 2).sum(), x))
r = jacobian(lambda t: torch.ones(3), x)
print(r)
jacobian(lambda t: torch.ones(3), x, strict=True)
