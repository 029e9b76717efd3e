# In-place writes keep the tensor's dtype (issue 18): an int64 counter
# table, a bool mask updated with & and |, values converted on assignment.
import torch
N = torch.zeros((3, 3), dtype=torch.int32)
N[1, 2] += 1
N[0, 0] = 7
N[2] = 2.9
print(N, N.sum())
c = torch.tensor([1, 2])
c += 3
c *= 2
print(c)
m = torch.tensor([True, False, True])
m &= torch.tensor([True, True, False])
m |= torch.tensor([False, True, False])
print(m, ~m, m ^ m)
f = torch.zeros(3, dtype=torch.float32)
f += 0.1
f.add_(1 / 3)
print(f, f.dtype)
k = torch.tensor([5, 3])
print(k & 6, k | 8, k ^ 1, ~k, 6 & k, 5 & 3, 5 | 3, 5 ^ 3, ~5, True & False, True | 2)
x = torch.tensor([1.0, -2.0, 3.0, 0.5])
print(x[(x > 0) & (x < 2)], x.logical_not(), torch.logical_and(x > 0, x < 1), torch.logical_or(x, x))
