# Source: Dive into Deep Learning (0.17), 2.3 "Linear Algebra" (PyTorch tab),
#   https://d2l.ai/chapter_preliminaries/linear-algebra.html
#   https://github.com/d2l-ai/d2l-en/blob/v0.17.6/chapter_preliminaries/linear-algebra.md
#   (code MIT-0)
# Changed: each cell's displayed value (its last expression) printed with
#   print(); `dtype=torch.float32` -> `torch.float64` (the corpus runs
#   under float64; see SOURCES.md).

import torch

# Scalars
x = torch.tensor(3.0)
y = torch.tensor(2.0)

print(x + y, x * y, x / y, x**y)

# Vectors
x = torch.arange(4)
print(x)
print(x[3])
print(len(x))
print(x.shape)

# Matrices
A = torch.arange(20).reshape(5, 4)
print(A)
print(A.T)
B = torch.tensor([[1, 2, 3], [2, 0, 4], [3, 4, 5]])
print(B)
print(B == B.T)

# Tensors
X = torch.arange(24).reshape(2, 3, 4)
print(X)

# Basic properties of tensor arithmetic
A = torch.arange(20, dtype=torch.float64).reshape(5, 4)
B = A.clone()  # Assign a copy of `A` to `B` by allocating new memory
print(A, A + B)
print(A * B)

a = 2
X = torch.arange(24).reshape(2, 3, 4)
print(a + X, (a * X).shape)

# Reduction
x = torch.arange(4, dtype=torch.float64)
print(x, x.sum())
print(A.shape, A.sum())

A_sum_axis0 = A.sum(axis=0)
print(A_sum_axis0, A_sum_axis0.shape)

A_sum_axis1 = A.sum(axis=1)
print(A_sum_axis1, A_sum_axis1.shape)

print(A.sum(axis=[0, 1]))  # Same as `A.sum()`

print(A.mean(), A.sum() / A.numel())
print(A.mean(axis=0), A.sum(axis=0) / A.shape[0])

# Non-reduction sum
sum_A = A.sum(axis=1, keepdims=True)
print(sum_A)
print(A / sum_A)
print(A.cumsum(axis=0))

# Dot products
y = torch.ones(4, dtype = torch.float64)
print(x, y, torch.dot(x, y))
print(torch.sum(x * y))

# Matrix-vector products
print(A.shape, x.shape, torch.mv(A, x))

# Matrix-matrix multiplication
B = torch.ones(4, 3)
print(torch.mm(A, B))

# Norms
u = torch.tensor([3.0, -4.0])
print(torch.norm(u))
print(torch.abs(u).sum())
print(torch.norm(torch.ones((4, 9))))
