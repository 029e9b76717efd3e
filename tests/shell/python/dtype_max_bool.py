# max and min along a dim of a bool tensor: values and int64 indices (PyTorch
# has a bool max kernel; ag finds the indices on the values as int64).
import torch
m = torch.tensor([[True, False], [False, False]])
print(m.max(0), m.min(-1).values, (~m).max(1).indices)
v, i = torch.min(m, 1)
print(v, i)
