import torch
x = torch.tensor([3.0, -2.0], requires_grad=True)
print(x + True)
print(x - False)
