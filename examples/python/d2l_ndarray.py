# Source: Dive into Deep Learning, 2.1 "Data Manipulation" (PyTorch tab)
#   https://d2l.ai/chapter_preliminaries/ndarray.html
#   https://github.com/d2l-ai/d2l-en/blob/master/chapter_preliminaries/ndarray.md
#   (code MIT-0, text CC BY-SA 4.0)
# Changed: the notebook's cells run as one script, and the value each cell
#   displays (its last expression) printed with print(); prose dropped.
#   Dropped: torch.randn(3, 4) (random), the two print('id(Z):', id(Z))
#   lines (a memory address, different on every run) and the NumPy
#   conversion (A = X.numpy() ...).  dtype=torch.float32 became
#   torch.float64 (twice), the default dtype under which this corpus runs.

import torch

x = torch.arange(12, dtype=torch.float64)
print(x)

print(x.numel())

print(x.shape)

X = x.reshape(3, 4)
print(X)

print(torch.zeros((2, 3, 4)))

print(torch.ones((2, 3, 4)))

print(torch.tensor([[2, 1, 4, 3], [1, 2, 3, 4], [4, 3, 2, 1]]))

print((X[-1], X[1:3]))

X[1, 2] = 17
print(X)

X[:2, :] = 12
print(X)

print(torch.exp(x))

x = torch.tensor([1.0, 2, 4, 8])
y = torch.tensor([2, 2, 2, 2])
print((x + y, x - y, x * y, x / y, x ** y))

X = torch.arange(12, dtype=torch.float64).reshape((3,4))
Y = torch.tensor([[2.0, 1, 4, 3], [1, 2, 3, 4], [4, 3, 2, 1]])
print((torch.cat((X, Y), dim=0), torch.cat((X, Y), dim=1)))

print(X == Y)

print(X.sum())

a = torch.arange(3).reshape((3, 1))
b = torch.arange(2).reshape((1, 2))
print((a, b))

print(a + b)

before = id(Y)
Y = Y + X
print(id(Y) == before)

Z = torch.zeros_like(Y)
Z[:] = X + Y

before = id(X)
X += Y
print(id(X) == before)

a = torch.tensor([3.5])
print((a, a.item(), float(a), int(a)))
