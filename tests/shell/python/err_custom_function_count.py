# A torch.autograd.Function whose backward returns fewer gradients than
# forward took arguments: PyTorch's RuntimeError, on the backward's line.
import torch
class Bad(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, y):
        return x * y
    @staticmethod
    def backward(ctx, g):
        return g
x = torch.tensor([1.0, 2.0], requires_grad=True)
y = Bad.apply(x, x)
y.sum().backward()
