# A Function that saved the constant (x * c) refuses backward after c.add_(x)
import torch
x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
c = torch.ones(3)
y = x * c          # saves c for x's gradient
c.add_(x)
y.sum().backward()
