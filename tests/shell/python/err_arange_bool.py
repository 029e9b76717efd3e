import torch
print(torch.arange(3, dtype=torch.int32))
print(torch.arange(3, dtype=torch.bool))
