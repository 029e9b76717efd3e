# A tensor of more than one element as a condition: PyTorch's RuntimeError,
# also in a chained comparison (a > b <= c is (a > b) and (b <= c)).
import torch
x = torch.tensor([1., 2.])
print(bool(x[0] > 0), x[0] > 0 <= x[1])
print(x > 0 <= x)
