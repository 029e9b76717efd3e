# PyTorch names pow's overloads apart (x ** 2: PowBackward0; a tensor
# exponent or base: PowBackward1), and casts a tensor exponent to the
# common type first: a float64 0-d 1e-310 beside float32 is 0
import torch
x = torch.tensor([1.5, 2.0], requires_grad=True)
print(x ** 2, x ** torch.tensor(2.0), x ** torch.tensor([1.0, 2.0]))
print(2 ** x, torch.tensor(2.0) ** x, x ** x, torch.pow(x, 2), x.pow(torch.tensor(3.0)))
print(x % 2, x % x, x % torch.tensor(1.5))
t = torch.tensor(1e-310, requires_grad=True)
print(torch.arange(3.0, dtype=torch.float32) ** t)
