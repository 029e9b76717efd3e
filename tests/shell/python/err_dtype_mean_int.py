import torch
print("before")
print(torch.tensor([1, 2, 3]).mean())
