# Recorded in-place ops with graphs kept (retain_graph), in a training loop, after a
# matrix product (h.relu_() too) and on a float32 intermediate written with float64
import torch
x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
h = x * 2
y = h.sum()
y.backward(retain_graph=True)
print(x.grad)
h += x
h.sum().backward(retain_graph=True)
print(x.grad)
y.backward()
print(x.grad)
x.grad = None
for step in range(3):
    h = x * x
    h *= 2
    h -= x
    loss = h.sum()
    loss.backward()
    print(x.grad)
a = torch.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
b = torch.tensor([[0.5, 1.0], [1.5, -1.0]], requires_grad=True)
m = a @ b
m += 1
m.relu_()
m.sum().backward()
print(a.grad, b.grad)
f = x.float()
g = f * 2
g += torch.tensor([0.1, 0.2, 0.3], dtype=torch.float64)
print(g, g.dtype)
g.sum().backward()
print(x.grad)

# retain_grad before in-place ops: the gradient of h as it is at the end
x.grad = None
h = x * 2
h.retain_grad()
a = h * 3
h += 1
h.mul_(x)
(h.sum() + a.sum()).backward()
print(h.grad, x.grad, h.retains_grad)
