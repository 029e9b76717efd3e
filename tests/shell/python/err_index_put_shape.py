import torch
a = torch.zeros(2, 3)
a[0] = torch.ones(1, 3)
print(a)
a[0] = torch.ones(2, 3)
