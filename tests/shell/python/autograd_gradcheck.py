# torch.autograd.gradcheck and gradgradcheck: True for right first and
# second derivatives (ops, several inputs and outputs, a Function whose
# backward is written in differentiable ops), False (raise_exception=False)
# for a Function whose gradient is right but whose backward detaches its
# input, so that the gradient's own gradient is wrong.
import torch
from torch.autograd import gradgradcheck

x = torch.tensor([0.5, -1., 2.], requires_grad=True)
w = torch.tensor([[0.3, -0.2], [0.1, 0.4]], requires_grad=True)
inp = torch.tensor([[0.5, -1.], [2., 0.25], [1., 1.]])
print(torch.autograd.gradcheck(torch.sin, (x,)))
print(torch.autograd.gradcheck(lambda a, b: (a @ b).tanh(), (inp, w)))
print(torch.autograd.gradcheck(lambda t: (t.exp(), t * t), x))
print(gradgradcheck(lambda t: (t.tanh() * t ** 3).sum(), (x,)))
print(gradgradcheck(lambda a, b: torch.sigmoid(a @ b), [inp, w]))
print(gradgradcheck(lambda t: torch.sin(t) * t, x, torch.tensor([1., -2., 0.5])))
print(x.grad, w.grad)


class LegendrePolynomial3(torch.autograd.Function):
    @staticmethod
    def forward(ctx, input):
        ctx.save_for_backward(input)
        return 0.5 * (5 * input ** 3 - 3 * input)

    @staticmethod
    def backward(ctx, grad_output):
        input, = ctx.saved_tensors
        return grad_output * 1.5 * (5 * input ** 2 - 1)


class DetachedLegendre(LegendrePolynomial3):
    @staticmethod
    def backward(ctx, grad_output):
        input, = ctx.saved_tensors
        return grad_output * 1.5 * (5 * input.detach() ** 2 - 1)


print(gradgradcheck(LegendrePolynomial3.apply, x))
print(torch.autograd.gradcheck(DetachedLegendre.apply, x))
print(gradgradcheck(DetachedLegendre.apply, x, raise_exception=False))
print(torch.autograd.gradcheck(lambda t: t.detach() * t, x, raise_exception=False))
