import torch
x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
h = x + 1
h *= h  # mul_ saves its other operand, h itself, which the write changes
print(h)
h.sum().backward()
print(x.grad)
