# Source: Sebastian Raschka, "Build a Large Language Model (From Scratch)",
#   Appendix A "Introduction to PyTorch", sections A.2-A.4 (tensors,
#   computation graphs, automatic differentiation),
#   appendix-A/01_main-chapter-code/code-part1.ipynb,
#   https://github.com/rasbt/LLMs-from-scratch (Apache-2.0)
# Changed: the cells run as one script; each displayed value (a cell's
#   last expression) printed with print(); A.1's version and CUDA prints
#   dropped (they depend on the installation); the NumPy lines of A.2.1
#   (np.array, torch.from_numpy and the two prints that show memory
#   sharing) dropped; `tensor1d.to(torch.float32)` -> `torch.float64` (the
#   corpus runs under float64; see SOURCES.md).  A.5 on (nn.Module
#   classes, random weights) not included.

import torch

# A.2.1 Scalars, vectors, matrices, and tensors

# create a 0D tensor (scalar) from a Python integer
tensor0d = torch.tensor(1)

# create a 1D tensor (vector) from a Python list
tensor1d = torch.tensor([1, 2, 3])

# create a 2D tensor from a nested Python list
tensor2d = torch.tensor([[1, 2], 
                         [3, 4]])

# create a 3D tensor from a nested Python list
tensor3d_1 = torch.tensor([[[1, 2], [3, 4]], 
                           [[5, 6], [7, 8]]])

# A.2.2 Tensor data types

tensor1d = torch.tensor([1, 2, 3])
print(tensor1d.dtype)

floatvec = torch.tensor([1.0, 2.0, 3.0])
print(floatvec.dtype)

floatvec = tensor1d.to(torch.float64)
print(floatvec.dtype)

# A.2.3 Common PyTorch tensor operations

tensor2d = torch.tensor([[1, 2, 3], 
                         [4, 5, 6]])
print(tensor2d)

print(tensor2d.shape)

print(tensor2d.reshape(3, 2))

print(tensor2d.view(3, 2))

print(tensor2d.T)

print(tensor2d.matmul(tensor2d.T))

print(tensor2d @ tensor2d.T)

# A.3 Seeing models as computation graphs

import torch.nn.functional as F

y = torch.tensor([1.0])  # true label
x1 = torch.tensor([1.1]) # input feature
w1 = torch.tensor([2.2]) # weight parameter
b = torch.tensor([0.0])  # bias unit

z = x1 * w1 + b          # net input
a = torch.sigmoid(z)     # activation & output

loss = F.binary_cross_entropy(a, y)
print(loss)

# A.4 Automatic differentiation made easy

import torch.nn.functional as F
from torch.autograd import grad

y = torch.tensor([1.0])
x1 = torch.tensor([1.1])
w1 = torch.tensor([2.2], requires_grad=True)
b = torch.tensor([0.0], requires_grad=True)

z = x1 * w1 + b 
a = torch.sigmoid(z)

loss = F.binary_cross_entropy(a, y)

grad_L_w1 = grad(loss, w1, retain_graph=True)
grad_L_b = grad(loss, b, retain_graph=True)

print(grad_L_w1)
print(grad_L_b)

loss.backward()

print(w1.grad)
print(b.grad)
