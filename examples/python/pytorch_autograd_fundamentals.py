# Source: "The Fundamentals of Autograd" (Introduction to PyTorch on
#   YouTube series), https://pytorch.org/tutorials/beginner/introyt/autogradyt_tutorial.html
#   https://github.com/pytorch/tutorials/blob/main/beginner_source/introyt/autogradyt_tutorial.py
#   (BSD-3-Clause)
# Changed: "A Simple Example" and "Turning Autograd Off and On" only (the
#   TinyModel class, the profiler and the high-level API parts draw random
#   numbers or use classes); matplotlib dropped and the plt.plot lines
#   removed; `print(x.grad_fn)` -> `print(x.grad_fn.name())` (the repr has
#   a memory address) and the next_functions prints dropped (their reprs
#   have addresses too); in the detach example `torch.rand(5,
#   requires_grad=True)` -> five fixed numbers (a random draw replaced by
#   fixed data).

import torch

import math


a = torch.linspace(0., 2. * math.pi, steps=25, requires_grad=True)
print(a)

b = torch.sin(a)

print(b)

c = 2 * b
print(c)

d = c + 1
print(d)

out = d.sum()
print(out)

print('d:')
print(d.grad_fn.name())
print('\nc:')
print(c.grad_fn.name())
print('\nb:')
print(b.grad_fn.name())
print('\na:')
print(a.grad_fn)

out.backward()
print(a.grad)


# Turning Autograd Off and On

a = torch.ones(2, 3, requires_grad=True)
print(a)

b1 = 2 * a
print(b1)

a.requires_grad = False
b2 = 2 * a
print(b2)

a = torch.ones(2, 3, requires_grad=True) * 2
b = torch.ones(2, 3, requires_grad=True) * 3

c1 = a + b
print(c1)

with torch.no_grad():
    c2 = a + b

print(c2)

c3 = a * b
print(c3)

def add_tensors1(x, y):
    return x + y

@torch.no_grad()
def add_tensors2(x, y):
    return x + y


a = torch.ones(2, 3, requires_grad=True) * 2
b = torch.ones(2, 3, requires_grad=True) * 3

c1 = add_tensors1(a, b)
print(c1)

c2 = add_tensors2(a, b)
print(c2)

x = torch.tensor([0.4963, 0.7682, 0.0885, 0.1320, 0.3074], requires_grad=True)
y = x.detach()

print(x)
print(y)
