# Source: "Autograd: automatic differentiation" (PyTorch Tutorials, Deep
#   Learning with PyTorch: A 60 Minute Blitz, the 2018-2019 version that
#   "A Gentle Introduction to torch.autograd" later replaced)
#   https://github.com/pytorch/tutorials/blob/05f04cb4463d507cc90f891db82d8c2685e14b53/beginner_source/blitz/autograd_tutorial.py
#   (BSD-3-Clause, (c) PyTorch contributors)
# Changed: the tutorial's prose dropped; added torch.manual_seed(0) so the
#   random tensors are the same on each run (needs PyTorch's random stream);
#   the two prints of a grad_fn print grad_fn.name(), as the object's repr
#   carries a memory address that changes on every run.  The gradient passed to
#   y.backward is made with dtype=torch.float64 instead of torch.float
#   (float32).  As published, the line under `with torch.no_grad():` is
#   indented with a tab.
# -*- coding: utf-8 -*-

import torch

torch.manual_seed(0)  # added

###############################################################
# Create a tensor and set requires_grad=True to track computation with it
x = torch.ones(2, 2, requires_grad=True)
print(x)

###############################################################
# Do an operation of tensor:
y = x + 2
print(y)

###############################################################
# ``y`` was created as a result of an operation, so it has a ``grad_fn``.
print(y.grad_fn.name())

###############################################################
# Do more operations on y
z = y * y * 3
out = z.mean()

print(z, out)

################################################################
# ``.requires_grad_( ... )`` changes an existing Tensor's ``requires_grad``
# flag in-place. The input flag defaults to ``True`` if not given.
a = torch.randn(2, 2)
a = ((a * 3) / (a - 1))
print(a.requires_grad)
a.requires_grad_(True)
print(a.requires_grad)
b = (a * a).sum()
print(b.grad_fn.name())

###############################################################
# Gradients
# ---------
# Let's backprop now
# Because ``out`` contains a single scalar, ``out.backward()`` is
# equivalent to ``out.backward(torch.tensor(1))``.

out.backward()

###############################################################
# print gradients d(out)/dx
#

print(x.grad)

###############################################################
# You can do many crazy things with autograd!


x = torch.randn(3, requires_grad=True)

y = x * 2
while y.data.norm() < 1000:
    y = y * 2

print(y)

###############################################################
#
gradients = torch.tensor([0.1, 1.0, 0.0001], dtype=torch.float64)
y.backward(gradients)

print(x.grad)

###############################################################
# You can also stops autograd from tracking history on Tensors
# with requires_grad=True by wrapping the code block in
# ``with torch.no_grad():``
print(x.requires_grad)
print((x ** 2).requires_grad)

with torch.no_grad():
	print((x ** 2).requires_grad)
