import torch
s = torch.seed()
print(type(s), torch.initial_seed() == s, s >= 0)
a = torch.rand(3)
torch.manual_seed(s)
print((a == torch.rand(3)).all(), (a > 2).any(), torch.tensor([]).all(), (a > 0.5).any().dtype)
