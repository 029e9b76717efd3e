# Integer results as PyTorch gives them: a tensor's negative integer powers
# (powi: 0 except for 1 and -1), no -0 from %, int64 to int32 wrapping
# (casts, in-place ops and x[i] = v), and x[i] = v of a value with leading
# dimensions of size 1.
import torch
a = torch.tensor([2, -2, 1, -1, 0, 3])
print(a ** torch.tensor([-1, -1, -3, -3, -1, 2]), 2 ** torch.tensor([-1, 2]))
print(a ** torch.tensor(-2), torch.tensor([3, 4], dtype=torch.int32) ** torch.tensor([-1, 2]))
print(a % torch.tensor(2), a % 2, a // 3)
print(torch.tensor([2**31 + 5, -2**33 - 1]).int())
big = torch.full((), 2147483647, dtype=torch.int32)
big.mul_(torch.tensor(3))
print(big)
i = torch.tensor([1, 2], dtype=torch.int32)
i[0] = torch.tensor(2**32 + 7)
print(i)
c = torch.tensor([[2, 4, -1]], dtype=torch.int32)
c[0] = c * 2
print(c)
z = torch.zeros(2, 3)
z[0] = torch.ones(1, 1, 3)
z[z == 0] = torch.full((1, 3), 5.0)
print(z)
