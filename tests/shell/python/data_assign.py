# w.data = ...: the elements replaced, unrecorded, every holder seeing them.
import torch
w = torch.tensor([1., 2.], requires_grad=True)
v = w
(w * w).sum().backward()
w.data = w.data - 0.1 * w.grad
print(w, v, w.requires_grad, w.is_leaf, w.grad)
b = torch.zeros(2, 2, requires_grad=True)
b.data = torch.ones(2, 2) * 3
print(b, b.sum().item())
params = [w, b]
for p in params:
    p.data = p.data * 2
print(w, b)
