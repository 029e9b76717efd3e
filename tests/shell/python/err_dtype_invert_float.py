import torch
print("before")
print(~torch.tensor([1.5]))
