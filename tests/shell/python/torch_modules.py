# import forms: torch, torch.nn.functional as F, from torch import nn, math.
import torch
import math
import torch.nn.functional as F
from torch import nn
from torch.nn import functional as G
from math import pi

x = torch.tensor([-1.0, 0.5, 2.0], requires_grad=True)
y = F.relu(x) + G.sigmoid(x) * nn.functional.tanh(x)
print(y)
y.sum().backward()
print(x.grad)
print(math.exp(1.0), math.sqrt(2), math.floor(2.7), math.pi == pi)
with torch.no_grad():
    z = x * 2
print(z.requires_grad, (x * 2).requires_grad)
print(torch.nn.functional.softmax(torch.tensor([1.0, 2.0]), dim=0))
