# Tensor.register_hook: on a leaf (a handle that removes it), on an
# intermediate (with retain_grad, which sees the hook's result), a hook
# that changes the gradient on its way, and PyTorch's refusal on a constant.
import torch
v = torch.tensor([0., 0., 0.], requires_grad=True)
h = v.register_hook(lambda grad: grad * 2)
v.backward(torch.tensor([1., 2., 3.]))
print(v.grad)
h.remove()
v.backward(torch.tensor([1., 2., 3.]))
print(v.grad)

x = torch.tensor([1.0, -2.0], requires_grad=True)
y = x * x
seen = []
def show(g):
    seen.append(g.clone())
y.register_hook(show)
y.retain_grad()
z = (y * 3).sum()
z.backward()
print(seen, y.grad, x.grad)

a = torch.tensor(2.0, requires_grad=True)
b = a ** 2
b.register_hook(lambda g: g + 100)
b.backward()
print(a.grad)
c = torch.tensor([1.0, 2.0])
c.register_hook(lambda g: g)
