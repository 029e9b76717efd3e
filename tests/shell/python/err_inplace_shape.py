import torch
x = torch.zeros(3)
x += torch.ones(3)
print(x)
x += torch.ones(2, 3)
print(x)
