# A hook that returns a gradient of another size: PyTorch's RuntimeError,
# naming the hook, on the backward's line.
import torch
x = torch.tensor([1., 2.], requires_grad=True)
def double_it(g):
    return torch.ones(3)
x.register_hook(double_it)
(x * x).sum().backward()
