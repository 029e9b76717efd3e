# Names real autograd material reaches through torch.autograd:
# torch.autograd.function's Function and once_differentiable, the grad
# modes (torch.autograd.no_grad() as a with and as a decorator), and
# torch.autograd.grad's deprecated only_inputs (ignored, as PyTorch does).
import torch
from torch.autograd.function import Function, once_differentiable


class Square(Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x * x

    @staticmethod
    @once_differentiable
    def backward(ctx, g):
        x, = ctx.saved_tensors
        return 2 * x * g


x = torch.tensor([3.0, -1.0], requires_grad=True)
Square.apply(x).sum().backward()
print(x.grad)
with torch.autograd.no_grad():
    y = x * 2
with torch.autograd.enable_grad():
    z = x * 2
with torch.autograd.set_grad_enabled(False):
    w = x * 2


@torch.autograd.no_grad()
def doubled(a):
    return a * 2


print(y.requires_grad, z.requires_grad, w.requires_grad, doubled(x).requires_grad)
print(torch.autograd.grad((x * x).sum(), x, only_inputs=True))
u = torch.tensor(1.0, requires_grad=True)
print(torch.autograd.grad((x * x).sum(), [x, u], None, None, False, True, True))
