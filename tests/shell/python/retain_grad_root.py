# retain_grad() on the tensor backward starts from (loss.retain_grad();
# loss.backward()): the gradient still reaches the leaves, and the root's
# .grad accumulates over backward calls as any retained one does.
import torch

a = torch.tensor([2.0, 1.0], requires_grad=True)
e = a * 3
e.retain_grad()
e.backward(torch.tensor([1.0, 2.0]), retain_graph=True)
print(a.grad, e.grad)
e.backward(torch.tensor([1.0, 1.0]))
print(a.grad, e.grad)

a.grad = None
loss = (a ** 3).sum()
loss.retain_grad()
loss.backward(create_graph=True)
print(a.grad, loss.grad)

a.grad = None
h = a * a
h.retain_grad()
s = h.sum()
s.retain_grad()
torch.autograd.backward([s, h], [torch.tensor(2.0), torch.ones(2)])
print(a.grad, h.grad, s.grad)

a.grad = None
m = a * 5
m.retain_grad()
m.register_hook(lambda g: print("hook", g))
m.sum().backward()
print(m.grad, a.grad)
x = torch.tensor(2.0, requires_grad=True)
y = x * 3
y.retain_grad()
torch.autograd.backward(y)
print(x.grad, y.grad)
