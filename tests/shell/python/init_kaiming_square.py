# nn.init.kaiming_uniform_ / kaiming_normal_ / calculate_gain (PyTorch 1.13's
# code, drawing from its stream) and torch.square (pow(x, 2), PowBackward0)
import math
import torch
import torch.nn as nn
torch.manual_seed(0)
w = torch.empty(3, 5)
nn.init.kaiming_uniform_(w, a=math.sqrt(5))
print(w)
nn.init.kaiming_normal_(w, mode='fan_out', nonlinearity='relu')
print(w)
print(nn.init.calculate_gain('tanh'), nn.init.calculate_gain('leaky_relu', 0.2), nn.init.calculate_gain('relu'))
lin = nn.Linear(4, 2)
nn.init.kaiming_uniform_(lin.weight, nonlinearity='relu')
nn.init.zeros_(lin.bias)
print(lin.weight, lin.bias)
x = torch.tensor([1.5, -2.0], requires_grad=True)
y = torch.square(x)
print(y, x.square(), torch.tensor([3, -4]).square())
y.sum().backward()
print(x.grad)
