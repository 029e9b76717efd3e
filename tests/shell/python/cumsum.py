# torch.cumsum and torch.cumprod: running sums and products along a dim,
# each lane in order (PyTorch's CPU kernel's bits), their gradients
# (cumprod's where lanes hold zeros too), int64 for integral and bool inputs
import torch

rows = [[0.3, -1.7, 2.9, 0.11, -0.6, 1.3],
        [1.5, 0.0, -2.0, 0.5, 3.0, 0.7],
        [0.0, 2.0, -1.0, 0.5, 1.25, 0.9],
        [1.5, 0.0, 2.0, 0.0, -3.0, 0.4],
        [0.0, 0.0, 2.0, 1.0, 3.0, 0.1],
        [-1.1, 2.3, 0.7, 0.5, 0.0, 1.9],
        [0.1, 0.2, 0.3, 0.4, 0.5, 0.6]]
g = torch.tensor([[0.7, -1.3, 0.25, 2.1, -0.45, 1.7]] * 7)
for dtype in [torch.float64, torch.float32]:
    x = torch.tensor(rows, dtype=dtype, requires_grad=True)
    for dim in [1, 0, -1]:
        y = torch.cumsum(x, dim)
        y.backward(g.to(dtype))
        print("cumsum", dim, y.dtype, y.tolist())
        print(x.grad.dtype, x.grad.tolist())
        x.grad = None
        y = x.cumprod(dim)
        y.backward(g.to(dtype))
        print("cumprod", dim, y.dtype, y.tolist())
        print(x.grad.dtype, x.grad.tolist())
        x.grad = None

# a column of a transposed view; the cumsum the d2l chapter takes
print(torch.cumsum(torch.tensor(rows).t(), 1)[2].tolist())
A = torch.arange(20, dtype=torch.float32).reshape(5, 4)
print(A.cumsum(axis=0))

# 0-d: itself; one element along the dim: g itself
z = torch.tensor(-0.0, requires_grad=True)
print(torch.cumsum(z, 0), torch.cumprod(z, -1))
torch.cumprod(z, 0).backward()
print(z.grad)
print(torch.cumsum(torch.ones(0, 3), 0).shape)

ints = torch.tensor([[1, 2, 3], [4, 5, 6]], dtype=torch.int32)
print(torch.cumsum(ints, 1), torch.cumprod(ints, 0))
b = torch.tensor([True, False, True])
print(b.cumsum(0), b.cumprod(0))

torch.cumsum(torch.ones(2, 3), 2)
