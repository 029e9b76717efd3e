import torch
print("before")
print(torch.tensor([2, 3]) ** -1)
