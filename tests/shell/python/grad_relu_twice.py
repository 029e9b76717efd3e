# relu's gradient depends on relu's output (PyTorch's threshold_backward):
# it requires grad whenever the output does, with a zero second derivative,
# so a loss of it can be differentiated (found by tests/diff/gradgrad.py).
import torch

x = torch.tensor(0.9, requires_grad=True)
loss = torch.relu(x * -0.1).mean()
loss.backward(create_graph=True)
print(x.grad, x.grad.requires_grad)
print(torch.autograd.grad(torch.tanh(x.grad), [x]))

x = torch.tensor([-0.76, 1.5, 2.0], requires_grad=True)
g = torch.autograd.grad((torch.relu(x) * torch.tensor([0.5, -1.0, 2.0])).sum(), [x], create_graph=True)
print(g[0], g[0].requires_grad)
(h,) = torch.autograd.grad((g[0] ** 2).sum(), [x])
print(h)
