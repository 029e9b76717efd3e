# Source: Dive into Deep Learning, 2.5 "Automatic Differentiation" (PyTorch tab)
#   https://d2l.ai/chapter_preliminaries/autograd.html
#   https://github.com/d2l-ai/d2l-en/blob/master/chapter_preliminaries/autograd.md
#   (code MIT-0, text CC BY-SA 4.0)
# Changed: the notebook's cells run as one script, and the value each cell
#   displays (its last expression) printed with print(); prose dropped.
#   Added torch.manual_seed(0) before the draw of `a` (the draw is the
#   lesson: the function's control flow depends on it).  The last line
#   prints tensor(True) for this seed, but for about 1 draw in 20 it prints
#   tensor(False) (d / a rounds), so the file needs PyTorch's random stream.

import torch

x = torch.arange(4.0)
print(x)

# Can also create x = torch.arange(4.0, requires_grad=True)
x.requires_grad_(True)
print(x.grad)  # The gradient is None by default

y = 2 * torch.dot(x, x)
print(y)

y.backward()
print(x.grad)

print(x.grad == 4 * x)

x.grad.zero_()  # Reset the gradient
y = x.sum()
y.backward()
print(x.grad)

x.grad.zero_()
y = x * x
y.backward(gradient=torch.ones(len(y)))  # Faster: y.sum().backward()
print(x.grad)

x.grad.zero_()
y = x * x
u = y.detach()
z = u * x

z.sum().backward()
print(x.grad == u)

x.grad.zero_()
y.sum().backward()
print(x.grad == 2 * x)

def f(a):
    b = a * 2
    while b.norm() < 1000:
        b = b * 2
    if b.sum() > 0:
        c = b
    else:
        c = 100 * b
    return c

torch.manual_seed(0)  # added
a = torch.randn(size=(), requires_grad=True)
d = f(a)
d.backward()

print(a.grad == d / a)
