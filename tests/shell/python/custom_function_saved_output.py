# A custom Function that saves its own output (PyTorch's double backward
# tutorial, Exp): the saved output is the result apply returns, with its
# graph, so a backward made with create_graph goes through it again:
# d/dx (e^x + x) = e + 1, and gradgradcheck passes.
import torch


class Exp(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        result = torch.exp(x)
        ctx.save_for_backward(result)
        return result

    @staticmethod
    def backward(ctx, grad_out):
        result, = ctx.saved_tensors
        return result * grad_out


x = torch.tensor(1.0, requires_grad=True)
y = Exp.apply(x)
g, = torch.autograd.grad(y, x, create_graph=True)
print(y, g)
(g + x).backward()
print(x.grad)
g2, = torch.autograd.grad(Exp.apply(x * 2), x, create_graph=True)
h, = torch.autograd.grad(g2, x)
print(g2, h)

torch.manual_seed(0)
z = torch.rand(3, 3, requires_grad=True, dtype=torch.double)
print(torch.autograd.gradcheck(Exp.apply, z), torch.autograd.gradgradcheck(Exp.apply, z))


class Ident(torch.autograd.Function):  # returns its input: the output is a copy
    @staticmethod
    def forward(ctx, x):
        return x

    @staticmethod
    def backward(ctx, g):
        return g * 3


w = torch.tensor([1.0, 2.0], requires_grad=True)
v = Ident.apply(w)
v.sum().backward()
print(v, w.grad, v is w, w.grad_fn, w.is_leaf)


class Affine(torch.autograd.Function):  # changes its result in place before returning it
    @staticmethod
    def forward(ctx, x, w):
        ctx.save_for_backward(x, w)
        out = x.mm(w.t())
        out += 1
        return out

    @staticmethod
    def backward(ctx, g):
        x, w = ctx.saved_tensors
        return g.mm(w), g.t().mm(x)


x = torch.randn(1, 3, requires_grad=True)
w = torch.randn(2, 3, requires_grad=True)
print(torch.autograd.gradcheck(Affine.apply, (x, w)))
y = Affine.apply(x, w)
(y * y).sum().backward()
print(x.grad, w.grad)
