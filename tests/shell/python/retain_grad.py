# retain_grad (issue 19): an intermediate keeps the gradient backward
# computes for it, summed over backwards as a leaf's; the others keep none.
import torch
x = torch.tensor([1.0, -2.0, 3.0], requires_grad=True)
h = x * x
h.retain_grad()
a = h.tanh()
a.retain_grad()
y = (a * torch.tensor([1.0, 2.0, 3.0])).sum()
print(h.retains_grad, a.retains_grad, x.retains_grad, y.retains_grad)
y.backward(retain_graph=True)
print(h.grad, a.grad, x.grad)
y.backward()
print(h.grad, a.grad, x.grad)
h.grad = None
print(h.grad, (x * 3).grad)
x.retain_grad()
print(x.retains_grad)
