import torch
print("before")
print(torch.randn(2, dtype=torch.int64))
