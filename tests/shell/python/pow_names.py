# PyTorch's three pow Functions: x ** 2 (a number exponent) PowBackward0,
# x ** t and 2 ** x (the operator wraps the number) PowBackward1,
# torch.pow(2, x) (a number base, called as a function) PowBackward2
import torch
x = torch.tensor([1.5, 2.0], requires_grad=True)
for y in [x ** 2, x ** x, 2 ** x, 2.5 ** x, torch.pow(2, x), torch.pow(2.5, x),
          torch.pow(torch.tensor(2.), x), x.pow(2), torch.pow(x, 3)]:
    print(y, y.grad_fn.name())
y = torch.pow(2, x)
y.sum().backward()
print(x.grad)
