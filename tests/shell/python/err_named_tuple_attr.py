# An attribute a named tuple (torch.max with a dim) does not have.
import torch
r = torch.max(torch.tensor([[1., 2.], [3., 0.]]), 1)
print(r.values)
print(r.maximum)
