# isclose refuses two dtypes, as PyTorch does (in its type names).
import torch

print(torch.isclose(torch.tensor([1.0]), torch.tensor([1.0])))
print(torch.allclose(torch.tensor([1.0]), torch.tensor([1.0], dtype=torch.float32)))
