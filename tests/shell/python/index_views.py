# x[i], x[i, j:k], x[i:j] are views, as PyTorch's basic indexing: writing
# through one writes x, and x's changes show through it (every such result
# here is one contiguous run of x's elements)
import torch
x = torch.zeros(2, 3)
x[0][1] = 5
x[1][:2] += 1
r = x[1]
r[2] = 7
print(x, r._version == x._version)
x[1, 0] = 3
print(r)
N = torch.zeros((3, 3), dtype=torch.int32)
for a, b in [(0, 1), (0, 1), (2, 2)]:
    N[a][b] += 1
print(N)
row = x[0, 1:]
row.mul_(2)
print(x)
w = torch.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
with torch.no_grad():
    w[0][1] -= 0.5
print(w)
e = torch.arange(6.).reshape(2, 3)
e[1].zero_()
e[0:1].add_(10)
print(e, e[1:].sum())
