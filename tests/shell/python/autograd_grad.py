# torch.autograd.grad: gradients as values, no .grad touched
import torch
from torch.autograd import grad

x = torch.tensor([0.5, -1.0, 2.0], requires_grad=True)
w = torch.tensor([1.5, 2.0, -0.5], requires_grad=True)
h = torch.tanh(x * w)
loss = (h * h).sum()
gx, gw = torch.autograd.grad(loss, [x, w], retain_graph=True)
print(gx)
print(gw)
print(x.grad, w.grad)
# an intermediate, and a leaf with it
print(torch.autograd.grad(loss, h, retain_graph=True))
print(torch.autograd.grad(loss, (h, x), retain_graph=True))
# the same again: no accumulation, then the graph is freed
print(grad(loss, x))
print(x.grad)

# grad_outputs for a vector output, and a tuple of outputs
y = x * x
print(torch.autograd.grad(y, x, grad_outputs=torch.tensor([1.0, 10.0, 100.0]), retain_graph=True))
print(torch.autograd.grad([y.sum(), (y * w).sum()], [x, w], retain_graph=True))
print(torch.autograd.grad((y, y.sum()), x, grad_outputs=(torch.ones(3), None)))

# allow_unused: None for an input the output does not depend on
u = torch.tensor(3.0, requires_grad=True)
z = (x * 2).sum()
print(torch.autograd.grad(z, [x, u], allow_unused=True))
# a leaf with respect to itself
print(torch.autograd.grad(u, u))

# the gradient is a value: arithmetic on it, and a step with it
g, = torch.autograd.grad((w ** 2).sum(), w)
print(g.requires_grad, g * 0.1)
with torch.no_grad():
    w -= 0.1 * g
print(w, w.grad)

# .grad untouched after a backward that filled it
loss = (x * w).sum()
loss.backward(retain_graph=True)
print(x.grad)
print(torch.autograd.grad(loss, x))
print(x.grad)
