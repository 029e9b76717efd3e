# What each element-wise unary op's backward reads is all that an in-place
# change can spoil: sin reads x, exp its result, neg nothing (PyTorch's
# saved sets). Writes to what was not read differentiate.
import torch
x = torch.tensor([[1.0, -2.0, 3.0], [0.5, 4.0, -1.0]], requires_grad=True)
h = torch.sin(x)
h[0, :2] = x[1, 1:] ** 2
g, = torch.autograd.grad((h ** 3).sum(), x, create_graph=True)
print(g)
g.sum().backward()
print(x.grad)
k = x.abs()
k.neg_()
k[1] = 0
k.sum().backward()
print(x.grad)
w = torch.tensor([2.0, -1.0], requires_grad=True)
p = w * 2
e = p.exp()     # reads its result, not p
s = p.sigmoid() # likewise
n = p.neg()     # reads nothing
p.add_(1)
(e.sum() + s.sum() + n.sum() + p.sum()).backward()
print(w.grad)
