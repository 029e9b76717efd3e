# An in-place op on a constant with an operand that requires grad is recorded:
# the constant becomes an intermediate; what used it before gets no gradient
import torch
x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
w = torch.tensor([0.5, -1.0, 2.0], requires_grad=True)
c = torch.zeros(3)
y = x + c          # c was a constant here: no gradient flows to it
same = c
c += x * w
print(c, same, c.is_leaf, c.requires_grad, c.grad_fn.name())
c.mul_(w)
(c.sum() + y.sum()).backward()
print(x.grad, w.grad)
total = torch.zeros(())
for i in range(3):
    total += (x * i).sum()
print(total)
x.grad = None
total.backward()
print(x.grad)
