import torch
x = torch.tensor([5.0, 6.0, 7.0])
print(x[torch.tensor([2, 0])], x[torch.tensor(1)], x[x > 5.5])
print(x[torch.tensor([0.0, 1.0])])
