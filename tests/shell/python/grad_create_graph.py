# Gradients of gradients: torch.autograd.grad(create_graph=True) to any
# order, backward(create_graph=True) making x.grad a tensor with a graph,
# and the double-backward trick (a gradient of a gradient with respect to
# grad_outputs is a Jacobian-vector product).
import torch

x = torch.tensor([0.5, -1.25, 2.0], requires_grad=True)
y = (x ** 3).sum()
g, = torch.autograd.grad(y, x, create_graph=True)
print(g)
h, = torch.autograd.grad(g.sum(), x, create_graph=True)
print(h)
k, = torch.autograd.grad(h.sum(), x)
print(k, k.requires_grad)

# tanh to the fourth derivative
t = torch.tensor(0.75, requires_grad=True)
d = torch.tanh(t)
for order in range(1, 5):
    d, = torch.autograd.grad(d, t, create_graph=True)
    print(order, d)

# a mixed second derivative: d/dw (d/dx f)
w = torch.tensor([0.3, -0.6, 1.2], requires_grad=True)
f = (torch.exp(x * w) / (1 + x ** 2)).sum()
gx, = torch.autograd.grad(f, x, create_graph=True)
print(gx)
print(torch.autograd.grad(gx.sum(), w))

# backward(create_graph=True): x.grad has a graph; a second backward
# through it adds to x.grad
z = torch.tensor([1.5, -0.5], requires_grad=True)
(z ** 2 * torch.sigmoid(z)).sum().backward(create_graph=True)
print(z.grad)
(z.grad * z).sum().backward()
print(z.grad)

# The double-backward trick: u -> J^T u is linear, so its gradient with
# respect to u, seeded with v, is J v.
a = torch.tensor([0.2, 0.4, -0.3], requires_grad=True)
out = torch.sin(a) * a
u = torch.zeros(3, requires_grad=True)
back, = torch.autograd.grad(out, a, u, create_graph=True)
v = torch.tensor([1.0, 0.0, 2.0])
print(torch.autograd.grad(back, u, v))

# retain_graph defaults to create_graph: a second grad through the graph
s = (a * a).sum()
print(torch.autograd.grad(s, a, create_graph=True))
print(torch.autograd.grad(s, a))

# a gradient that does not depend on x (linear) has no graph
lin = (3 * x).sum()
c, = torch.autograd.grad(lin, x, create_graph=True)
print(c, c.requires_grad)
torch.autograd.grad(c.sum(), x)
