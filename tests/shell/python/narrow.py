# Tensor.narrow and torch.narrow: a slice along a dimension, its gradient,
# and PyTorch's errors.
import torch
x = torch.arange(10)
print(x.narrow(0, 0, 8).view(4, -1).t().contiguous())
print(torch.narrow(x, 0, 2, 3), x.narrow(0, -3, 2))
m = torch.arange(12.).view(3, 4).requires_grad_()
n = m.narrow(1, 1, 2)
print(n, n.grad_fn.name())
n.sum().backward()
print(m.grad)
for bad in [lambda: x.narrow(0, 8, 5), lambda: x.narrow(0, 11, 0), lambda: x.narrow(1, 0, 1)]:
    try:
        bad()
    except (RuntimeError, IndexError) as e:
        print(type(e).__name__, e)
