# int64 operands beside float32 ones are rounded to float32 first (2147483647
# becomes 2^31), as PyTorch casts every operand to the common type; clamp
# reads x and its bounds, not its result, so a write to the result is harmless
import torch
x1 = torch.tensor([-0.0, -1.0, 2.0], dtype=torch.float32, requires_grad=True)
c1 = torch.tensor([[1, -1048576, 4], [1000, 1, 2147483647]])
print(c1 % x1, c1 + x1, c1 * x1 == c1 * 1.0, torch.tensor([16777217]) - torch.tensor([1.0], dtype=torch.float32))
x0 = torch.tensor([[-3.0, 1.111, -3.0]], requires_grad=True)
v0 = x0.clamp(-2, 2)
v0[-1] -= 7
(v0 * torch.tensor([[1.0, -0.5, 2.3]])).sum().backward()
print(x0.grad)
