import torch
print(torch.tensor([1]) ** torch.tensor([-1]))
print(torch.tensor([2]) ** -1)
