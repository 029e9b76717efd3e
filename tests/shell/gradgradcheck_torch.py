r"""PyTorch 1.13's verdicts on the functions of tests/shell/gradgradcheck.inc:
torch.autograd.gradcheck and gradgradcheck on the same functions, at the same
points, in float64; True where ag's report says ok, False where it says FAIL.
Then the FAIL case's numbers: the derivative of cube's vjp with v =
torch.randn(3) after manual_seed(0), which detach makes 0, and its true value
6 x v (the "numeric" column of ag's table).

    /usr/bin/python3 tests/shell/gradgradcheck_torch.py
"""
import torch
from torch.autograd import gradcheck, gradgradcheck

torch.set_default_dtype(torch.float64)
T = torch.tensor

x = T([0.5, -1., 2.], requires_grad=True)
inp = T([[0.5, -1.], [2., 0.25], [1., 1.]])
w = T([[0.3, -0.2], [0.1, 0.4]], requires_grad=True)
b = T([0.05, -0.1], requires_grad=True)


def f(x):
    return torch.sum(torch.tanh(x) * x ** 3)


def g(x):
    return torch.sin(x) * torch.exp(x) / (1 + x ** 2)


def layer(inp, w, b):
    return torch.sum(torch.sigmoid(inp @ w + b) * T([1., -2.]))


def lin(x):
    return x * 3 - 1


def cube(x):
    return (x ** 3).detach() + 3 * (x ** 2).detach() * (x - x.detach())


for name, fn, args in [("f", f, (x,)), ("g", g, (x,)), ("layer", layer, (inp, w, b)),
                       ("lin", lin, (x,)), ("cube", cube, (x,))]:
    first = gradcheck(fn, args, raise_exception=False)
    second = gradgradcheck(fn, args, raise_exception=False)
    print(f"{name}: gradcheck {first}, gradgradcheck {second}")
print(x.grad, w.grad, sep="\n")

torch.manual_seed(0)
v = torch.randn(3)
(gx,) = torch.autograd.grad(cube(x), x, v, create_graph=True)
# The vjp does not depend on x (requires_grad False: its derivative is 0).
print("cube: v", v, "vjp requires grad:", gx.requires_grad, "6 x v", 6 * x.detach() * v)
