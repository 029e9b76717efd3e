# A backward reads only what the gradients needed save (PyTorch saves no
# more): where reads its condition, x * c reads c for x, x % c nothing for x,
# x / 2 reads 2, so changing x in place afterwards is harmless; d / w reads
# w for w's own gradient, so changing w is the error.
import torch
torch.set_default_dtype(torch.float64)
x0 = torch.tensor([-0.7, 3.0], requires_grad=True)
c1 = torch.tensor([[-0.58], [0.0]])
x0.sum().backward()
v0 = torch.where(c1 == 0, x0, -3)
v1 = torch.zeros_like(x0) * x0
v2 = x0 / 2.0
v3 = x0 % c1
with torch.no_grad(): x0 -= 2 * x0.grad
(v0.sum() + v1.sum() + v2.sum() + v3.sum()).backward()
print(x0.grad)
w = torch.tensor([1., 2.], requires_grad=True)
d = torch.tensor([1., 2.])
z = d / w
with torch.no_grad(): w += 1
z.sum().backward()
