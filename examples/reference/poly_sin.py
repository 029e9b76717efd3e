"""PyTorch 1.13 (float64) side of examples/poly_sin.ag: prints the lines its
`# expect:` comments hold.

    /usr/bin/python3 examples/reference/poly_sin.py

PyTorch's "Learning PyTorch with Examples" (autograd version), with fixed
starting values a, b, c, d = 0.1, 0.2, -0.1, 0.05 instead of randn (ag's
random stream is not PyTorch's), then the same fit with torch.optim.SGD and
with torch.optim.Adam.
"""
import math
import torch

torch.set_default_dtype(torch.float64)
x = torch.linspace(-math.pi, math.pi, 2000)
y = torch.sin(x)


def start():
    return [torch.tensor(v, requires_grad=True) for v in (0.1, 0.2, -0.1, 0.05)]


def result(a, b, c, d):
    print("Result: y =", round(a.item(), 6), "+", round(b.item(), 6), "x +",
          round(c.item(), 6), "x^2 +", round(d.item(), 6), "x^3")


# 1. By hand: a -= learning_rate * a.grad
a, b, c, d = start()
learning_rate = 1e-6
for t in range(2000):
    y_pred = a + b * x + c * x ** 2 + d * x ** 3
    loss = (y_pred - y).pow(2).sum()
    if t % 100 == 99:
        print(t, round(loss.item(), 4))
    loss.backward()
    with torch.no_grad():
        for p in (a, b, c, d):
            p -= learning_rate * p.grad
            p.grad = None
result(a, b, c, d)

# 2. and 3. With an optimizer
for adam in (False, True):
    a, b, c, d = start()
    if adam:
        opt = torch.optim.Adam([a, b, c, d], lr=0.001)
    else:
        opt = torch.optim.SGD([a, b, c, d], lr=1e-6)
    for t in range(2000):
        y_pred = a + b * x + c * x ** 2 + d * x ** 3
        loss = (y_pred - y).pow(2).sum()
        if t % 500 == 499:
            print(t, round(loss.item(), 4))
        opt.zero_grad()
        loss.backward()
        opt.step()
    if adam:  # a and c end near 0, where Adam's steps do not shrink: see the .ag
        print("Result: y = ... +", round(b.item(), 4), "x + ... +", round(d.item(), 4), "x^3")
    else:
        result(a, b, c, d)
