import torch
x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
h = x * 2
h += torch.ones(2, 3)
print(h)
