import torch
print("before")
torch.tensor([1.0]).retain_grad()
