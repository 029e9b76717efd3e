import torch
x = torch.tensor([[0.0, 1.5, 0.0], [2.0, 0.0, -1.0]])
print(x.nonzero(), torch.nonzero(x > 0), torch.nonzero(torch.tensor(3.0)), torch.nonzero(torch.zeros(2, 2)), torch.tensor([0, 4, 0, 5]).nonzero())
