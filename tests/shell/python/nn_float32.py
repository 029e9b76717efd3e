# A model made float32 with .float() and back with .to(torch.float64)
# (issue 18): parameters, buffers and gradients change dtype; a float32
# input gives a float32 output, loss and gradients.
import torch
import torch.nn as nn
torch.manual_seed(0)
m = nn.Sequential(nn.Linear(2, 3), nn.Tanh(), nn.Linear(3, 1))
m.float()
print(m[0].weight, m[2].bias)
x = torch.randn(4, 2, dtype=torch.float32)
y = m(x)
loss = ((y - 1) ** 2).mean()
loss.backward()
print(y.dtype, loss, m[0].weight.grad, m[2].bias.grad)
opt = torch.optim.SGD(m.parameters(), lr=0.1)
opt.step()
print(m[2].weight)
m.to(torch.float64)
print(m[0].bias.dtype, m[0].weight.grad.dtype, m[2].weight)
