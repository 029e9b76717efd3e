# Python code that runs inside backward (a custom Function's backward, a
# hook) may bind new global names: backward must not lose track of the
# variables it saw before it ran.
import torch


class Twice(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        return x * 2

    @staticmethod
    def backward(ctx, g):
        global made_a, made_b, made_c, made_d
        made_a, made_b, made_c, made_d = 1, 2, 3, 4
        return g * 2


def hook(g):
    global hooked_1, hooked_2, hooked_3
    hooked_1, hooked_2, hooked_3 = g.sum().item(), 5, 6
    return g


x = torch.ones(3, requires_grad=True)
x.register_hook(hook)
Twice.apply(x).sum().backward()
print(x.grad, made_a + made_b + made_c + made_d, hooked_1, hooked_2 + hooked_3)
