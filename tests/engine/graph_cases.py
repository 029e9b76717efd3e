"""Writes tests/engine/graph_cases.h: PyTorch 1.13's gradients of gradients
for test_graph.c (create_graph=True), each case a small program whose
values both sides write out:

    /usr/bin/python3 tests/engine/graph_cases.py > tests/engine/graph_cases.h
"""
import torch

D = torch.float64
torch.set_num_threads(1)


def c(v):
    return float(v).hex() if v == v else "NAN"


def arr(name, t):
    vals = ", ".join(c(v) for v in t.detach().reshape(-1).tolist())
    print(f"static const double {name}[] = {{{vals}}};")


X = [0.5, -1.25, 2.0]

# x^3: the first, second and third derivatives, summed over x
x = torch.tensor(X, dtype=D, requires_grad=True)
(g1,) = torch.autograd.grad((x ** 3).sum(), x, create_graph=True)
(g2,) = torch.autograd.grad(g1.sum(), x, create_graph=True)
(g3,) = torch.autograd.grad(g2.sum(), x)
arr("cube_d1", g1)
arr("cube_d2", g2)
arr("cube_d3", g3)

# tanh to the fourth derivative (the JAX cookbook's grad of grad of tanh)
x = torch.tensor(X, dtype=D, requires_grad=True)
ds = []
y = torch.tanh(x).sum()
for k in range(4):
    (g,) = torch.autograd.grad(y, x, create_graph=True)
    ds.append(g)
    y = g.sum()
for k, g in enumerate(ds):
    arr(f"tanh_d{k + 1}", g)

# A Hessian-vector product through exp, sin, div, pow and a broadcast:
# f(x, w) = sum(exp(sin(x) * w) / (1 + x ** 2)), x (2, 3), w (3,)
x = torch.tensor([[0.3, -0.7, 1.1], [0.9, 0.2, -0.4]], dtype=D, requires_grad=True)
w = torch.tensor([0.5, -1.5, 0.25], dtype=D, requires_grad=True)
f = (torch.exp(torch.sin(x) * w) / (1 + x ** 2)).sum()
gx, gw = torch.autograd.grad(f, (x, w), create_graph=True)
v = torch.tensor([[1.0, -2.0, 0.5], [0.25, 1.5, -1.0]], dtype=D)
u = torch.tensor([0.75, -0.5, 2.0], dtype=D)
hx, hw = torch.autograd.grad((gx * v).sum() + (gw * u).sum(), (x, w))
arr("hvp_gx", gx)
arr("hvp_gw", gw)
arr("hvp_hx", hx)
arr("hvp_hw", hw)

# backward(create_graph=True) twice: x.grad accumulates as a recorded sum
x = torch.tensor(X, dtype=D, requires_grad=True)
(x ** 2 * torch.sigmoid(x)).sum().backward(create_graph=True)

(x.grad * x).sum().backward()  # d/dx sum(grad(x) * x), added to x.grad
arr("acc_grad", x.grad)
