# Python's max iterates over a matrix's rows and compares them: ambiguous,
# as in PyTorch (torch.max(m) is the largest element).
import torch

m = torch.tensor([[1.0, 2.0], [3.0, 0.5]])
print(torch.max(m))
print(max(m))
