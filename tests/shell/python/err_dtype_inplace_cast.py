import torch
print("before")
x = torch.tensor([1, 2])
x += 1.5
