import torch
b = torch.tensor([True, False])
b.add_(True)
print(b)
b.add_(-1.75)
