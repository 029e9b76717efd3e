import torch
print(torch.tensor([7, -7]) % torch.tensor([2, 3]))
print(torch.tensor([1.5]) % 0)
print(torch.tensor([1, 2]) % torch.tensor([0, 1]))
