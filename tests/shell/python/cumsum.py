# torch.cumsum and torch.cumprod: running sums and products along a dim,
# each lane in order (PyTorch's CPU kernel's bits), their gradients
# (cumprod's where lanes hold zeros too), int64 for integral and bool inputs.
# In float32 cumprod's gradient at a lane's first zero is a sum over the dim,
# which ag takes in double and rounds, PyTorch in float: the float32 part
# runs without zeros.
import torch

rows = [[0.3, -1.7, 2.9, 0.11, -0.6, 1.3],
        [1.5, 0.0, -2.0, 0.5, 3.0, 0.7],
        [0.0, 2.0, -1.0, 0.5, 1.25, 0.9],
        [1.5, 0.0, 2.0, 0.0, -3.0, 0.4],
        [0.0, 0.0, 2.0, 1.0, 3.0, 0.1],
        [-1.1, 2.3, 0.7, 0.5, 0.0, 1.9],
        [0.1, 0.2, 0.3, 0.4, 0.5, 0.6]]
g = torch.tensor([[0.7, -1.3, 0.25, 2.1, -0.45, 1.7]] * 7)
no_zeros = [[v if v != 0 else 0.25 for v in row] for row in rows]
for dtype in [torch.float64, torch.float32]:
    data = rows if dtype == torch.float64 else no_zeros
    x = torch.tensor(data, dtype=dtype, requires_grad=True)
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

# long lanes with zeros: the sum at the first zero in PyTorch's sum order
long = torch.tensor([[0.5 + ((7 * k) % 11) / 10 for k in range(40)] for r in range(3)])
long[0, 3] = 0.0
long[1, 0] = 0.0
long[1, 30] = 0.0
long.requires_grad_(True)
gl = torch.tensor([[((5 * k + r) % 9) / 4 - 1 for k in range(40)] for r in range(3)])
torch.cumprod(long, 1).backward(gl)
print(long.grad[:, :6].tolist(), long.grad[1, 28:32].tolist())
long.grad = None
torch.cumprod(long.t(), 0).backward(gl.t())
print(long.grad[:, :6].tolist())

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
