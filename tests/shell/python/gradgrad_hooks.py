# Gradients of gradients seen by hooks and retain_grad (found by the
# differential test, tests/diff/gradgrad.py).
import torch

# div's gradient for its divisor is -g * (a / b) / b with a / b computed
# again: differentiating that gradient goes through a and b, not through the
# quotient, so a hook on the quotient runs in the first backward only.
x = torch.tensor([0.97, -1.2, 0.5], requires_grad=True)
calls = []
q = x / (x * x + 1)
q.register_hook(lambda g: calls.append(g.tolist()) or g * 0.5)
g = torch.autograd.grad((q ** 2).sum(), [x], create_graph=True)
print(calls)
h = torch.autograd.grad((g[0] * torch.tensor([-1.1, -1.75, 1.23])).sum(), [x])
print(len(calls), [round(v, 12) for v in h[0].tolist()])  # sums in another order: last bits

# A retained .grad made by backward(create_graph=True) has a graph; a
# first-order backward after it adds to it out of place: a sum with no graph.
x = torch.tensor([0.5, -1.25], requires_grad=True)
v = torch.tanh(x) * 3
v.retain_grad()
loss = (v ** 2).sum()
loss.backward(create_graph=True)
print(v.grad.requires_grad, v.grad.tolist())
first = v.grad
(x.grad ** 2).sum().backward()
print(v.grad.requires_grad, v.grad.tolist(), first.tolist())
print(x.grad.requires_grad, x.grad.tolist())
