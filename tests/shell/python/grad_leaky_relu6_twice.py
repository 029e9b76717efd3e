# leaky_relu's and relu6's gradients depend on x (PyTorch's
# leaky_relu_backward and hardtanh_backward), so differentiating them
# again gives zeros, as PyTorch's do, not an error.
import torch
import torch.nn.functional as F

x = torch.tensor([-1.5, 0.5, 7.0], requires_grad=True)
g, = torch.autograd.grad(F.leaky_relu(x, 0.1).sum(), x, create_graph=True)
print(g)
print(torch.autograd.grad(g.sum(), x))
h, = torch.autograd.grad(F.relu6(x).sum(), x, create_graph=True)
print(h)
print(torch.autograd.grad(h.sum(), x))
w = torch.tensor([0.5, -2.0, 3.0], requires_grad=True)
k, = torch.autograd.grad((F.leaky_relu(x * w) * w).sum(), x, create_graph=True)
print(k)
print(torch.autograd.grad(k.sum(), w))
