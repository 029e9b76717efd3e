# x[i] = v on tensors of a graph: recorded as PyTorch records it
# (CopySlices for basic items, IndexPutBackward0 with a tensor or a mask),
# the gradients through the write to x and to v, twice differentiated.
import torch
x = torch.tensor([[1.0, -2.0, 3.0], [0.5, 4.0, -1.0]], requires_grad=True)
v = torch.tensor([10.0, 20.0, 30.0], requires_grad=True)
h = x.exp()
h = h * 1
h[torch.tensor([1, 1])] = v
print(h.grad_fn.name())
h[h > 5] += v.sum()
print(h)
h[:, 0] *= x[:, 1]
h[0] = h[1]
h[1, 1:] = torch.tensor(7.0)
print(h)
(h ** 2).sum().backward()
print(x.grad)
print(v.grad)
# a constant that takes a value requiring grad becomes an intermediate
c = torch.zeros(2, 3)
c[0] = v
c[1, ::2] = x[0, :2] * 3
print(c, c.grad_fn.name())
# second order, through the write
x.grad = None
h = x * x
h[0, :2] = x[1, 1:] ** 2
g, = torch.autograd.grad((h ** 3).sum(), x, create_graph=True)
print(g)
g.sum().backward()
print(x.grad)
# a float32 target takes a float64 value; the gradient returns as float64
v.grad = None
f = torch.ones(3, dtype=torch.float32) * x[0, 0].float()
f[1] = v[0] / 3
print(f)
f.sum().backward()
print(v.grad)
# a value of shape (1, 3) into a row: its gradient keeps the shape
r = torch.tensor([[1.0, 2.0, 3.0]], requires_grad=True)
m = x * 1
m[1] = r
(m * m).sum().backward()
print(r.grad)
