# What Dive into Deep Learning's code and helpers write: y.ndim an int,
# torch.max(X, Y) element-wise, hasattr of a tuple's __len__, torch.is_tensor,
# Size.numel(), super(Class, self), and several targets assigned at once
# (self.a, self.b = a, b; x[0], x[2] = ...). Expected: CPython's and PyTorch's.
import torch
y = torch.ones(2, 3)
print(y.ndim, y.dim(), y.numel(), len(y), y.size().numel(), y.shape.numel(), torch.is_tensor(y), torch.is_tensor(3))
for i in range(y.ndim):
    print(i)
print(torch.max(y, torch.zeros_like(y) + 2), torch.min(y, torch.zeros(3)), y.max(torch.full((2, 3), 0.5)))
print(hasattr((1.0, 2.0), "__len__"), hasattr([1], "__len__"), hasattr("ab", "__len__"), hasattr(3, "__len__"), hasattr(y, "__len__"), hasattr({}, "__getitem__"))
class A:
    def __init__(self):
        self.v = 1
class B(A):
    def __init__(self, a, b):
        super(B, self).__init__()
        self.a, self.b = a, b
        self.c, (self.d, e) = 3, (4, 5)
b = B(1, 2)
print(b.v, b.a, b.b, b.c, b.d)
x = [0, 0, 0]
x[0], x[2] = 5, 6
d = {}
d["k"], d["j"] = 1, 2
print(x, d)
z = torch.zeros(3)
z[0], z[1] = 1.5, 2.5
print(z)
w = torch.tensor([1.0, 2.0], requires_grad=True)
b = torch.tensor([0.5], requires_grad=True)
w.grad, b.grad = torch.ones(2), torch.zeros(1)
print(w.grad, b.grad)
class P:
    pass
p = P()
p.x, (p.y, p.z) = 1, [2, 3]
m = {}
m["a"], p.w = p.x + 1, "s"
print(p.x, p.y, p.z, m, p.w)
t = torch.zeros(2, 2)
t[0, 0], t[1] = 5.0, torch.tensor([1.0, 2.0])
print(t)
w.data, b.requires_grad = torch.tensor([3.0, 4.0]), False
print(w, b)
