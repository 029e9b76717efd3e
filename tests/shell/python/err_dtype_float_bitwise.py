import torch
print("before")
x = torch.tensor([1.5])
print(x & x)
