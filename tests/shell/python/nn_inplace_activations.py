# nn.ReLU, nn.LeakyReLU and nn.SiLU with inplace=True: the activation
# written into its input (relu_, leaky_relu_, silu_), recorded as PyTorch
# records it, and printed as PyTorch prints the module
import torch
import torch.nn as nn
torch.manual_seed(0)
m = nn.Sequential(nn.Linear(3, 4), nn.ReLU(inplace=True), nn.Linear(4, 4), nn.LeakyReLU(0.2, inplace=True),
                  nn.Linear(4, 2), nn.SiLU(inplace=True))
print(m)
x = torch.randn(5, 3)
y = m(x)
print(y)
y.sum().backward()
print(m[0].weight.grad, m[2].bias.grad)
print(nn.ReLU(), nn.LeakyReLU(), nn.SiLU())
a = torch.randn(4)
r = nn.ReLU(inplace=True)
b = r(a)
print(a, b is a)
