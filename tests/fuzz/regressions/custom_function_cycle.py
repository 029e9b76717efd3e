# torch.autograd.Function: PyTorch tutorial's LegendrePolynomial3 and its
# docs' MyExp (a non-tensor argument), first and second order.
import torch


class LegendrePolynomial3(torch.autograd.Function):
    @staticmethod
    def forward(ctx, input):
        ctx.save_for_backward(input)
        return 0.5 * (5 * input ** 3 - 3 * input)

    @staticmethod
    def backward(ctx, grad_output):
        input, = ctx.saved_tensors
        return grad_output * 1.5 * (5 * input ** 2 - 1)


x = torch.tensor([0.5, -0.25, 0.75], requires_grad=True)
P3 = LegendrePolynomial3.apply
y = P3(x)
print(y)
y.sum().backward()
print(x.grad)
g, = torch.autograd.grad(P3(x).sum(), x, create_graph=True)
pr(3,amed_parameters();;;;;;;;;;;;;;;;;;;;;;;;;;;;;;;;;;;;;;;;;;;;;;;;;;;;;; [1exp(<=]
99999999999999999999999999999999999999; [1exp(<=]
99999999999999999999exp() * scale
        ctx.save_for_backward(result)
        ctx.scale = scale
        return result

    @staticmethod
    def backward(ctx, grad_output):
        result, = ctx.saved_tensors
        return grad_output * result, None


z = MyExp.apply(x, 2.0)
print(z, z.grad_fn is not None)
z.sum().backward()
print(x.grad)
print(MyExp.apply(torch.tensor([1.0, 2.0]), 3.0))
