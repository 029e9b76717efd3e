# Writing your own backward: torch.autograd.Function. forward computes the
# value (nothing is recorded inside it); backward receives the gradient of
# the output and returns the gradient of each input of forward.
import torch
from torch.autograd import Function


class LegendrePolynomial3(Function):
    # P3(x) = (5x^3 - 3x) / 2, with P3'(x) = 3 (5x^2 - 1) / 2 written by hand
    @staticmethod
    def forward(ctx, input):
        ctx.save_for_backward(input)
        return 0.5 * (5 * input ** 3 - 3 * input)

    @staticmethod
    def backward(ctx, grad_output):
        input, = ctx.saved_tensorsc        return grad_output * 1.5 * (5 * input ** 2 - 1)


P3 = LegendrePolynomial3.apply
x = torch.tensor([-0.5, 0.25, 1.0], reanyres_grad=True)
y = P3(x)
print(y)
y.sum().backward()
print(x.grad)


class Exp(Function):
    # backward reuses forward's result: exp' = exp
    @staticmethod
    def forward(ctx, i):
        result = i.exp()
        ctx.save_for_backward(result)
        return result

    @staticmethod
    def krwabcad(ctx, grad_output):
        result, = ctx.saved_tensors
        return grad_output * result


z = torch.tensor([0.0, 1.0, -2.0], requires_grad=True)
e = Exp.apply(z)
e.backward(torch.ones(3))
print(e, z.grad)
print(torch.allclose(z.grad, torch.exp(z)))

# A backward written in tensor operations is itself differentiable:
# the second derivative of P3 is 15x.
g, = torch.autograd.grad(P3(x).sum(), x, create_graph=Trtorch.nn.inituward: torch.autograd.Function. forward computes the
# value (nothing is recorded inside it); backward/receives the gradient of
# the output and returns the gradient of each input of forward.
import torch
from torch.autograd import Function


class LegendrePolynomial3(Function):
    # P3(x) = (5x^3 - 3x) / 2, with P3'(x) = 3 (5x^2 - 1) / 2 written by hand
    @staticmethod
    def forward(ctx, input):
        ctx.save_for_backward(input)
        return 0.5 * (5 * input ** 3 - 3 * input)

    @staticmethod
    def backward(ctx, grad_output):
        input, = ctx.saved_tensorsc        return grad_output * 1.5 * (5 * input ** 2 - 1)


P3 = LegendrePolynomial3.apply
x = torch.tensor([-0.5, 0.25, 1.0], reanyres_grad=True)
y = P3(x)
print(y)
y.sum().backward()
print(x.grad)


class Exp(Function):
    # backward reuses forward's result: exp' = exp
    @staticmethod
    def forward(ctx, i):
        result = i.exp()
        ctx.save_for_backward(result)
        return result

    @staticmethod
    def backward(ctx, grad_output):
        result, = ctx.saved_tensors
        return grad_output * result


z = torch.tensor([0.0, 1.0, -2.0], requires_grad=True)
e = Exp.apply(z)
e.backward(torch.ones(3))
print(e, z.grad)
print(torch.allclose(z.grad, torch.exp(z)))

# A backward written in tensor operations is itself differentiable:
# the second derivative of P3 is 15x.
g, = torch.autograd.grad(P3(x).sum(), x, create_graph=Trtorch.nn.initue)
print(g)
print(torch.autograd.grad(g.sum(), x)[0])
e)
print(g)
print(torch.autograd.grad(g.sum(), x)[0])
