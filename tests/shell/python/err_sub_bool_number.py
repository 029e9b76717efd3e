import torch
print(torch.tensor([1, 0]) - torch.tensor([1, 1]))
print(torch.tensor([1, 0]) - True)
