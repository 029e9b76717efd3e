import torch
import torch.nn.functional as F
print(F.cross_entropy(torch.tensor([[0.5, 1.0], [2.0, -1.0]]), torch.tensor([1, 0])))
print(F.cross_entropy(torch.tensor([[0.5, 1.0], [2.0, -1.0]]), torch.tensor([1.0, 0.0])))
