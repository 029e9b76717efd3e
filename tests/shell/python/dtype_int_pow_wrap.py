# Integer powers past the type's range wrap as PyTorch's powi wraps them
# (squarings and products in the integer type): int32 here, exactly; int64
# past 2^53 is the double nearest (a departure: docs/engine.md, "dtypes").
import torch

c0 = torch.tensor([2, 0, 3, -3, 1, -1], dtype=torch.int32)
print(c0 ** torch.full((3,), 1048576).sum())
print(c0 ** 40, c0 ** torch.tensor(41))
print(torch.tensor([[3], [5]], dtype=torch.int32) ** torch.tensor([20, 21], dtype=torch.int32))
print(torch.tensor([3, 7, -5]) ** torch.tensor([[18], [2]]))
print(torch.tensor(3, dtype=torch.int32) ** torch.tensor([0, 31, 32, 1000001], dtype=torch.int32))
