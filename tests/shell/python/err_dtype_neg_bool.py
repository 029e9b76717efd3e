import torch
print("before")
print(-torch.tensor([True]))
