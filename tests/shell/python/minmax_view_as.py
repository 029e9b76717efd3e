# Python's max and min by their bare names compare whatever they are given:
# a 0-d tensor against a float (LBFGS's line search does), two tensors.
# x.view_as(y) and x.reshape_as(y) take y's shape.
import torch

t = torch.tensor(0.25)
print(max(t, 0.5), min(t, 0.5), max(0.5, t), min(t, 0.1, 0.2), max(t, 0.1, 0.2))
a, b = torch.tensor(2.0), torch.tensor(3.0)
print(max(a, b) is b, min(a, b) is a, max([a, b, 1.5]), min(b, 3.0) is b)
x = torch.tensor([[1.0, 5.0], [4.0, 2.0]])
print(torch.max(x), max(x.sum(), 1), min(1, x.sum()))
v = torch.arange(4.0, requires_grad=True)
w = v.view_as(x)
print(w.detach(), w.shape, v.reshape_as(x).sum())
(w * x).sum().backward()
print(v.grad, torch.tensor([1.0, 2.0]).view_as(torch.zeros(2, 1)))
