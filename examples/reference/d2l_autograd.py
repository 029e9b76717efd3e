"""PyTorch 1.13 (float64) side of examples/d2l_autograd.ag: Dive into Deep
Learning, section 2.5 (Automatic Differentiation), as D2L writes it.

    /usr/bin/python3 examples/reference/d2l_autograd.py

Prints, in order, what the .ag prints: its `# expect:` lines. ag names
grad_fn without PyTorch's trailing 0, and its top-level backward prints
each leaf's new gradient (`x.grad = ...`), which `backward` below does too.
"""
import torch

torch.set_default_dtype(torch.float64)


def show(v):
    print(str(v).replace("Backward0>", "Backward>"))


def backward(t, name, leaf, **kw):
    t.backward(**kw)
    show("%s.grad = %s" % (name, leaf.grad))


# 2.5.1 A Simple Function
x = torch.arange(4.0)
show(x.requires_grad_(True))
show(x.grad)
y = 2 * torch.dot(x, x)
show(y)
backward(y, "x", x)
show(x.grad)
show(x.grad == 4 * x)
x.grad.zero_()
y = x.sum()
backward(y, "x", x)
show(x.grad)

# 2.5.2 Backward for Non-Scalar Variables
x.grad.zero_()
y = x * x
backward(y, "x", x, gradient=torch.ones(len(y)))
show(x.grad)

# 2.5.3 Detaching Computation
x.grad.zero_()
y = x * x
u = y.detach()
z = u * x
backward(z.sum(), "x", x)
show(x.grad == u)
x.grad.zero_()
backward(y.sum(), "x", x)
show(x.grad == 2 * x)


# 2.5.4 Gradients and Python Control Flow
def f(a):
    b = a * 2
    while b.norm() < 1000:
        b = b * 2
    if b.sum() > 0:
        c = b
    else:
        c = 100 * b
    return c


for start in (0.3, -0.7):  # D2L draws a from randn; these take both branches
    a = torch.tensor(start, requires_grad=True)
    d = f(a)
    backward(d, "a", a)
    show(d)
    show(a.grad == d / a)
