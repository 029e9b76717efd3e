# x[..., i]: the ellipsis stands for whole slices of the dimensions the
# other items leave; reading, writing, op= and backward through it, and
# ... as a body that does nothing
import torch
x = torch.arange(24.).reshape(2, 3, 4)
print(x[..., 0])
print(x[0, ...])
print(x[..., 1:3].shape, x[1, ..., 2], x[...].shape, x[..., None].shape, x[None, ..., 0].shape)
print(x[:, ..., :, 1], x[..., 0, 1, 2])
x[..., 0] = -1
x[0, ..., 1] += 10
print(x, x._version)
m = x > 5
print(x[m[..., 0], ...].shape, x[..., torch.tensor([0, 3])].shape)
def stub():
    ...
class A:
    ...
print(stub(), A.__name__)
w = torch.tensor([[1., 2.], [3., 4.]], requires_grad=True)
y = (w * w)[..., 1]
y.sum().backward()
print(y, w.grad)
h = w * 1
h[..., 0] = 0
h.sum().backward()
print(h, w.grad)
v = torch.zeros(2, 3)
v[..., 1:] += torch.tensor([1., 2.])
print(v)
