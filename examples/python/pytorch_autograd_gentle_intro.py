# Source: "A Gentle Introduction to torch.autograd" (PyTorch Tutorials,
#   Deep Learning with PyTorch: A 60 Minute Blitz)
#   https://pytorch.org/tutorials/beginner/blitz/autograd_tutorial.html
#   https://github.com/pytorch/tutorials/blob/main/beginner_source/blitz/autograd_tutorial.py
#   (BSD-3-Clause, (c) PyTorch contributors)
# Changed: only the sections "Differentiation in Autograd" and "Exclusion
#   from the DAG"; the resnet18 / torchvision / optimizer sections dropped.
#   torch.rand draws x, y, z but only requires_grad flags are printed, so
#   the output is the same for any random numbers.

import torch

a = torch.tensor([2., 3.], requires_grad=True)
b = torch.tensor([6., 4.], requires_grad=True)

Q = 3*a**3 - b**2

external_grad = torch.tensor([1., 1.])
Q.backward(gradient=external_grad)

# check if collected gradients are correct
print(9*a**2 == a.grad)
print(-2*b == b.grad)

x = torch.rand(5, 5)
y = torch.rand(5, 5)
z = torch.rand((5, 5), requires_grad=True)

a = x + y
print(f"Does `a` require gradients?: {a.requires_grad}")
b = x + z
print(f"Does `b` require gradients?: {b.requires_grad}")
